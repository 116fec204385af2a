/**
 * What a write grants, as the mappings declare it (`grants`), and the rule
 * that it stays inside its organisation (vocabulary/role-grants.ts): every
 * field that must name a role is declared as granting it (a new one cannot be
 * forgotten), declarations name real fields, and the rule's cases, decided
 * from uids alone.
 */
import { describe, expect, it } from 'vitest';
import { MAPPINGS } from '../../mappings/index.ts';
import { CAPABILITIES } from '../../mappings/capabilities.ts';
import { internalOnlyCapabilities } from '../../src/contract/registry.ts';
import { ApiError } from '../../src/aip/errors.ts';
import { changesGrant, identityWithin, requireGrantWithin, roleWithin } from '../../src/vocabulary/role-grants.ts';
import type { GrantSpec } from '../../src/vocabulary/resource.ts';

const ORG = 'a'.repeat(40);
const OTHER = 'b'.repeat(40);
const TEAM = `${ORG}/1111111111111111`;
const SIBLING = `${ORG}/2222222222222222`;

describe('the mappings declare what their writes grant', () => {
  it('declares every field that must name a role as granting it, with the role fields the mapping has', () => {
    for (const mapping of MAPPINGS) {
      const roleFields = Object.entries(mapping.native?.requires ?? {}).filter(([, kind]) => kind === 'roles').map(([field]) => field);
      expect(roleFields.map((field) => `${mapping.name}.${field}`)).toEqual(roleFields.map(() => `${mapping.name}.${mapping.grants?.role}`));
      for (const field of [mapping.grants?.role, mapping.grants?.identity, mapping.grants?.capabilities]) {
        if (field) expect(mapping.fields[field], `${mapping.name}.${field}`).toBeDefined();
      }
    }
    expect(MAPPINGS.filter((m) => m.grants).map((m) => m.name).sort())
      .toEqual(['externalGroupRoleMappings', 'groupInvites', 'identityProviders', 'roleBindings', 'roles']);
  });

  it('reads a group from a field only where the resource has no update (an update need not carry it)', () => {
    for (const mapping of MAPPINGS.filter((m) => m.grants && m.grants.at !== '@parent')) {
      expect(mapping.operations, mapping.name).not.toContain('update');
      expect(mapping.fields[mapping.grants!.at], mapping.name).toBeDefined();
    }
  });

  it("reads internal_only from the contract, which agrees with the capability table's", () => {
    expect([...internalOnlyCapabilities()].sort()).toEqual(CAPABILITIES.filter((c) => c.internalOnly).map((c) => c.v2).sort());
  });
});

describe('references stay inside their organisation', () => {
  it('takes a built-in role (a flat uid) anywhere, and a custom one at the group or above it only', () => {
    expect(roleWithin('f'.repeat(40), TEAM)).toBe(true);
    expect(roleWithin(`${ORG}/0123456789abcdef`, TEAM)).toBe(true);
    expect(roleWithin(`${TEAM}/0123456789abcdef`, TEAM)).toBe(true);
    expect(roleWithin(`${SIBLING}/0123456789abcdef`, TEAM)).toBe(false);
    expect(roleWithin(`${TEAM}/0123456789abcdef`, ORG)).toBe(false);
    expect(roleWithin(`${OTHER}/0123456789abcdef`, TEAM)).toBe(false);
    // A prefix of characters is not an ancestor.
    expect(roleWithin(`${ORG}/11111111/0123456789abcdef`, TEAM)).toBe(false);
  });

  it("takes a user (a root-level identity) or an identity of the group's organisation", () => {
    expect(identityWithin('f'.repeat(40), TEAM)).toBe(true);
    expect(identityWithin(`${SIBLING}/0123456789abcdef`, TEAM)).toBe(true);
    expect(identityWithin(`${OTHER}/0123456789abcdef`, TEAM)).toBe(false);
    expect(identityWithin(`${OTHER}/0123456789abcdef`, '')).toBe(false);
  });

  const binding: GrantSpec = { role: 'roleUid', identity: 'identityUid', at: '@parent' };
  const scoped: GrantSpec = { role: 'roleUid', at: 'scope' };
  const refusal = (run: () => void) => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      return (error as ApiError).details[0]!.fieldViolations;
    }
    return undefined;
  };

  it('refuses on each field reaching out, under a batch prefix, saying nothing of what it names', () => {
    const foreign = { identityUid: `${OTHER}/0123456789abcdef`, roleUid: `${OTHER}/fedcba9876543210` };
    const violations = refusal(() => requireGrantWithin(binding, foreign, TEAM, undefined, 'requests[1].roleBinding.')) as { field: string; description: string }[];
    expect(violations.map((v) => v.field)).toEqual(['requests[1].roleBinding.roleUid', 'requests[1].roleBinding.identityUid']);
    expect(JSON.stringify(violations)).not.toContain(OTHER);
    expect(refusal(() => requireGrantWithin(binding, { identityUid: `${ORG}/0123456789abcdef`, roleUid: `${ORG}/fedcba9876543210` }, TEAM))).toBeUndefined();
  });

  it("checks an update's covered fields only, and a field group against the resource's organisation", () => {
    const foreignRole = { roleUid: `${OTHER}/fedcba9876543210` };
    expect(refusal(() => requireGrantWithin(binding, foreignRole, TEAM, ['identityUid']))).toBeUndefined();
    expect(refusal(() => requireGrantWithin(binding, foreignRole, TEAM, ['roleUid']))).toHaveLength(1);
    expect(changesGrant(binding, ['identityUid'])).toBe(true);
    expect(changesGrant({ role: 'defaultRole', at: '@parent' }, ['name', 'oidc.clientId'])).toBe(false);
    const outside = refusal(() => requireGrantWithin(scoped, { roleUid: `${OTHER}/fedcba9876543210`, scope: OTHER }, `${ORG}/3333333333333333`)) as { field: string }[];
    expect(outside.map((v) => v.field)).toEqual(['scope', 'roleUid']);
  });
});
