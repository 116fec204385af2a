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
    name: {},
    description: {},
    catalogTier: { type: 'enum', enum: CATALOG_TIER },
    bundles: { repeated: true },
    aliases: { repeated: true },
    activeTags: { repeated: true },
    createTime: { type: 'timestamp', outputOnly: true },
    updateTime: { v1: null, type: 'timestamp', outputOnly: true },
    sync_config: {
      fields: {
        source: {},
        uniqueTags: { type: 'bool', outputOnly: true },
        expirationTime: { v1: 'expiration', type: 'timestamp', outputOnly: true },
        google: {},
        amazon: {},
        azure: {},
        apkoOverlay: { outputOnly: true },
        gracePeriod: { type: 'bool', outputOnly: true },
      },
    },
    customOverlay: {
      fields: {
        contents: { type: 'json' },
        environment: { type: 'map' },
        annotations: { type: 'map' },
        accounts: {
          fields: {
            runAs: {},
            users: {
              repeated: true,
              fields: {
                username: { v1: 'userName' },
                uid: { type: 'int' },
                gid: { type: 'int' },
                groupName: {},
                shell: {},
                homeDir: {},
              },
            },
            groups: {
              repeated: true,
              fields: {
                groupname: { v1: 'groupName' },
                gid: { type: 'int' },
                members: { repeated: true },
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
