import { describe, it, expect } from 'vitest';
import { compose, type Interceptor, type Runner } from '../../src/port/runner.ts';
import { requestContext } from '../../src/request/context.ts';
import type { Operation } from '../../src/port/operation.ts';

/** A step that writes its name on the way in and on the way out. */
const step = (name: string, seen: string[]): Interceptor => (next) => ({
  async execute(op, ctx) {
    seen.push(`${name}>`);
    const answer = await next.execute(op, ctx);
    seen.push(`<${name}`);
    return answer;
  },
});

describe('compose: the steps of the request chain', () => {
  it('runs the steps in the order given, the first outermost, then the runner, and leaves out a step a configuration does not use', async () => {
    const seen: string[] = [];
    const runner: Runner = { execute: async () => (seen.push('run'), { ok: true }) };
    const chain = compose(runner, step('tap', seen), undefined, step('policy', seen), step('systems', seen));
    const op = { kind: 'get' } as unknown as Operation;
    expect(await chain.execute(op, requestContext({ authorization: '', requestId: 'r', budgetMs: 1000 }))).toEqual({ ok: true });
    expect(seen).toEqual(['tap>', 'policy>', 'systems>', 'run', '<systems', '<policy', '<tap']);
  });

  it('is the runner itself with no steps', () => {
    const runner: Runner = { execute: async () => ({}) };
    expect(compose(runner)).toBe(runner);
    expect(compose(runner, undefined)).toBe(runner);
  });
});
