/**
 * Repo (chainguard-dev/sdk: proto/platform/registry/v1/registry.platform.proto). `createTime` already has its v2 name in v1;
 * `updateTime` does not exist in v1, so it is kept in the store, as other
 * resources' missing times are. `sync_config` keeps its snake_case JSON
 * name in both versions (trap 1) and renames `expiration` → `expirationTime`;
 * CatalogTier is renamed and renumbered (trap 2); overlay accounts rename
 * `userName` → `username` and group `groupName` → `groupname` (trap 10). v1's
 * `readme` moved to a sub-resource in v2, so it is not a field here; a PATCH
 * starts from v1's row, so the readme and the output-only sync settings v1's
 * PUT still carries are sent back unchanged (trap 7).
 *
 * Writes: v1's create overwrites a same-named repo unless told
 * `preventExisting`, which v2 has no use for: a name names one repo in its
 * group. On a synced repo the tier, bundles, aliases and active tags come
 * from the source (changing them is INVALID_ARGUMENT). Overlays may not set
 * `CHAINGUARD_` environment variables or the reserved annotation prefixes.
 */
import { z } from 'zod';
import { getArchitectures, getSize, IMAGE_MANIFESTS_KIND } from './methods/images.ts';
import { defineResource } from '../src/contract/define.ts';
import { TIMESTAMP_ALIASES, UID, UIDP_FILTERS, text } from './common.ts';
import { CATALOG_TIER, v2Names } from './enums.ts';

/** A map whose keys may not start with any of `prefixes` (reserved for the service). */
const mapWithout = (prefixes: readonly string[]) => z.record(z.string(), z.string()).superRefine((map, ctx) => {
  for (const key of Object.keys(map)) {
    const prefix = prefixes.find((p) => key.startsWith(p));
    if (prefix) ctx.addIssue({ code: 'custom', message: `key "${key}": the prefix "${prefix}" is reserved` });
  }
});

const named = (field: string) => z.object({ [field]: text().optional() });
const entry = z.object({ name: text().optional(), content: text().optional() });
/** Sync settings the service sets (chainguard-dev/sdk: proto/platform/registry/v1/registry.platform.proto); the rest of the overlay and sync config is the client's. */
const SYNCED = { lockedWhileSet: 'sync_config' } as const;

export default defineResource({
  name: 'repos',
  resourceType: 'registry.chainguard.dev/Repo',
  service: 'registry',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  v1: { collection: 'repos', idParam: 'id', idsParam: 'uidp.ids', createQuery: { preventExisting: 'true' } },
  fields: {
    uid: UID,
    catalogTier: { enum: CATALOG_TIER, ...SYNCED },
    bundles: SYNCED,
    aliases: SYNCED,
    activeTags: SYNCED,
    // v1 keeps none: the time of the gateway's last write, or when it first saw the repo (kept in the store, as the import carries it).
    updateTime: { v1: null, kept: 'updateTime' },
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
  create: { parent: 'required', parentKind: 'groups' },
  validate: z.object({
    // No length is stated for this name; 256 keeps the store's name index row within PostgreSQL's limit.
    name: text().max(256, 'must be at most 256 characters').optional(),
    description: z.string().optional(),
    catalogTier: z.enum(v2Names(CATALOG_TIER), { error: 'must be a CatalogTier name such as CATALOG_TIER_BASE' }).optional(),
    sync_config: z.object({ source: text().optional() }).nullable().optional(),
    customOverlay: z.object({
      contents: z.object({ runtimeKeyring: z.array(entry).optional() }).nullable().optional(),
      environment: mapWithout(['CHAINGUARD_']).optional(),
      annotations: mapWithout(['dev.chainguard.', 'org.opencontainers.']).optional(),
      accounts: z.object({ users: z.array(named('username')).optional(), groups: z.array(named('groupname')).optional() }).nullable().optional(),
      certificates: z.object({ additional: z.array(entry).optional() }).nullable().optional(),
    }).nullable().optional(),
  }),
  // A repo holding tags is not empty (the emulator's v1 refuses it too).
  delete: { refuseWhileParentOf: ['tags'] },
  methods: {
    custom: { GetArchitectures: getArchitectures, GetSize: getSize },
  },
  native: {
    uniqueWithinParent: { field: 'name', onCreate: 'refuse' },
    keeps: [IMAGE_MANIFESTS_KIND],
    // Its readme (a singleton at the repo's uid), the overlay bindings attached to it and what the import copied of
    // its images go with it.
    delete: {
      cascade: [{ kind: 'repoReadmes', field: 'uid' }, { kind: 'overlayBindings', field: 'repo' }, { kind: IMAGE_MANIFESTS_KIND, field: 'repoUid' }],
    },
  },
});
