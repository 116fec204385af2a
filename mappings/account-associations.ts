/**
 * AccountAssociation (chainguard-dev/sdk: proto/platform/iam/v1/account_associations.platform.proto). One per group, and its uid *is* the
 * group's UIDP: v1 keys it as `group` (v1's collection is `account_associations`
 * and its paths take `{group=**}`). v1 filters by `group` and `name` only, so
 * the gateway applies the `uidp.*` filters itself. v2's default order is
 * `group asc`, which is uid order. v1 has no timestamps here. The cloud blocks
 * have the same JSON on both sides; GitHub's int64 keys and ids are strings.
 * Service bindings are keyed by service principal, spelt as the enum is in
 * each version (`COSIGNED` in v1, `SERVICE_PRINCIPAL_COSIGNED` in v2, which
 * the v2 definitions leave undocumented): either spelling is taken, v1 is
 * sent its own, and answers (and the store) use v2's.
 */
import { z } from 'zod';
import { checkAccountAssociation } from './methods/account-associations.ts';
import { defineResource } from '../src/contract/define.ts';
import { KEPT_TIMESTAMPS, TIMESTAMP_ALIASES, text } from './common.ts';
import { SERVICE_PRINCIPAL } from './enums.ts';

/** A service-binding key: a service principal in either version's spelling, never the unspecified one. */
const PRINCIPAL_NAMES = new Set([...Object.entries(SERVICE_PRINCIPAL.v1ToV2)].filter(([, v2]) => v2 !== SERVICE_PRINCIPAL.zero).flat());
const principalKey = z.string().refine((key) => PRINCIPAL_NAMES.has(key), {
  message: `keys must be service principals (${[...PRINCIPAL_NAMES].filter((name) => name.startsWith('SERVICE_PRINCIPAL_')).join(', ')})`,
});

const strings = (...keys: string[]) => z.object(Object.fromEntries(keys.map((k) => [k, text().optional()])));

export default defineResource({
  name: 'accountAssociations',
  resourceType: 'iam.chainguard.dev/AccountAssociation',
  service: 'iam',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  v1: { collection: 'account_associations', idParam: 'group' },
  fields: {
    uid: { v1: 'group' },
    ...KEPT_TIMESTAMPS,
    chainguard: { fields: { serviceBindings: { keys: SERVICE_PRINCIPAL } } },
  },
  filters: {
    'uidp.descendants_of': { field: 'uid', op: 'descendantOf', uidp: true },
    'uidp.children_of': { field: 'uid', op: 'childOf', uidp: true },
    'uidp.ancestors_of': { field: 'uid', op: 'ancestorOf', uidp: true },
    'uidp.in_root': { field: 'uid', op: 'inRoot' },
    'uidp.ids': { field: 'uid', op: 'in', uidp: true },
    name: { field: 'name', op: 'eq', v1: 'name' },
  },
  orderBy: {
    fields: ['uid', 'name', 'createTime', 'updateTime'],
    aliases: { ...TIMESTAMP_ALIASES, group: 'uid' },
    default: 'uid asc',
  },
  create: { parent: 'required', parentKind: 'groups' },
  validate: z.object({
    // No length is stated for this name; 256 keeps the store's name index row within PostgreSQL's limit.
    name: text().max(256, 'must be at most 256 characters').optional(),
    description: z.string().optional(),
    amazon: strings('account').optional().nullable(),
    google: strings('projectId', 'projectNumber').optional().nullable(),
    chainguard: z.object({ serviceBindings: z.record(principalKey, z.string()).optional() }).optional().nullable(),
    azure: z.object({ tenantId: text().optional(), clientIds: z.record(z.string(), z.string()).optional() }).optional().nullable(),
    github: z.object({ appInstallations: z.record(z.string().regex(/^\d+$/, 'keys must be GitHub app ids'), z.unknown()).optional() }).optional().nullable(),
  }),
  delete: { idempotent: true },
  methods: {
    custom: { CheckAccountAssociation: checkAccountAssociation },
  },
  native: {
    // The uid is the group's own UIDP: one association per group.
    uid: 'parent',
  },
});
