import { describe, expect, it } from 'vitest';
import { ExportFailureLog, exportSecrets } from '../../src/observability/export-failures.ts';

function recorder() {
  const lines: { level: 'warn' | 'info'; fields: Record<string, unknown>; message: string }[] = [];
  const log = {
    warn: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'warn', fields, message }),
    info: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'info', fields, message }),
  };
  return { lines, log };
}

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4318'), { code: 'ECONNREFUSED' });

describe('ExportFailureLog', () => {
  it('warns at the first failure, then at most once an interval, counting the failures since the last line', () => {
    const { lines, log } = recorder();
    let now = 1_000_000;
    const failures = new ExportFailureLog(log, { intervalMs: 60_000, now: () => now });
    failures.failed(refused);
    expect(lines).toEqual([{ level: 'warn', fields: { failedExports: 1, cause: 'connect ECONNREFUSED 127.0.0.1:4318' }, message: expect.stringContaining('could not be exported') }]);
    for (let i = 0; i < 5; i++) {
      now += 10_000;
      failures.failed(refused);
    }
    expect(lines).toHaveLength(1);
    now += 10_000;
    failures.failed(new Error('Request timed out'));
    expect(lines).toHaveLength(2);
    expect(lines[1]!.fields).toEqual({ failedExports: 6, cause: 'Request timed out' });
  });

  it('says once when exports work again, with the failures no warning counted yet', () => {
    const { lines, log } = recorder();
    let now = 0;
    const failures = new ExportFailureLog(log, { intervalMs: 60_000, now: () => now });
    failures.succeeded();
    expect(lines).toEqual([]);
    failures.failed(refused);
    now += 1000;
    failures.failed(refused);
    failures.failed(refused);
    failures.succeeded();
    failures.succeeded();
    expect(lines.map((l) => [l.level, l.fields.failedExports])).toEqual([['warn', 1], ['info', 2]]);
    expect(lines[1]!.message).toMatch(/again/);
  });

  it('keeps the interval across a recovery: a collector that flaps warns no more than once a minute', () => {
    const { lines, log } = recorder();
    let now = 0;
    const failures = new ExportFailureLog(log, { intervalMs: 60_000, now: () => now });
    for (let i = 0; i < 10; i++) {
      failures.failed(refused);
      failures.succeeded();
      now += 1000;
    }
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
  });

  it('cuts the export headers\' values and the endpoint\'s user and password out of the cause', () => {
    const { lines, log } = recorder();
    const secrets = exportSecrets('http://tracer:p%40ss@collector:4318/v1/traces', { 'x-api-key': 'k-123456', authorization: 'Bearer tok-abcdef' });
    const failures = new ExportFailureLog(log, { secrets });
    failures.failed(new Error('refused Bearer tok-abcdef and k-123456 for tracer:p@ss at collector'));
    expect(lines[0]!.fields.cause).toBe('refused *** and *** for ***:*** at collector');
  });

  it('names the error code when the message does not, and copes with what is not an Error', () => {
    const { lines, log } = recorder();
    const failures = new ExportFailureLog(log, { intervalMs: 0 });
    failures.failed(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    failures.failed(undefined);
    expect(lines.map((l) => l.fields.cause)).toEqual(['ECONNRESET: socket hang up', 'unknown']);
  });
});
