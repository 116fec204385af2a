import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/aip/errors.ts';
import { Cancellation } from '../../src/cancellation.ts';
import { abortReason, callerGone, finish, requestContext } from '../../src/request/context.ts';
import { Code } from '../../src/rpc-status.ts';
import { callDeadline } from '../../src/v1/call-deadline.ts';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('a cancellation', () => {
  it('aborts once, keeping the first reason, and tells each listener once, in the order they came', () => {
    const cancellation = new Cancellation();
    const told: string[] = [];
    const first = () => told.push('first');
    cancellation.addEventListener('abort', first);
    cancellation.addEventListener('abort', first); // the same listener twice is one listener, as on an EventTarget
    cancellation.addEventListener('abort', () => told.push('second'), { once: true });
    expect(cancellation.aborted).toBe(false);
    cancellation.abort('gone');
    cancellation.abort('again');
    expect(cancellation).toMatchObject({ aborted: true, reason: 'gone' });
    expect(told).toEqual(['first', 'second']);
  });

  it('tells no listener removed before the abort, nor one added after it', () => {
    const cancellation = new Cancellation();
    const told: string[] = [];
    const removed = () => told.push('removed');
    cancellation.addEventListener('abort', removed);
    cancellation.removeEventListener('abort', removed);
    cancellation.abort('gone');
    cancellation.addEventListener('abort', () => told.push('late'));
    expect(told).toEqual([]);
  });

  it('aborts with an AbortError when given no reason, as AbortController does', () => {
    const cancellation = new Cancellation();
    cancellation.abort();
    expect(cancellation.reason).toMatchObject({ name: 'AbortError' });
  });

  it('still tells the others when a listener throws, and the error is raised, not lost', () => {
    const raised: Array<() => void> = [];
    vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((task) => void raised.push(task));
    const cancellation = new Cancellation();
    const told: string[] = [];
    cancellation.addEventListener('abort', () => {
      throw new Error('listener broke');
    });
    cancellation.addEventListener('abort', () => told.push('after'));
    cancellation.abort('gone');
    expect(told).toEqual(['after']);
    expect(raised).toHaveLength(1);
    expect(() => raised[0]!()).toThrow('listener broke');
  });
});

describe('a request\'s context', () => {
  it('aborts with DEADLINE_EXCEEDED once its budget has passed', () => {
    vi.useFakeTimers();
    const ctx = requestContext({ authorization: 'Bearer t', requestId: 'r', budgetMs: 50 });
    vi.advanceTimersByTime(49);
    expect(ctx.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(abortReason(ctx)).toMatchObject({ code: Code.DEADLINE_EXCEEDED });
  });

  it('aborts with CANCELLED when the caller goes, whether its signal is an AbortSignal or a cancellation', () => {
    for (const caller of [new AbortController(), new Cancellation()]) {
      const ctx = requestContext({ authorization: 'Bearer t', requestId: 'r', budgetMs: 60_000, callerSignal: 'signal' in caller ? caller.signal : caller });
      caller.abort();
      expect(ctx.signal.reason).toBeInstanceOf(ApiError);
      expect(abortReason(ctx).code).toBe(Code.CANCELLED);
      finish(ctx);
    }
  });

  it('is aborted at once when its caller had already gone', () => {
    const caller = new Cancellation();
    caller.abort();
    const ctx = requestContext({ authorization: 'Bearer t', requestId: 'r', budgetMs: 60_000, callerSignal: caller });
    expect(ctx.signal.aborted).toBe(true);
    expect(abortReason(ctx).code).toBe(Code.CANCELLED);
  });

  it('once finished, is aborted neither by its deadline nor by its caller', () => {
    vi.useFakeTimers();
    const caller = new Cancellation();
    const ctx = requestContext({ authorization: 'Bearer t', requestId: 'r', budgetMs: 50, callerSignal: caller });
    finish(ctx);
    vi.advanceTimersByTime(1000);
    caller.abort();
    expect(ctx.signal.aborted).toBe(false);
  });

  it('is cancelled by a transport that hears the caller go itself (callerGone), unless finished or past its deadline', () => {
    vi.useFakeTimers();
    const gone = requestContext({ authorization: 'Bearer t', requestId: 'r', budgetMs: 60_000 });
    callerGone(gone);
    expect(abortReason(gone).code).toBe(Code.CANCELLED);
    const late = requestContext({ authorization: 'Bearer t', requestId: 'r', budgetMs: 50, now: Date.now() - 100 });
    callerGone(late);
    expect(abortReason(late).code).toBe(Code.DEADLINE_EXCEEDED);
    const done = requestContext({ authorization: 'Bearer t', requestId: 'r', budgetMs: 60_000 });
    finish(done);
    callerGone(done);
    vi.advanceTimersByTime(120_000);
    expect(done.signal.aborted).toBe(false);
  });

  it('ends the v1 calls under way with its reason', () => {
    const caller = new Cancellation();
    const ctx = requestContext({ authorization: 'Bearer t', requestId: 'r', budgetMs: 60_000, callerSignal: caller });
    const reasons: unknown[] = [];
    const release = callDeadline(60_000, ctx.signal, (reason) => reasons.push(reason));
    caller.abort();
    expect(reasons).toEqual([abortReason(ctx)]);
    release();
  });

  it('lists no member beyond what it says it has', () => {
    const ctx = requestContext({ authorization: 'Bearer t', requestId: 'r', budgetMs: 60_000 });
    expect(Object.keys(ctx).sort()).toEqual(['authorization', 'caller', 'counter', 'deadline', 'protocol', 'requestId', 'sentText', 'signal', 'trace', 'visibleWithin']);
    finish(ctx);
  });
});
