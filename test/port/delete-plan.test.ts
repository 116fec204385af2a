import { describe, it, expect } from 'vitest';
import { MAPPINGS } from '../../mappings/index.ts';
import { MappingRegistry } from '../../src/port/registry.ts';
import { heldBy } from '../../src/port/delete-plan.ts';
import { IDENTITY_METADATA_KIND } from '../../mappings/methods/identity-metadata.ts';

const registry = new MappingRegistry(MAPPINGS);

describe('the delete plan, worked out once per mapping from the mappings', () => {
  it('names who holds each refusing child: v1 its own kinds, the store what v1 has no equivalent of', () => {
    const plan = registry.deletePlan('groups');
    expect(plan.refusingChildren.map(({ kind }) => kind)).toEqual(registry.get('groups').delete!.refuseWhileParentOf);
    expect(heldBy(plan.refusingChildren, 'store').map(({ kind }) => kind)).toEqual(['overlays']);
    expect(heldBy(plan.refusingChildren, 'v1').map(({ kind }) => kind)).toContain('repos');
  });

  it('sends a cascade to the system of record that holds the kind, a kind no mapping serves included', () => {
    const plan = registry.deletePlan('identities');
    expect(heldBy(plan.cascades, 'store')).toEqual([{ kind: IDENTITY_METADATA_KIND, field: 'uid', heldBy: 'store' }]);
    expect(heldBy(plan.cascades, 'v1')).toEqual([{ kind: 'roleBindings', field: 'identityUid', heldBy: 'v1' }]);
  });

  it('says once whether v1 keeps a kind', () => {
    expect(registry.keptByV1('groups')).toBe(true);
    expect(registry.keptByV1('overlayBindings')).toBe(false);
    expect(registry.keptByV1(IDENTITY_METADATA_KIND)).toBe(false);
    expect(() => registry.deletePlan('nothing')).toThrow(/no mapping named "nothing"/);
  });
});
