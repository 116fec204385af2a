/** The batch-create request: parent, sub-requests in order, the inherited field, limits. */
import { describe, expect, it } from 'vitest';
import { singularName, parseBatch } from '../../src/operation/batch-request.ts';
import { defineResource } from '../../src/contract/define.ts';
import { invalidOn } from '../support/invalid-argument.ts';

const ORG = 'a'.repeat(40);
const mapping = defineResource({
  name: 'roleBindings',
  resourceType: 'iam.chainguard.dev/RoleBinding',
  service: 'iam',
  operations: ['create'],
  v1: { collection: 'rolebindings', idParam: 'id' },
  fields: { uid: { outputOnly: true }, identityUid: {}, roleUid: {} },
  filters: {},
  orderBy: { fields: ['uid'] },
  methods: { batchCreate: { rpc: 'BatchCreateRoleBindings', max: 3, inherit: 'roleUid', v1Collection: 'rolebindings/batch' } },
});

describe('parseBatch', () => {
  it('names the sub-request key after the resource type', () => {
    expect(singularName(mapping)).toBe('roleBinding');
  });

  it('reads the parent and one create body per request, in order, inheriting the top-level field', () => {
    const batch = parseBatch(mapping, '', {
      parent: ORG,
      roleUid: 'R',
      requests: [{ roleBinding: { identityUid: 'i1' } }, { parent: ORG, role_binding: { identityUid: 'i2', roleUid: 'R' } }],
    });
    expect(batch.parent).toBe(ORG);
    expect(batch.items).toEqual([{ identityUid: 'i1', roleUid: 'R' }, { identityUid: 'i2', roleUid: 'R' }]);
  });

  it('refuses a sub-request whose inherited field differs from the top level', () => {
    invalidOn('requests[1].roleBinding.roleUid', () => parseBatch(mapping, '', {
      parent: ORG, roleUid: 'R', requests: [{ roleBinding: {} }, { roleBinding: { roleUid: 'S' } }],
    }));
  });

  it('refuses a sub-request under another parent', () => {
    invalidOn('requests[0].parent', () => parseBatch(mapping, '', { parent: ORG, requests: [{ parent: 'b'.repeat(40), roleBinding: {} }] }));
  });

  it('refuses no requests, too many, and a request without the resource', () => {
    invalidOn('requests', () => parseBatch(mapping, '', { parent: ORG, requests: [] }));
    invalidOn('requests', () => parseBatch(mapping, '', { parent: ORG, requests: Array.from({ length: 4 }, () => ({ roleBinding: {} })) }));
    invalidOn('requests[0].roleBinding', () => parseBatch(mapping, '', { parent: ORG, requests: [{}] }));
  });

  it('takes the parent from the path when the body has none, and refuses two different ones', () => {
    expect(parseBatch(mapping, ORG, { requests: [{ roleBinding: {} }] }).parent).toBe(ORG);
    invalidOn('parent', () => parseBatch(mapping, ORG, { parent: 'b'.repeat(40), requests: [{ roleBinding: {} }] }));
  });
});
