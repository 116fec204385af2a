/**
 * The benchmark's reading of an h2load run (bench/lib/h2load-load.ts): h2load
 * does not read trailers, where a gRPC call's status is, so a failed call must
 * show as a message missing from the DATA bytes, or the run would measure
 * error answers as if they were the scenario's.
 */
import { describe, expect, it } from 'vitest';
import { readH2loadRun } from '../../bench/lib/h2load-load.ts';

/** h2load's summary, as version 1.52 prints it, for `requests` done and `data` DATA bytes. */
function summary(requests: number, data: number, failed = 0): string {
  return [
    'finished in 4.00s, 6204.33 req/s, 2.12MB/s',
    `requests: ${requests} total, ${requests} started, ${requests} done, ${requests - failed} succeeded, ${failed} failed, 0 errored, 0 timeout`,
    `status codes: ${requests} 2xx, 0 3xx, 0 4xx, 0 5xx`,
    `traffic: 6.36MB (6668794) total, 67.83KB (69454) headers (space savings 95.68%), 6.51MB (${data}) data`,
    '                     min         max         mean         sd        +/- sd',
  ].join('\n');
}

/** Log lines: start µs, status, µs taken. */
const log = (rows: [number, number, number][]) => `${rows.map((r) => r.join('\t')).join('\n')}\n`;

describe('readH2loadRun', () => {
  it('counts OK calls, their latencies and the span they took', () => {
    const run = readH2loadRun(summary(3, 3 * 124), log([[1_000_000, 200, 300], [1_000_400, 200, 250], [1_000_700, 200, 500]]), 124, 4);
    expect(run).toMatchObject({ requests: 3, failures: {}, samples: [0.3, 0.25, 0.5], bytes: 124 });
    expect(run.seconds).toBeCloseTo(1_200 / 1e6);
  });

  it('counts a call without its message as a failure: a gRPC status in the trailers that h2load does not read', () => {
    const run = readH2loadRun(summary(4, 2 * 124), log([[1, 200, 10], [2, 200, 10], [3, 200, 10], [4, 200, 10]]), 124, 4);
    expect(run.failures).toEqual({ 'no message (a gRPC status other than OK)': 2 });
  });

  it('leaves out calls cut off when the duration ended, and counts HTTP errors and failed streams', () => {
    const run = readH2loadRun(summary(5, 2 * 124, 1), log([[1, 200, 10], [2, 200, 10], [3, 0, 10], [4, 503, 10]]), 124, 4);
    expect(run.requests).toBe(3);
    expect(run.failures).toEqual({ 'HTTP status not 200': 1, 'stream failed or reset': 1 });
  });

  it('reads a REST run (no message size to check) by its HTTP statuses alone', () => {
    const ok = readH2loadRun(summary(2, 2 * 300), log([[1, 200, 10], [2, 200, 10]]), undefined, 0);
    expect(ok).toMatchObject({ requests: 2, failures: {} });
    const notFound = readH2loadRun(summary(2, 2 * 300), log([[1, 200, 10], [2, 404, 10]]), undefined, 0);
    expect(notFound.failures).toEqual({ 'HTTP status not 200': 1 });
  });

  it('refuses output without totals rather than report a run of nothing', () => {
    expect(() => readH2loadRun('h2load: connect failed', '', 124, 4)).toThrow(/no totals/);
  });
});
