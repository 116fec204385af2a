/**
 * Tag (api-surface.md §9): a child of its Repo. `lastUpdated` → `updateTime`.
 * List/Get only in v2. The list switches flip polarity (trap 4): v2
 * `includeReferrers/Dates/Epochs` default to false and hide those tags, v1
 * `exclude*` default to false and show them, so every v2 list sends all three
 * `exclude*` to v1, true unless the client asked to include.
 */
import { defineResource } from '../src/engine/mapping.ts';
import { UID, UIDP_FILTERS } from './common.ts';

export default defineResource({
  name: 'tags',
  resourceType: 'registry.chainguard.dev/Tag',
  service: 'registry',
  collection: 'tags',
  operations: ['list', 'get'],
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
  native: {
    // The tag name forms each switch shows (tags.proto): off, its default, hides them.
    flags: {
      include_referrers: { field: 'name', pattern: '^sha256-' },
      include_dates: { field: 'name', pattern: '-20[0-9]{6}$' },
      include_epochs: { field: 'name', pattern: '-r[0-9]+$' },
    },
  },
});
