import { describe, expect, it } from 'vitest';
import { MAX_RETRY_WAIT_MS, retryDelayMs } from '../../src/v1/read-retry.ts';

describe('when a read to v1 is tried again', () => {
  it('backs off 25 then 50 ms on a 502/503 or a dropped socket, twice at most', () => {
    expect(retryDelayMs({ statusCode: 503 }, 'GET', 1)).toBe(25);
    expect(retryDelayMs({ statusCode: 502 }, 'GET', 2)).toBe(50);
    expect(retryDelayMs({ code: 'ECONNRESET' }, 'GET', 1)).toBe(25);
    expect(retryDelayMs({ code: 'UND_ERR_REQ_RETRY' }, 'GET', 2)).toBe(50);
    expect(retryDelayMs({ statusCode: 503 }, 'GET', 3)).toBeUndefined();
  });

  it("waits what v1's Retry-After asks when a request can, and otherwise leaves the wait to the caller", () => {
    expect(retryDelayMs({ statusCode: 503, headers: { 'retry-after': '0' } }, 'GET', 1)).toBe(0);
    expect(retryDelayMs({ statusCode: 503, headers: { 'retry-after': '1' } }, 'GET', 1)).toBeUndefined();
    expect(retryDelayMs({ statusCode: 503, headers: { 'retry-after': new Date(Date.now() + 60_000).toUTCString() } }, 'GET', 1)).toBeUndefined();
    // Unreadable advice is no advice: the usual backoff.
    expect(retryDelayMs({ statusCode: 503, headers: { 'retry-after': 'soon' } }, 'GET', 1)).toBe(25);
    expect(MAX_RETRY_WAIT_MS).toBeLessThan(1000);
  });

  it('never repeats a write, another status or an error that is not the connection', () => {
    expect(retryDelayMs({ statusCode: 503 }, 'PUT', 1)).toBeUndefined();
    expect(retryDelayMs({ statusCode: 500 }, 'GET', 1)).toBeUndefined();
    expect(retryDelayMs({ statusCode: 429, headers: { 'retry-after': '0' } }, 'GET', 1)).toBeUndefined();
    expect(retryDelayMs({ code: 'UND_ERR_HEADERS_TIMEOUT' }, 'GET', 1)).toBeUndefined();
  });
});
