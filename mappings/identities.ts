/**
 * Identity (chainguard-dev/sdk: proto/platform/iam/v1/identity.platform.proto). Renames: `static` → `staticKeys` (and its
 * `expiration` → `expirationTime`), `lastSeen` → `lastSeenTime`, the
 * ServicePrincipal enum gains a prefix. The relationship is the contract's
 * oneof, of which v1 needs exactly one member set. v1 has no
 * `name` filter, so the gateway applies it. `email`, `emailUnverified` and
 * `company` do not exist in v1. Static keys expire at most 365 days ahead in
 * v2 and 30 in v1 (chainguard-dev/sdk: proto/platform/iam/v1/identity.platform.proto): each mode refuses past its own limit,
 * naming the field and the limit.
 */
import { z } from 'zod';
import { defineResource } from '../src/contract/define.ts';
import { ORDER_BY_NAME_AND_TIME, TIMESTAMPS, UID, UIDP_FILTERS, text } from './common.ts';
import { SERVICE_PRINCIPAL, v2Names } from './enums.ts';
import { IDENTITY_METADATA_KIND, updateIdentityMetadata } from './methods/identity-metadata.ts';

const claimMatch = z.object({
  issuer: z.string().optional(),
  issuerPattern: z.string().optional(),
  subject: z.string().optional(),
  subjectPattern: z.string().optional(),
  audience: z.string().optional(),
  audiencePattern: z.string().optional(),
  claims: z.record(z.string(), z.string()).optional(),
  claimPatterns: z.record(z.string(), z.string()).optional(),
});

const DAY_MS = 86_400_000;

/** A static key's expiration, at most `days` after now (`why` says whose limit it is). */
function expiresWithin(days: number, why: string) {
  return z.iso.datetime({ offset: true, error: 'must be an RFC 3339 timestamp' }).nullable().optional()
    .refine((time) => !time || Date.parse(time) <= Date.now() + days * DAY_MS, { message: `must be at most ${days} days after now (${why})` });
}

const staticKeys = z.object({
  issuer: text().optional(),
  subject: text().optional(),
  issuerKeys: text().optional(),
  expirationTime: expiresWithin(365, "v2's limit for static keys"),
  audiences: z.array(z.string()).optional(),
});

/** What v1 adds: its static keys live 30 days at most (and v1 would refuse them in words of its own). */
const V1_RULES = z.object({
  staticKeys: z.object({ expirationTime: expiresWithin(30, "v1's limit for static keys; v2 allows 365") }).nullable().optional(),
});

const awsIdentity = z.object({
  awsAccount: text().regex(/^\d{12}$/, 'must be a 12-digit AWS account id').optional(),
  arn: z.string().optional(),
  arnPattern: z.string().optional(),
  userId: z.string().optional(),
  userIdPattern: z.string().optional(),
});

export default defineResource({
  name: 'identities',
  resourceType: 'iam.chainguard.dev/Identity',
  service: 'iam',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  v1: { collection: 'identities', idParam: 'id', idsParam: 'uidp.ids', validate: V1_RULES },
  fields: {
    uid: UID,
    staticKeys: {
      v1: 'static',
      fields: {
        expirationTime: { v1: 'expiration' },
      },
    },
    servicePrincipal: { enum: SERVICE_PRINCIPAL },
    lastSeenTime: { v1: 'lastSeen' },
    email: { v1: null },
    emailUnverified: { v1: null },
    company: { v1: null },
    ...TIMESTAMPS,
  },
  filters: {
    ...UIDP_FILTERS,
    name: { field: 'name', op: 'eq' },
  },
  orderBy: ORDER_BY_NAME_AND_TIME,
  create: { parent: 'required', parentKind: 'groups' },
  methods: {
    // v2 `identities:lookupIdentity` answers `{uid}`, even for users not registered yet; v1 `identities/lookup` answers the Identity or NOT_FOUND.
    lookup: { rpc: 'LookupIdentity', params: { issuer: 'issuer', subject: 'subject' }, v1Path: 'identities/lookup' },
    custom: { UpdateIdentityMetadata: updateIdentityMetadata },
  },
  validate: z.object({
    name: text().min(3, 'must be 3 to 63 characters').max(63, 'must be 3 to 63 characters').optional(),
    description: z.string().optional(),
    claimMatch: claimMatch.optional(),
    staticKeys: staticKeys.optional(),
    awsIdentity: awsIdentity.optional(),
    servicePrincipal: z.enum(v2Names(SERVICE_PRINCIPAL)).optional(),
    company: z.string().optional(),
  }),
  // v1 takes an identity only with its relationship, and a claim match only with an issuer and a subject to match.
  requiredOneofs: ['relationship', 'claimMatch.iss', 'claimMatch.sub'],
  native: {
    // v1 sets lastSeen on create; v2 calls it "set on create".
    generated: { lastSeenTime: { kind: 'now' } },
    // The literal issuer and subject of a claim match or static keys, as v1's lookup matches them.
    lookup: {
      match: [
        { issuer: 'claimMatch.issuer', subject: 'claimMatch.subject' },
        { issuer: 'staticKeys.issuer', subject: 'staticKeys.subject' },
      ],
    },
    // The caller's own profile, kept by UpdateIdentityMetadata under the identity's uid.
    keeps: [IDENTITY_METADATA_KIND],
    // As in v1, an identity's role bindings go with it; so does its profile.
    delete: { cascade: [{ kind: 'roleBindings', field: 'identityUid' }, { kind: IDENTITY_METADATA_KIND, field: 'uid' }] },
  },
});
