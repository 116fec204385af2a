/**
 * REST load: one autocannon run, as bench/run.ts makes it. Latencies come from
 * each response's own timing (float ms), not autocannon's histogram, which
 * rounds to whole milliseconds. Every answer that is not a 200, and every
 * socket error or timeout, is counted as a failure.
 */
import autocannon from 'autocannon';
import { MAX_SAMPLES, type LoadRun } from './stats.ts';

/** `paths`, when given, are asked in turn instead of the URL's own path (requests that differ, as real traffic's do). */
export function restLoad(url: string, headers: Record<string, string>, connections: number, seconds: number, paths?: readonly string[]): Promise<LoadRun> {
  return new Promise((resolve, reject) => {
    const samples: number[] = [];
    const failures: Record<string, number> = {};
    let requests = 0;
    let bytes = 0;
    let turn = 0;
    const rotation = paths?.length ? { requests: [{ setupRequest: (request: Record<string, unknown>) => ({ ...request, path: paths[turn++ % paths.length] }) }] } : {};
    const instance = autocannon({ url, headers, connections, pipelining: 1, duration: seconds, timeout: 10, ...rotation }, (error, result) => {
      if (error) return reject(error);
      // Errors include timeouts; autocannon reports them apart from answers.
      if (result.errors > 0) failures['socket error or timeout'] = result.errors;
      // autocannon's duration runs from its start to the sampling tick that ends the run, and
      // clients keep sending until that tick: it spans every response counted.
      resolve({ requests, seconds: result.duration, samples, failures, bytes: requests ? bytes / requests : 0 });
    });
    instance.on('response', (_client: unknown, statusCode: number, resBytes: number, responseTime: number) => {
      requests++;
      if (statusCode !== 200) failures[`HTTP ${statusCode}`] = (failures[`HTTP ${statusCode}`] ?? 0) + 1;
      if (samples.length < MAX_SAMPLES) samples.push(responseTime);
      bytes += resBytes;
    });
  });
}
