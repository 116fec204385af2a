import { describe, expect, it } from 'vitest';
import { callerOf } from '../../src/translate/caller-key.ts';
import { requestContext } from '../../src/request/context.ts';

const ctx = (authorization: string) => requestContext({ authorization, requestId: 'r', budgetMs: 1000 });

describe('callerOf', () => {
  it('tells callers apart by a digest that does not hold the token', () => {
    const a = callerOf(ctx('Bearer secret-a'));
    expect(a).toBe(callerOf(ctx('Bearer secret-a')));
    expect(a).not.toBe(callerOf(ctx('Bearer secret-b')));
    expect(a).not.toContain('secret-a');
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('answers a request the same digest however often it is asked', () => {
    const request = ctx('Bearer t');
    expect(callerOf(request)).toBe(callerOf(request));
  });
});
