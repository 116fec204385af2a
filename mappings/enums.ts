/**
 * Enum renames between v1 and v2beta1 (the v1 and v2beta1 enums: chainguard-dev/sdk: proto/platform/iam/v1/ and proto/chainguard/platform/iam/v2beta1/). Always by
 * name: CatalogTier is renumbered between the versions.
 */
import { enumRename, prefixedEnum } from '../src/vocabulary/resource.ts';
import { CAPABILITIES } from './capabilities.ts';

/** v1 friendly names ("groups.list") ↔ v2 enum names ("CAP_IAM_GROUPS_LIST"). */
export const CAPABILITY = enumRename(CAPABILITIES.map((c) => [c.v1, c.v2] as const), 'UNKNOWN');

/** v1 APPLICATION=4 … COMMERCIAL=9 ↔ v2 CATALOG_TIER_APPLICATION=1 … _COMMERCIAL=6. */
export const CATALOG_TIER = prefixedEnum(
  'CATALOG_TIER_',
  ['UNKNOWN', 'APPLICATION', 'BASE', 'FIPS', 'AI', 'DEVTOOLS', 'COMMERCIAL'],
  ['UNKNOWN', 'CATALOG_TIER_UNSPECIFIED'],
);

/** Same numbers, v2 names carry a prefix. */
export const SERVICE_PRINCIPAL = prefixedEnum(
  'SERVICE_PRINCIPAL_',
  ['UNKNOWN', 'COSIGNED', 'INGESTER', 'CATALOG_SYNCER', 'APKO_BUILDER', 'ENTITLEMENT_SYNCER', 'TENANT_SCANNER',
    'SEDIMENTOLOGY', 'SKILLUP', 'MATERIALIZER', 'MICROFLOW', 'GUARDENER', 'MICROVM', 'SKILLS'],
  ['UNKNOWN', 'SERVICE_PRINCIPAL_UNSPECIFIED'],
);

const unchanged = (names: readonly string[]) => enumRename(names.map((n) => [n, n] as const), names[0]!);

export const ORG_KIND = unchanged(['ORG_KIND_UNSPECIFIED', 'ORG_KIND_STARTER', 'ORG_KIND_CUSTOMER', 'ORG_KIND_DEV', 'ORG_KIND_INFRA', 'ORG_KIND_AWS_MARKETPLACE']);
export const ORG_STATUS = unchanged(['ORG_STATUS_UNSPECIFIED', 'ORG_STATUS_INITIALIZING', 'ORG_STATUS_READY', 'ORG_STATUS_SUSPENDED']);

/** The v2 names a request may use, for validation. */
export function v2Names(rename: { v2ToV1: Readonly<Record<string, string>> }): [string, ...string[]] {
  return Object.keys(rename.v2ToV1) as [string, ...string[]];
}

/** CheckAccountAssociation's provider: v1 `AccountType` names behind a prefix (same numbers). */
export const ACCOUNT_PROVIDER_TYPE = prefixedEnum('ACCOUNT_PROVIDER_TYPE_', ['UNKNOWN', 'GOOGLE', 'AMAZON', 'AZURE'], ['UNKNOWN', 'ACCOUNT_PROVIDER_TYPE_UNSPECIFIED']);

/** CheckAccountAssociation's answer: v1's State names are mixed-case (`Ready`, `NotReady`). */
export const CHECK_STATUS = enumRename(
  [['UNKNOWN', 'CHECK_STATUS_UNSPECIFIED'], ['Ready', 'CHECK_STATUS_READY'], ['NotReady', 'CHECK_STATUS_NOT_READY']],
  'CHECK_STATUS_UNSPECIFIED',
);
