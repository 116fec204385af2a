import { describe, expect, it } from 'vitest';
import { callDeadline } from '../../src/v1/call-deadline.ts';

/** The reasons a deadline aborted with, in order. */
function aborts(): { reasons: unknown[]; abort: (reason: unknown) => void } {
  const reasons: unknown[] = [];
  return { reasons, abort: (reason) => reasons.push(reason) };
}

describe('a v1 call\'s deadline', () => {
  it('aborts with a TimeoutError once its own timeout passes', async () => {
    const seen = aborts();
    callDeadline(5, undefined, seen.abort);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(seen.reasons).toHaveLength(1);
    expect(seen.reasons[0]).toMatchObject({ name: 'TimeoutError', message: 'no answer within 5 ms' });
  });

  it('with an infinite timeout sets none: only the signal ends it', async () => {
    const request = new AbortController();
    const seen = aborts();
    callDeadline(Number.POSITIVE_INFINITY, request.signal, seen.abort);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(seen.reasons).toEqual([]);
    request.abort('deadline of the comparison');
    expect(seen.reasons).toEqual(['deadline of the comparison']);
  });

  it('follows the request\'s signal, with its reason, and at once when that is aborted already', () => {
    const request = new AbortController();
    const seen = aborts();
    const release = callDeadline(60_000, request.signal, seen.abort);
    request.abort('caller gone');
    expect(seen.reasons).toEqual(['caller gone']);
    release();
    const gone = aborts();
    callDeadline(60_000, request.signal, gone.abort)();
    expect(gone.reasons).toEqual(['caller gone']);
  });

  it('aborts once only: the request gone after the timeout passed adds nothing', async () => {
    const request = new AbortController();
    const seen = aborts();
    callDeadline(5, request.signal, seen.abort);
    await new Promise((resolve) => setTimeout(resolve, 30));
    request.abort('caller gone');
    expect(seen.reasons).toHaveLength(1);
    expect(seen.reasons[0]).toMatchObject({ name: 'TimeoutError' });
  });

  it('once released, neither the timeout nor the request aborts it, and it no longer listens to the request', async () => {
    const request = new AbortController();
    let listening = 0;
    const add = request.signal.addEventListener.bind(request.signal);
    const remove = request.signal.removeEventListener.bind(request.signal);
    request.signal.addEventListener = ((...args: Parameters<typeof add>) => (listening++, add(...args))) as typeof add;
    request.signal.removeEventListener = ((...args: Parameters<typeof remove>) => (listening--, remove(...args))) as typeof remove;
    const seen = aborts();
    const release = callDeadline(5, request.signal, seen.abort);
    expect(listening).toBe(1);
    release();
    expect(listening).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    request.abort();
    expect(seen.reasons).toEqual([]);
  });
});
