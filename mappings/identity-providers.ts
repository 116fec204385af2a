/**
 * IdentityProvider (chainguard-dev/sdk: proto/platform/iam/v1/identity_providers.platform.proto). Only OIDC exists, as the oneof
 * `configuration`. `oidc.clientSecret` is never shown in v2, and on update an
 * empty secret keeps the stored one unless the mask names `oidc.client_secret`;
 * `oidc.correlationRule` is immutable. `scim` is output-only on both sides and
 * ignored on write. v1 has no timestamps for IdPs, and `defaultRole` is
 * required only in v2.
 */
import { z } from 'zod';
import { enumRename } from '../src/vocabulary/resource.ts';
import { defineResource } from '../src/contract/define.ts';
import { KEPT_TIMESTAMPS, ORDER_BY_NAME_AND_TIME, UID, UIDP_FILTERS, UIDP_TEXT, text } from './common.ts';
import { v2Names } from './enums.ts';
import { generateScimToken, regenerateScimToken, revokeScimToken, SCIM_KIND, scimBlock, setScimEnabled } from './methods/scim.ts';

const same = (names: readonly string[]) => enumRename(names.map((n) => [n, n] as const), names[0]!);

const CORRELATION_RULE = same([
  'CORRELATION_RULE_UNSPECIFIED', 'CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID', 'CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID',
]);
const CREDENTIAL_STATE = same([
  'CREDENTIAL_STATE_UNSPECIFIED', 'CREDENTIAL_STATE_NOT_ISSUED', 'CREDENTIAL_STATE_LIVE',
  'CREDENTIAL_STATE_EXPIRED', 'CREDENTIAL_STATE_REVOKED', 'CREDENTIAL_STATE_ROTATING',
]);

export default defineResource({
  name: 'identityProviders',
  resourceType: 'iam.chainguard.dev/IdentityProvider',
  service: 'iam',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  v1: { collection: 'identityProviders', idParam: 'id', idsParam: 'uidp.ids' },
  fields: {
    uid: UID,
    ...KEPT_TIMESTAMPS,
    oidc: {
      fields: {
        clientSecret: { secret: true },
        correlationRule: { enum: CORRELATION_RULE },
      },
    },
    scim: {
      fields: {
        // Populated on Get, omitted from List (the contract's comments).
        tokenExpireTime: { listOmits: true },
        credentialState: { enum: CREDENTIAL_STATE, listOmits: true },
      },
    },
  },
  expectedDifferences: {
    'scim.endpointUrl': 'only native mode serves SCIM: v1 has no SCIM endpoint to name',
    'scim.credentialState': 'only native mode keeps SCIM credentials: v1 has no credential state to show',
  },
  filters: {
    ...UIDP_FILTERS,
    name: { field: 'name', op: 'eq', v1: 'name' },
  },
  orderBy: ORDER_BY_NAME_AND_TIME,
  create: { parent: 'required', parentKind: 'groups' },
  validate: z.object({
    name: text().min(3, 'must be 3 to 63 characters').max(63, 'must be 3 to 63 characters').optional(),
    description: z.string().optional(),
    defaultRole: text().pipe(UIDP_TEXT).optional(),
    oidc: z.object({
      issuer: text().url('must be a URL').optional(),
      clientId: text().optional(),
      clientSecret: z.string().optional(),
      additionalScopes: z.array(z.string()).optional(),
      groupsClaim: z.string().optional(),
      correlationRule: z.enum(v2Names(CORRELATION_RULE)).optional(),
      pkceEnabled: z.boolean().optional(),
    }, { error: (issue) => (issue.input === undefined || issue.input === null ? 'is required: oidc is the only configuration' : 'must be an object') }),
  }),
  delete: { idempotent: false },
  methods: {
    custom: {
      GenerateScimToken: generateScimToken, RegenerateScimToken: regenerateScimToken,
      RevokeScimToken: revokeScimToken, SetScimEnabled: setScimEnabled,
    },
  },
  // Who signs in through it is granted its default role at its group.
  grants: { role: 'defaultRole', at: '@parent' },
  native: {
    // The SCIM credential (methods/scim.ts) kept at the provider's uid; `scim` is derived from it on each read, without its digests.
    keeps: [SCIM_KIND],
    derived: { scim: { kind: SCIM_KIND, render: scimBlock } },
    // The default role is a role-binding promise, so it must name a role.
    requires: { defaultRole: 'roles' },
    // Its external group role mappings (children of it) go with it.
    delete: { cascade: [{ kind: 'externalGroupRoleMappings', field: 'parent' }, { kind: SCIM_KIND, field: 'uid' }] },
  },
});
