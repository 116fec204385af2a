/**
 * Repo (api-surface.md §8). `createTime` already has its v2 name in v1;
 * `updateTime` does not exist in v1. `sync_config` keeps its snake_case JSON
 * name in both versions (trap 1) and renames `expiration` → `expirationTime`;
 * CatalogTier is renamed and renumbered (trap 2); overlay accounts rename
 * `userName` → `username` and group `groupName` → `groupname` (trap 10). v1's
 * `readme` moved to a sub-resource in v2, so it is not a field here.
 */
import { defineResource } from '../src/engine/mapping.ts';
import { TIMESTAMP_ALIASES, UID, UIDP_FILTERS } from './common.ts';
import { CATALOG_TIER } from './enums.ts';

export default defineResource({
  name: 'repos',
  resourceType: 'registry.chainguard.dev/Repo',
  service: 'registry',
  collection: 'repos',
  operations: ['list', 'get'],
  v1: { collection: 'repos', idParam: 'id', idsParam: 'uidp.ids' },
  fields: {
    uid: UID,
    catalogTier: { enum: CATALOG_TIER },
    updateTime: { v1: null },
    sync_config: {
      fields: {
        expirationTime: { v1: 'expiration' },
      },
    },
    customOverlay: {
      fields: {
        contents: { type: 'json' },
        accounts: {
          fields: {
            users: {
              fields: {
                username: { v1: 'userName' },
              },
            },
            groups: {
              fields: {
                groupname: { v1: 'groupName' },
              },
            },
          },
        },
        certificates: { type: 'json' },
      },
    },
  },
  filters: {
    ...UIDP_FILTERS,
    name: { field: 'name', op: 'eq', v1: 'name' },
  },
  orderBy: { fields: ['uid', 'name', 'createTime'], aliases: TIMESTAMP_ALIASES, default: 'uid asc' },
});
