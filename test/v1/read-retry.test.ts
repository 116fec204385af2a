import { describe, expect, it, vi } from 'vitest';
import { Cancellation } from '../../src/cancellation.ts';
import { MAX_RETRY_WAIT_MS, retryDelayMs, withReadRetries } from '../../src/v1/read-retry.ts';

describe('when a read to v1 is tried again', () => {
  it('backs off 25 then 50 ms on a 502/503 or a dropped socket, twice at most', () => {
    expect(retryDelayMs({ statusCode: 503 }, 'GET', 1)).toBe(25);
    expect(retryDelayMs({ statusCode: 502 }, 'GET', 2)).toBe(50);
    expect(retryDelayMs({ code: 'ECONNRESET' }, 'GET', 1)).toBe(25);
    expect(retryDelayMs({ code: 'UND_ERR_SOCKET' }, 'GET', 2)).toBe(50);
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

describe('the read retry loop (withReadRetries)', () => {
  const answer = (statusCode: number, headers: Record<string, string> = {}) => ({ statusCode, headers });
  /** An attempt that plays `outcomes` in turn (an answer, or an error to throw) and records the time it was given. */
  function scripted(outcomes: Array<{ statusCode: number } | Error>) {
    const given: number[] = [];
    const attempt = async (timeoutMs: number) => {
      given.push(timeoutMs);
      const next = outcomes[given.length - 1]!;
      if (next instanceof Error) throw next;
      return next as { statusCode: number; headers: Record<string, string> };
    };
    return { attempt, given };
  }
  const failure = (code: string) => Object.assign(new Error(code), { code });

  it('answers at once when v1 answers: one try', async () => {
    const { attempt, given } = scripted([answer(200)]);
    await expect(withReadRetries('GET', 1000, undefined, attempt)).resolves.toEqual(answer(200));
    expect(given).toEqual([1000]);
  });

  it("tries a read twice more on 503, then hands v1's last answer through", async () => {
    const { attempt, given } = scripted([answer(503), answer(503), answer(503, { 'retry-after': '0' })]);
    await expect(withReadRetries('GET', 1000, undefined, attempt)).resolves.toEqual(answer(503, { 'retry-after': '0' }));
    expect(given).toHaveLength(3);
    // Each try is given what is left of the call's one timeout, so the waits come off it.
    expect(given[1]!).toBeLessThanOrEqual(1000 - 25);
    expect(given[2]!).toBeLessThanOrEqual(1000 - 25 - 50);
  });

  it('tries again after a dropped connection, and answers the try that worked', async () => {
    const { attempt, given } = scripted([failure('ECONNRESET'), answer(200)]);
    await expect(withReadRetries('GET', 1000, undefined, attempt)).resolves.toEqual(answer(200));
    expect(given).toHaveLength(2);
  });

  it('throws the last error when every try failed, and an error it does not retry at once', async () => {
    const reset = scripted([failure('UND_ERR_SOCKET'), failure('UND_ERR_SOCKET'), failure('EPIPE')]);
    await expect(withReadRetries('GET', 1000, undefined, reset.attempt)).rejects.toMatchObject({ code: 'EPIPE' });
    expect(reset.given).toHaveLength(3);
    const timeout = scripted([failure('UND_ERR_HEADERS_TIMEOUT'), answer(200)]);
    await expect(withReadRetries('GET', 1000, undefined, timeout.attempt)).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(timeout.given).toHaveLength(1);
  });

  it('never repeats a write', async () => {
    const { attempt, given } = scripted([answer(503), answer(200)]);
    await expect(withReadRetries('POST', 1000, undefined, attempt)).resolves.toEqual(answer(503));
    expect(given).toHaveLength(1);
  });

  it('does not wait past the call\'s timeout: the answer in hand goes to the caller', async () => {
    const { attempt, given } = scripted([answer(503), answer(200)]);
    await expect(withReadRetries('GET', 20, undefined, attempt)).resolves.toEqual(answer(503));
    expect(given).toEqual([20]);
  });

  it("ends a wait as soon as the request's signal is aborted, with its reason", async () => {
    // The clock is the test's: 1 ms passes, the abort's; the 25 ms wait could end only by the abort (no
    // bound on a real clock, which a loaded machine would overrun).
    vi.useFakeTimers();
    try {
      const cancellation = new Cancellation();
      const { attempt, given } = scripted([answer(503), answer(200)]);
      const call = withReadRetries('GET', 10_000, cancellation, async (ms) => {
        const outcome = await attempt(ms);
        setTimeout(() => cancellation.abort(new Error('caller gone')), 1);
        return outcome;
      });
      const settled = expect(call).rejects.toThrow('caller gone');
      await vi.advanceTimersByTimeAsync(1);
      await settled;
      expect(given).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
