/**
 * Tag (chainguard-dev/sdk: proto/platform/registry/v1/registry.platform.proto): a child of its Repo. `lastUpdated` → `updateTime`.
 * v2 has no Update: CreateTag "creates (or updates)", so a tag name is
 * unique in its repo and a create with a taken name replaces that tag (v1's
 * create does the same). Names and digests follow the OCI grammars. The list switches flip polarity (trap 4): v2
 * `includeReferrers/Dates/Epochs` default to false and hide those tags, v1
 * `exclude*` default to false and show them, so every v2 list sends all three
 * `exclude*` to v1, true unless the client asked to include.
 */
import { z } from 'zod';
import { defineResource } from '../src/contract/define.ts';
import { UID, UIDP_FILTERS, text } from './common.ts';

// The OCI distribution spec's tag and digest grammars.
/** The OCI distribution spec's tag grammar (overlay bindings select tags by it too). */
export const OCI_TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const OCI_DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

export default defineResource({
  name: 'tags',
  resourceType: 'registry.chainguard.dev/Tag',
  service: 'registry',
  operations: ['list', 'get', 'create', 'delete'],
  v1: { collection: 'tags', idParam: 'id', idsParam: 'uidp.ids' },
  fields: {
    uid: UID,
    updateTime: { v1: 'lastUpdated', kept: 'updateTime' },
  },
  filters: {
    ...UIDP_FILTERS,
    name: { field: 'name', op: 'eq', v1: 'name' },
    digest: { field: 'digest', op: 'eq', v1: 'digest' },
    updated_since: { field: 'updateTime', op: 'since', v1: 'updatedSince' },
    include_referrers: { op: 'flag', v1: 'excludeReferrers', v1Inverted: true },
    include_dates: { op: 'flag', v1: 'excludeDates', v1Inverted: true },
    include_epochs: { op: 'flag', v1: 'excludeEpochs', v1Inverted: true },
  },
  orderBy: { fields: ['uid', 'name', 'updateTime'], aliases: { updated_at: 'updateTime', last_updated: 'updateTime' }, default: 'uid asc' },
  create: { parent: 'required', parentKind: 'repos' },
  validate: z.object({
    name: text().regex(OCI_TAG, 'must be an OCI tag: up to 128 of [A-Za-z0-9_.-], not starting with . or -').optional(),
    digest: text().regex(OCI_DIGEST, 'must be an OCI digest such as sha256:<hex>').optional(),
    bundles: z.array(z.string()).optional(),
    deprecated: z.boolean().optional(),
  }),
  native: {
    uniqueWithinParent: { field: 'name', onCreate: 'replace' },
    // The tag name forms each switch shows (tags.proto): off, its default, hides them.
    flags: {
      include_referrers: { field: 'name', pattern: '^sha256-' },
      include_dates: { field: 'name', pattern: '-20[0-9]{6}$' },
      include_epochs: { field: 'name', pattern: '-r[0-9]+$' },
    },
  },
});
