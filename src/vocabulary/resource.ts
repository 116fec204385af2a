/**
 * The vocabulary of `mappings/`: how one resource differs between v1 and v2.
 * A mapping is data. The engine reads it and never names a resource itself,
 * so adding a resource means adding a mapping file (and emulator support).
 * Types and pure helpers only: every layer reads this file, so it imports
 * nothing above it.
 */
import type { ZodType } from 'zod';
import type { Orderable } from '../aip/order-by.ts';
import type { NativeSpec } from './native.ts';
import type { CustomMethod } from './custom-method.ts';

export type Service = 'iam' | 'registry' | 'vulnerabilities' | 'events';

export type FieldType = 'string' | 'bool' | 'int' | 'int64' | 'timestamp' | 'enum' | 'message' | 'map' | 'json';

/** A bijective rename of enum value names; never by number (CatalogTier is renumbered between versions). */
export interface EnumRename {
  readonly v1ToV2: Readonly<Record<string, string>>;
  readonly v2ToV1: Readonly<Record<string, string>>;
  /** The v2 zero value, rendered for unknown or absent v1 values. */
  readonly zero: string;
}

export interface FieldSpec {
  /**
   * Where v1 rows keep the value: a key or dotted path relative to the
   * enclosing v1 object; `.` means "the enclosing object itself" (a v2
   * sub-message built from flat v1 fields). Default: the v2 key. `null`: v1
   * has no such field, so v2 shows the zero value.
   */
  readonly v1?: string | null;
  /** Where writes put the value in the v1 body, when that differs from where rows carry it. */
  readonly v1Write?: string;
  /** Default: `message` when `fields` is given, otherwise `string`. */
  readonly type?: FieldType;
  readonly repeated?: boolean;
  readonly enum?: EnumRename;
  /**
   * A map keyed by an enum's value names: its keys renamed as `enum` renames
   * values. A key in the other version's spelling is taken too (v1's where v2's
   * is expected); a key neither version names passes as it is.
   */
  readonly keys?: EnumRename;
  readonly fields?: Readonly<Record<string, FieldSpec>>;
  /** Set by the service; ignored in requests. */
  readonly outputOnly?: boolean;
  /** Taken in requests, never shown in responses (a TTL that becomes an expiry). */
  readonly inputOnly?: boolean;
  /**
   * Never shown in responses. On update an empty value keeps the stored one,
   * unless the mask names this very path (then it clears): a secret cannot be
   * read back to be restated.
   */
  readonly secret?: boolean;
  /**
   * REQUIRED in the contract: a create must set it (a message's required
   * fields, where the message is set), an update naming it may not clear it.
   * Checked by the render stage (render/validate.ts), never restated in a
   * mapping's rules.
   */
  readonly required?: boolean;
  /** Fixed at create: an update may restate it (a no-op) but not change it. */
  readonly immutable?: boolean;
  /**
   * Not the client's to change while the resource's field at this top-level
   * path is set (a synced repo inherits it from its source): an update may
   * restate it (a no-op) or leave it out, but a change is INVALID_ARGUMENT.
   */
  readonly lockedWhileSet?: string;
  /**
   * A time v1 does not supply (or not always): when the v1 row lacks it, the
   * gateway's own record of when it created, changed or first saw the resource.
   */
  readonly kept?: 'createTime' | 'updateTime';
  /** Member of a oneof: protojson emits it only when set. */
  readonly oneof?: string;
  /** proto3 `optional`: absent from output when unset. */
  readonly optional?: boolean;
  /** Left out of List answers (shown at its zero value), as the contract says of it; Get shows it. */
  readonly listOmits?: boolean;
}

/**
 * Where a reference's target uid is found, relative to the resource: a field
 * path of its v2 document (`identityUid`), or one of its positions in the
 * hierarchy: `@parent` (the UIDP's parent) or `@root` (the UIDP's first
 * segment, which for a root is the resource itself).
 */
export type ReferenceSource = string;

export interface Reference {
  /** The mapping name of the referenced kind, e.g. `identities` (or a kind a mapping `keeps`). */
  readonly kind: string;
  readonly by: ReferenceSource;
  /**
   * What the field holds: one path of the referenced document (the field is
   * that value), or sub-field → path (the field is a message built from
   * them). Missing referenced rows render the field's zero value.
   */
  readonly pick: string | Readonly<Record<string, string>>;
}

/** Which fields of a resource grant capabilities, where, and to whom (`ResourceMapping.grants`). */
export interface GrantSpec {
  /** The field holding the uid of the role it grants. */
  readonly role?: string;
  /** The field listing the capability enum names it grants itself (a custom role). */
  readonly capabilities?: string;
  /**
   * The group it is granted at: `@parent`, the group the resource sits in (a
   * create's parent, an updated resource's parent), or the field holding that
   * group's uid (read from the write's own value: such a resource has no update).
   */
  readonly at: '@parent' | (string & {});
  /** The field holding the uid of the identity it is granted to, where the resource names one. */
  readonly identity?: string;
}

