/**
 * Authorization's decisions from grants alone (no store, no network): the
 * capability at the scope or an ancestor, the narrowing of unscoped Lists,
 * the shared built-in rows, and refusal wherever a method names nothing to
 * check against.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/aip/errors.ts';
import type { Caller } from '../../src/request/context.ts';
import type { Operation } from '../../src/port/operation.ts';
import { Authorizer } from '../../src/policy/authorizer.ts';
import { Grants, groupsHolding, holds, type AccessReader } from '../../src/policy/grants.ts';
import type { MethodRule } from '../../src/policy/method-rules.ts';

const ORG = 'a'.repeat(40);
const TEAM = `${ORG}/1111111111111111`;
const OTHER = 'b'.repeat(40);
const BUILTIN = 'c'.repeat(40);
const caller: Caller = { subject: 'me', issuer: 'https://issuer', claims: {}, verified: true };

const reader: AccessReader = {
  bindingsOf: async () => [{ group: TEAM, role: 'viewer' }, { group: ORG, role: 'lister' }],
  capabilitiesOf: async (role) => (role === 'viewer' ? ['CAP_READ'] : role === 'lister' ? ['CAP_LIST'] : []),
};
const rule = (capabilities: string[], unscoped: boolean, scope: string): MethodRule => ({ rpc: 'x.S/M', disabled: false, capabilities, unscoped, scopeOf: () => scope });
const op = (kind: string, mapping: object = {}) => ({ kind, mapping }) as unknown as Operation;
const outcome = (work: Promise<unknown>) => work.then((visible) => visible ?? 'allowed', (error: ApiError) => error.code);

describe('grants', () => {
  it('hold a capability at the bound group and below, adding up along the ancestors', async () => {
    const grants = await new Grants(reader, 0).of({ subject: 'me' });
    expect(holds(grants, TEAM, ['CAP_READ', 'CAP_LIST'])).toBe(true);
    expect(holds(grants, `${TEAM}/2222222222222222`, ['CAP_READ'])).toBe(true);
    expect(holds(grants, ORG, ['CAP_READ'])).toBe(false);
    expect(holds(grants, `${ORG}0`, ['CAP_LIST'])).toBe(false);
    expect(groupsHolding(grants, ['CAP_READ'])).toEqual([TEAM]);
  });
});

describe('Authorizer', () => {
  const authorizer = new Authorizer(new Grants(reader, 0), new Set([BUILTIN]));

  it('allows a scoped method where the capability is held, and refuses elsewhere, whatever exists', async () => {
    expect(await outcome(authorizer.check(rule(['CAP_READ'], false, `${TEAM}/9999999999999999`), op('get'), caller))).toBe('allowed');
    expect(await outcome(authorizer.check(rule(['CAP_READ'], false, ORG), op('get'), caller))).toBe(7);
    expect(await outcome(authorizer.check(rule(['CAP_READ'], false, OTHER), op('get'), caller))).toBe(7);
    expect(await outcome(authorizer.check(rule(['CAP_READ'], false, ''), op('get'), caller))).toBe(7);
  });

  it('narrows an unscoped List to the groups holding its capability, the shared rows added where the mapping seeds them', async () => {
    expect([...(await authorizer.check(rule(['CAP_LIST'], true, ''), op('list'), caller))!].sort()).toEqual([ORG, TEAM]);
    expect(await authorizer.check(rule(['CAP_READ'], true, ''), op('list', { native: { seed: [{ uid: BUILTIN }] } }), caller)).toEqual([TEAM, '']);
  });

  it('lets any verified caller create an organisation and read a shared row, and nothing else unscoped without a scope', async () => {
    expect(await outcome(authorizer.check(rule(['CAP_CREATE'], true, ''), op('create'), caller))).toBe('allowed');
    expect(await outcome(authorizer.check(rule(['CAP_READ'], true, BUILTIN), op('get'), caller))).toBe('allowed');
    expect(await outcome(authorizer.check(rule(['CAP_READ'], true, BUILTIN), op('update'), caller))).toBe(7);
    expect(await outcome(authorizer.check(rule(['CAP_READ'], true, ''), op('custom'), caller))).toBe(7);
    expect(await outcome(authorizer.check(rule(['CAP_CREATE'], true, OTHER), op('create'), caller))).toBe(7);
  });
});
