/**
 * The policy step's choices without a network: a method the contract marks
 * `disabled` needs no token in any mode; otherwise a bearer is required, or
 * the assumed identity's token stands in for a request that brings none.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/aip/errors.ts';
import type { Json } from '../../src/vocabulary/json.ts';
import { requestContext, type RequestContext } from '../../src/request/context.ts';
import type { Operation } from '../../src/port/operation.ts';
import { Guard } from '../../src/policy/guard.ts';
import type { Runner } from '../../src/port/runner.ts';
import type { MethodRule, MethodRules } from '../../src/policy/method-rules.ts';
import type { TokenVerifier } from '../../src/policy/token-verifier.ts';

const rule = (disabled: boolean): MethodRule => ({ rpc: 'x.Service/Method', disabled, capabilities: disabled ? [] : ['CAP_X'], unscoped: false, scopeOf: () => '' });
const rules = (disabled: boolean) => ({ of: () => rule(disabled) }) as unknown as MethodRules;
const op = { kind: 'get', uid: 'a'.repeat(40) } as unknown as Operation;

/** A runner that answers with the Authorization header it was handed. */
const echo: Runner = { execute: async (_op: Operation, ctx: RequestContext): Promise<Json> => ({ authorization: ctx.authorization }) };
const refusingVerifier = { verify: async () => { throw new ApiError(16, 'no'); } } as unknown as TokenVerifier;
const ctx = (authorization: string) => requestContext({ authorization, requestId: 'r', budgetMs: 1000 });
const code = (work: Promise<unknown>) => work.then(() => 0, (error: ApiError) => error.code);

describe('the policy step (Guard)', () => {
  it('runs a method the contract marks disabled without a token, in every mode', async () => {
    for (const options of [{}, { verifier: refusingVerifier }, { unverifiedCallers: true }]) {
      expect(await new Guard(echo, { rules: rules(true), ...options }).execute(op, ctx(''))).toEqual({ authorization: '' });
    }
  });

  it('refuses any other method without a bearer token, and with a token the verifier refuses', async () => {
    expect(await code(new Guard(echo, { rules: rules(false) }).execute(op, ctx('')))).toBe(16);
    expect(await code(new Guard(echo, { rules: rules(false) }).execute(op, ctx('Basic dXNlcjpwYXNz')))).toBe(16);
    expect(await code(new Guard(echo, { rules: rules(false), verifier: refusingVerifier }).execute(op, ctx('Bearer x.y.z')))).toBe(16);
  });

  it("sends the assumed identity's token for a request without one, and the caller's own otherwise", async () => {
    const assumed = { authorization: async () => 'Bearer identity' };
    const guard = new Guard(echo, { rules: rules(false), assumed });
    expect(await guard.execute(op, ctx(''))).toEqual({ authorization: 'Bearer identity' });
    expect(await guard.execute(op, ctx('Bearer mine'))).toEqual({ authorization: 'Bearer mine' });
  });
});