export type FilterOp =
  | 'eq' | 'in' | 'descendantOf' | 'childOf' | 'ancestorOf' | 'inRoot'
  /** A timestamp bound: the field is at or after the given RFC 3339 time. */
  | 'since'
  /** Case-insensitive substring of any of `anyOf` (or `field`), strings or lists of strings. */
  | 'contains'
  /** A boolean switch v1 applies (the gateway cannot tell which rows it selects). */
  | 'flag';

export interface FilterSpec {
  /**
   * The v2 field path the filter tests on rendered rows. Absent when only v1
   * can apply the filter (it reads data v2 does not show).
   */
  readonly field?: string;
  /** For `contains`: every path whose text may match. */
  readonly anyOf?: readonly string[];
  readonly op: FilterOp;
  /** The v1 query key that applies the same filter server-side; absent when v1 has none. */
  readonly v1?: string;
  /** Values must be UIDPs. */
  readonly uidp?: boolean;
  /** Values are names of this v2 enum, sent to v1 under their v1 names. */
  readonly enum?: EnumRename;
  /** For `flag`: v1's switch means the opposite (v2 `includeX` is v1 `excludeX`), and is always sent. */
  readonly v1Inverted?: boolean;
}

export interface ResourceMapping {
  /** Plural lowerCamel name: the list envelope key and the name other mappings use to refer to it. */
  readonly name: string;
  /** AIP resource type, for ResourceInfo in NOT_FOUND errors. */
  readonly resourceType: string;
  readonly service: Service;
  readonly operations: readonly ('list' | 'get' | 'create' | 'update' | 'delete')[];
  /**
   * Where the resource lives when it is not v1's: v1 has no equivalent of it
   * (this says why), so the store keeps it in both modes, and translate mode
   * serves it from there beside v1's resources (operation/two-systems.ts).
   */
  readonly keptInStore?: string;
  readonly v1: {
    /** The v1 collection segment: `/iam/v1/<collection>`. */
    readonly collection: string;
    /** The list filter that selects one row (v1 has no Get). */
    readonly idParam: string;
    /** The list filter that selects many rows by id, used to hydrate references in one call. */
    readonly idsParam?: string;
    /** The PUT body as a projection of the list row (v1 key ← row path); default: the row itself. */
    readonly writeShape?: Readonly<Record<string, string>>;
    /** Query parameters every v1 create carries (`preventExisting=true`, so a same-named create fails rather than overwrites). */
    readonly createQuery?: Readonly<Record<string, string>>;
    /** Create and update answer in a shape other than the list row's, so read the row back. */
    readonly rereadAfterWrite?: boolean;
    /** v1 keys only the create answer carries (a one-time code), kept over the row read back. */
    readonly createAnswerOnly?: readonly string[];
    /**
     * Rules v1 holds writes to beyond v2's (a shorter limit), checked before
     * the write reaches v1 so the refusal names the v2 field and says the
     * limit, whatever v1's own message says.
     */
    readonly validate?: ZodType;
    /**
     * v1 pages this list itself (advisories): the gateway walks v1's pages
     * instead of fetching everything. `orderBy` maps each v2 order (one field
     * and a direction, `uid asc`) to v1's order enum value.
     */
    readonly paging?: {
      readonly pageSize: string;
      readonly pageToken: string;
      readonly orderParam: string;
      readonly orderBy: Readonly<Record<string, string>>;
    };
  };
  readonly fields: Readonly<Record<string, FieldSpec>>;
  /**
   * Fields (v2 paths) that translate and native mode answer differently by
   * design, whatever the data, each with the reason: the comparison and
   * `import --verify` count them apart from the verdict (compare/expected.ts).
   */
  readonly expectedDifferences?: Readonly<Record<string, string>>;
  readonly filters: Readonly<Record<string, FilterSpec>>;
  readonly orderBy: Orderable;
  readonly create?: {
    /** `optional`: an empty parent creates a root (organisations). */
    readonly parent: 'required' | 'optional';
    /** The resource a parent uid names (v2's `parent` is always a group here, a repo for tags). */
    readonly parentKind: string;
    /**
     * Fields that must name the new resource's organisation (the root of its
     * parent), else INVALID_ARGUMENT on the field: a scope that may today only
     * be the whole organisation.
     */
    readonly organisationScoped?: readonly string[];
  };
  /**
   * Oneofs of which a write must set exactly one member, by the contract's
   * oneof name (`relationship`), dotted inside a message (`claimMatch.iss`,
   * checked where the message is set). The members are the contract's.
   */
  readonly requiredOneofs?: readonly string[];
  /** Rules for writable fields, checked on create and on the masked paths of an update. */
  readonly validate?: ZodType;
  /** Custom methods beyond the standard five, by their RPC in the contract. */
  readonly methods?: {
    /**
     * Body `{parent, requests: [{parent?, <singular>: {…}}], <inherit>?}`:
     * several creates under one parent, all or none (AIP-233).
     */
    readonly batchCreate?: {
      /** The RPC in the contract (its route comes from there). */
      readonly rpc: string;
      /** Most sub-requests one call may carry. */
      readonly max: number;
      /** A field of the resource that sub-requests lacking it inherit from the top level (a differing value is INVALID_ARGUMENT). */
      readonly inherit?: string;
      /** The v1 batch collection, e.g. `rolebindings/batch`: POST `<v1>/{parent}` with a bare JSON array. */
      readonly v1Collection: string;
    };
    /**
     * Custom methods (AIP-136) by their RPC in the contract, each a named
     * function per mode (custom-method.ts): what does not fit the standard
     * methods' vocabulary is written as code beside the mapping, not as a keyword.
     */
    readonly custom?: Readonly<Record<string, CustomMethod>>;
    /** The uid of the resource matching some request fields. */
    readonly lookup?: {
      /** The RPC in the contract (its route comes from there). */
      readonly rpc: string;
      /** Required v2 query parameter → the v1 query key carrying it. */
      readonly params: Readonly<Record<string, string>>;
      /** The v1 lookup path under the service, e.g. `identities/lookup`. */
      readonly v1Path: string;
    };
  };
  /**
   * Output fields that show another resource as it is now, filled at read
   * time through the backend's rows-by-id in both modes (render/references.ts),
   * by top-level v2 field. Where v1's rows carry a picked value themselves
   * (its field spec has a v1 source), translate mode renders it from the row.
   */
  readonly references?: Readonly<Record<string, Reference>>;
  /**
   * What writing this resource hands out (a role binding, an invite, an
   * identity provider's default role, a custom role's own capabilities): its
   * writer must hold all of it where it is granted (policy/no-escalation.ts),
   * and the role and identity it names must lie inside that organisation
   * (vocabulary/role-grants.ts). Both modes check the references; native mode
   * with authentication checks the holding.
   */
  readonly grants?: GrantSpec;
  /** The fields as the mapping file declares them, before the contract's are laid under them (for the test that nothing is said twice). */
  readonly declaredFields?: Readonly<Record<string, FieldSpec>>;
  /** Native-mode behaviour beyond what the field specs say. */
  readonly native?: NativeSpec;
  readonly delete?: {
    /** AIP-135: deleting what is already gone succeeds. */
    readonly idempotent?: boolean;
    /** Refuse with RESOURCE_NOT_EMPTY while any of these resources has a row under the uid. */
    readonly refuseWhileParentOf?: readonly string[];
  };
}

