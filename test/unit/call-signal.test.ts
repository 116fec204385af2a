import { describe, expect, it } from 'vitest';
import { callSignal } from '../../src/v1/call-signal.ts';

describe('a v1 call\'s signal', () => {
  it('aborts with a TimeoutError once its own timeout passes', async () => {
    const { signal } = callSignal(5);
    await new Promise((resolve) => signal.addEventListener('abort', resolve));
    expect(signal.reason).toMatchObject({ name: 'TimeoutError', message: 'no answer within 5 ms' });
  });

  it('follows the request\'s signal, with its reason, and at once when that is aborted already', () => {
    const request = new AbortController();
    const { signal, release } = callSignal(60_000, request.signal);
    request.abort('caller gone');
    expect([signal.aborted, signal.reason]).toEqual([true, 'caller gone']);
    release();
    const gone = callSignal(60_000, request.signal);
    expect([gone.signal.aborted, gone.signal.reason]).toEqual([true, 'caller gone']);
    gone.release();
  });

  it('once released, neither the timeout nor the request aborts it, and it no longer listens to the request', async () => {
    const request = new AbortController();
    let listening = 0;
    const add = request.signal.addEventListener.bind(request.signal);
    const remove = request.signal.removeEventListener.bind(request.signal);
    request.signal.addEventListener = ((...args: Parameters<typeof add>) => (listening++, add(...args))) as typeof add;
    request.signal.removeEventListener = ((...args: Parameters<typeof remove>) => (listening--, remove(...args))) as typeof remove;
    const { signal, release } = callSignal(5, request.signal);
    expect(listening).toBe(1);
    release();
    expect(listening).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    request.abort();
    expect(signal.aborted).toBe(false);
  });
});
