/**
 * Overlay (registry v2beta1): a named, reusable package fragment of a group,
 * bound to repos by OverlayBindings. v1 has no such collection, so the store
 * keeps it in both modes (in translate mode beside v1's groups). This milestone an overlay's config may carry
 * `contents.packages` only (at least one package); any other populated config
 * field is INVALID_ARGUMENT. There is no update: delete and create again.
 * A name is unique among its group's overlays, and an overlay still bound to a
 * repo cannot be deleted (FAILED_PRECONDITION).
 */
import { z } from 'zod';
import { defineResource } from '../src/contract/define.ts';
import { UIDP_FILTERS, text } from './common.ts';

export const NO_OVERLAYS_IN_V1 = 'v1 has no overlays';

// Strict objects: any other populated config field is refused, as the service refuses it this milestone.
const packagesOnly = z.strictObject({
  contents: z.strictObject({
    packages: z.array(z.string().min(1, 'must not be empty')).min(1, 'needs at least one package'),
  }, { error: (issue) => (issue.code === 'unrecognized_keys' ? 'only contents.packages may be set' : 'is required: contents.packages') }),
}, { error: (issue) => (issue.code === 'unrecognized_keys' ? 'only contents.packages may be set' : 'must be an object') });

export default defineResource({
  name: 'overlays',
  resourceType: 'registry.chainguard.dev/Overlay',
  service: 'registry',
  operations: ['list', 'get', 'create', 'delete'],
  keptInStore: NO_OVERLAYS_IN_V1,
  // Never called (the store keeps overlays); names the resource for the write lock.
  v1: { collection: 'overlays', idParam: 'id' },
  fields: {},
  filters: {
    ...UIDP_FILTERS,
    name: { field: 'name', op: 'eq' },
  },
  orderBy: { fields: ['uid', 'name'], default: 'uid asc' },
  create: { parent: 'required', parentKind: 'groups' },
  validate: z.object({
    name: text().max(256, 'must be at most 256 characters').optional(),
    config: packagesOnly.nullish(),
  }),
  native: {
    uniqueWithinParent: { field: 'name', onCreate: 'refuse' },
    delete: { refuseWhileReferencedBy: [{ kind: 'overlayBindings', field: 'overlay.uid' }] },
  },
});
