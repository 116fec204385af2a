import { describe, it, expect } from 'vitest';
import { CAPABILITIES } from '../../mappings/capabilities.ts';
import { BUILTIN_ROLES } from '../../mappings/builtin-roles.ts';

function duplicates<T>(values: readonly T[]): T[] {
  const seen = new Set<T>();
  const dups: T[] = [];
  for (const v of values) {
    if (seen.has(v)) dups.push(v);
    seen.add(v);
  }
  return dups;
}

describe('CAPABILITIES table', () => {
  it('has the counts read from capabilities.proto', () => {
    expect(CAPABILITIES).toHaveLength(216);
    expect(CAPABILITIES.filter((c) => c.internalOnly)).toHaveLength(40);
    expect(CAPABILITIES.filter((c) => c.deprecated)).toHaveLength(21);
  });

  it('has unique v1 names, v2 names and numbers', () => {
    expect(duplicates(CAPABILITIES.map((c) => c.v1))).toEqual([]);
    expect(duplicates(CAPABILITIES.map((c) => c.v2))).toEqual([]);
    expect(duplicates(CAPABILITIES.map((c) => c.number))).toEqual([]);
  });

  it('leaves out the unnamed zero value', () => {
    expect(CAPABILITIES.some((c) => c.number === 0 || c.v2 === 'UNKNOWN')).toBe(false);
  });

  it('has well-formed names and positive integer numbers', () => {
    for (const c of CAPABILITIES) {
      expect(c.v2).toMatch(/^CAP_[A-Z0-9_]+$/);
      expect(c.v1).toMatch(/^[a-z0-9_]+(?:\.[a-z0-9_]+)*$/);
      expect(Number.isInteger(c.number) && c.number > 0).toBe(true);
    }
  });

  it.each([
    ['CAP_IAM_IDENTITY_CREATE', 'identity.create', 901],
    ['CAP_REPO_LIST', 'repo.list', 1605],
    ['CAP_IAM_SCIM_MANAGE', 'identity_providers.scim.manage', 1305],
    ['CAP_MANIFEST_METADATA_LIST', 'manifest.metadata.list', 1615],
    ['CAP_INTERNAL', 'internal', 2],
    ['CAP_IAM_GROUPS_LIST', 'groups.list', 103],
  ])('maps %s to %s (number %i)', (v2, v1, number) => {
    const row = CAPABILITIES.find((c) => c.v2 === v2);
    expect(row).toBeDefined();
    expect(row?.v1).toBe(v1);
    expect(row?.number).toBe(number);
  });

  it('flags internal-only and deprecated values as the proto does', () => {
    const byV2 = new Map(CAPABILITIES.map((c) => [c.v2, c]));
    expect(byV2.get('CAP_REPO_INTERNAL_ADMIN')?.internalOnly).toBe(true);
    expect(byV2.get('CAP_INTERNAL')?.internalOnly).toBe(false);
    expect(byV2.get('CAP_TENANT_CLUSTERS_LIST')?.deprecated).toBe(true);
    // Not deprecated although its neighbours in the tenant record family are.
    expect(byV2.get('CAP_TENANT_RECORD_SIGNATURES_LIST')?.deprecated).toBe(false);
  });
});

describe('BUILTIN_ROLES', () => {
  const known = new Set(CAPABILITIES.map((c) => c.v2));
  const byV2 = new Map(CAPABILITIES.map((c) => [c.v2, c]));
  const role = (name: string): ReadonlySet<string> => {
    const r = BUILTIN_ROLES.find((x) => x.name === name);
    if (!r) throw new Error(`no built-in role ${name}`);
    return new Set(r.capabilities);
  };

  it('defines viewer, editor and owner once each', () => {
    expect(BUILTIN_ROLES.map((r) => r.name).sort()).toEqual(['editor', 'owner', 'viewer']);
  });

  it('references only known capabilities, without repeats', () => {
    for (const r of BUILTIN_ROLES) {
      expect(r.capabilities.filter((c) => !known.has(c))).toEqual([]);
      expect(duplicates(r.capabilities)).toEqual([]);
      expect(r.description.length).toBeGreaterThan(0);
    }
  });

  it('grants no internal-only or deprecated capability', () => {
    for (const r of BUILTIN_ROLES) {
      expect(r.capabilities.filter((c) => byV2.get(c)?.internalOnly || byV2.get(c)?.deprecated)).toEqual([]);
    }
  });

  it('nests strictly: viewer ⊂ editor ⊂ owner', () => {
    const viewer = role('viewer');
    const editor = role('editor');
    const owner = role('owner');
    expect([...viewer].filter((c) => !editor.has(c))).toEqual([]);
    expect([...editor].filter((c) => !owner.has(c))).toEqual([]);
    expect(editor.size).toBeGreaterThan(viewer.size);
    expect(owner.size).toBeGreaterThan(editor.size);
  });

  it('matches the SDK set sizes and a few spot checks', () => {
    expect(role('viewer').size).toBe(51);
    expect(role('editor').size).toBe(62);
    expect(role('owner').size).toBe(138);
    expect(role('viewer').has('CAP_REPO_BLOBS_GET')).toBe(true);
    expect(role('viewer').has('CAP_REPO_CREATE')).toBe(false);
    expect(role('editor').has('CAP_REPO_CREATE')).toBe(true);
    expect(role('editor').has('CAP_IAM_ROLE_BINDINGS_CREATE')).toBe(false);
    expect(role('owner').has('CAP_IAM_ROLE_BINDINGS_CREATE')).toBe(true);
    expect(role('owner').has('CAP_INTERNAL')).toBe(false);
  });
});
