/**
 * OverlayBinding (registry v2beta1): one overlay attached to one repo under
 * exact tag names; its uid is a UIDP under the repo. v1 has no such
 * collection, so the store keeps it in both modes (in translate mode, bound
 * to a repo v1 keeps). Create takes a reference and a
 * selector rather than a resource (`body: "*"`: parent repo, overlay uid or
 * name, tags), so it is a custom method (methods/overlay-bindings.ts); reads
 * show the overlay expanded as it is now. No update: delete and create again.
 */
import { defineResource } from '../src/contract/define.ts';
import { UIDP_FILTERS } from './common.ts';
import { createOverlayBinding } from './methods/overlay-bindings.ts';
import { NO_OVERLAYS_IN_V1 } from './overlays.ts';

export default defineResource({
  name: 'overlayBindings',
  resourceType: 'registry.chainguard.dev/OverlayBinding',
  service: 'registry',
  operations: ['list', 'get', 'delete'],
  keptInStore: NO_OVERLAYS_IN_V1,
  // Never called (the store keeps overlay bindings); names the resource for the write lock.
  v1: { collection: 'overlayBindings', idParam: 'id' },
  fields: {},
  filters: {
    ...UIDP_FILTERS,
    overlay: { field: 'overlay.uid', op: 'eq', uidp: true },
  },
  orderBy: { fields: ['uid'], default: 'uid asc' },
  methods: { custom: { CreateOverlayBinding: createOverlayBinding } },
  // The stored document keeps only the overlay's uid; its name and config are read when shown.
  references: { overlay: { kind: 'overlays', by: 'overlay.uid', pick: { uid: 'uid', name: 'name', config: 'config' } } },
});