/** An enum whose v2 names are the v1 names behind a prefix (same numbers); `zero` pairs the unspecified values. */
export function prefixedEnum(prefix: string, v1Names: readonly string[], zero: readonly [v1: string, v2: string]): EnumRename {
  const pairs: [string, string][] = v1Names.map((n) => (n === zero[0] ? [n, zero[1]] : [n, prefix + n]));
  return enumRename(pairs, zero[1]);
}

export function enumRename(pairs: readonly (readonly [v1: string, v2: string])[], zero: string): EnumRename {
  return {
    v1ToV2: Object.fromEntries(pairs.map(([a, b]) => [a, b])),
    v2ToV1: Object.fromEntries(pairs.map(([a, b]) => [b, a])),
    zero,
  };
}

/** Default: `message` when `fields` is given, otherwise `string`. */
export function typeOf(spec: FieldSpec): FieldType {
  return spec.type ?? (spec.fields ? 'message' : 'string');
}

/** The proto message a mapping's resource is: its AIP type's last segment, in its service's v2beta1 package. */
export function resourceMessageName(mapping: Pick<ResourceMapping, 'service' | 'resourceType'>): string {
  return `chainguard.platform.${mapping.service}.v2beta1.${mapping.resourceType.split('/').pop()}`;
}

/** The kinds of v2 operation (port/operation.ts builds one of each): the contract's bindings name them too. */
export type OperationKind = 'list' | 'get' | 'create' | 'update' | 'delete' | 'batchCreate' | 'lookup' | 'custom';

/** Whether v1 keeps this resource (translate mode's system of record), or the store does (`keptInStore`). */
export function keptByV1(mapping: Pick<ResourceMapping, 'keptInStore'>): boolean {
  return mapping.keptInStore === undefined;
}
