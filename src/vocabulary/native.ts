/**
 * What a mapping declares for native mode (serving v2 from the store alone),
 * where v2's own behaviour needs more than the field specs say. Data only: the
 * native backend reads it and names no resource itself.
 */

/** What a derived field is computed for. */
export interface DerivedRead {
  readonly uid: string;
  /** The time of the read, in milliseconds. */
  readonly now: number;
}

/**
 * An output field computed when it is read, from the row of a kind at the
 * resource's own uid (undefined while there is none) and the time of the
 * read: what changes as time passes with no write (a credential expires, an
 * overlap ends) cannot be stored once and picked later.
 */
export interface NativeDerived {
  /** A kind a mapping serves, or one this mapping `keeps`. */
  readonly kind: string;
  readonly render: (row: Readonly<Record<string, unknown>> | undefined, read: DerivedRead) => unknown;
}

/** An output field the service assigns when the resource is created. */
export type NativeGenerated =
  /** The creation time (RFC 3339, milliseconds). */
  | { readonly kind: 'now' }
  /** Creation time plus a `google.protobuf.Duration` ("3600s") read from an input field. */
  | { readonly kind: 'expiry'; readonly after: string }
  /**
   * Random bytes, hex or base64url. `once`: shown in the create response
   * only and never stored (an invitation code).
   */
  | { readonly kind: 'random'; readonly bytes: number; readonly encoding: 'hex' | 'base64url'; readonly once?: boolean };

/** Rows of another kind that point at this resource through one of their fields. */
export interface NativeReferrer {
  readonly kind: string;
  /** The referrer's field path holding this resource's uid. */
  readonly field: string;
}

/** A row present from the start (built-in roles). Seeded rows are read-only to clients. */
export interface NativeSeedRow {
  /** A flat root uid or a UIDP; fixed, so every replica and restart agrees. */
  readonly uid: string;
  /** The document's writable fields; zero values fill the rest. */
  readonly body: Readonly<Record<string, unknown>>;
}

/**
 * The lookup custom method (`GET <collection>:<verb>?a=…&b=…`): the uid of
 * the first resource whose fields equal the query parameters, trying each
 * alternative in turn; when none matches, a root uid derived from the mapping
 * name and the parameters (in `methods.lookup.params` order), so the same
 * question always gets the same answer, in both modes.
 */
export interface NativeLookup {
  /** Alternatives, each: query parameter → field path it must equal. */
  readonly match: readonly Readonly<Record<string, string>>[];
}

/**
 * What a `flag` filter (a v2 switch v1 applies) selects: rows whose `field`
 * matches `pattern` (a JavaScript regular expression) are shown only when the
 * switch is on; off, its default, hides them.
 */
export interface NativeFlag {
  readonly field: string;
  readonly pattern: string;
}

/**
 * What a filter only v1 could judge (no `field` in its FilterSpec) selects in
 * native mode: the values at `path` (through lists: `events.author` reads
 * every event's author), compared with the filter's value(s). `any`: some
 * value is among them; `none`: no value is; `in`: the one value at a scalar
 * path is among them, which the store applies itself (no scan).
 */
export type NativeFilter = NativeValueFilter | NativeMemberFilter | NativeThroughFilter;

export interface NativeValueFilter {
  readonly path: string;
  readonly match: 'any' | 'none' | 'in';
}

/**
 * A filter on which oneof member the elements of the list at `path` have set:
 * `members` maps each filter value to its member (a value without one, such as
 * the enum's UNSPECIFIED, constrains nothing). Some element must have a wanted
 * member set; with `latest`, only the element with the greatest `by` among
 * those whose fields equal `where` counts.
 */
export interface NativeMemberFilter {
  readonly path: string;
  readonly match: 'member';
  readonly members: Readonly<Record<string, string>>;
  readonly latest?: { readonly by: string; readonly where?: Readonly<Record<string, string>> };
}

/**
 * A filter on what the value at `path` stands for, as rows of another kind
 * say: a row of `kind` whose uid is the value names what it stands for in its
 * `field` (a subpackage's origin package); a value no row names stands for
 * itself. A row matches when its value stands for one of the filter's. When
 * set, the filters in `overrides` are not applied (the facts say it replaces
 * them).
 */
export interface NativeThroughFilter {
  readonly path: string;
  readonly match: 'through';
  readonly kind: string;
  readonly field: string;
  readonly overrides?: readonly string[];
}

export interface NativeSpec {
  /**
   * Where a new resource's uid comes from. `child` (default): a new segment
   * under the parent, or a new root uid for a root. `parent`: the uid is the
   * parent itself, so a parent holds at most one (AccountAssociation).
   */
  readonly uid?: 'child' | 'parent';
  /**
   * A singleton sub-resource of a resource of this kind, at the same uid (a
   * repo's readme): it exists exactly while that resource does. Read before
   * it was ever written, it shows its zero values; the first update writes
   * its row. The owner's mapping should cascade its delete to it.
   */
  readonly singletonOf?: string;
  /**
   * A field whose value names the resource within its parent (a repo's name
   * in its group, a tag's in its repo). A create with a value another
   * resource there holds: `replace` replaces that resource, keeping its uid
   * and create time (an upsert); `refuse` is ALREADY_EXISTS. An update onto
   * such a value is ALREADY_EXISTS.
   */
  readonly uniqueWithinParent?: { readonly field: string; readonly onCreate: 'replace' | 'refuse' };
  /**
   * Fields holding the uid of a row of another kind, which must exist when a
   * create or update sets them (else INVALID_ARGUMENT on the field): field
   * path → kind, e.g. a role binding's `identityUid` → `identities`.
   */
  readonly requires?: Readonly<Record<string, string>>;
  /**
   * Store kinds this mapping's custom methods keep that no mapping serves (an
   * identity provider's SCIM credential); references and cascades may name them.
   */
  readonly keeps?: readonly string[];
  /** Output fields computed at read time from a kept row and the clock, by top-level v2 field. */
  readonly derived?: Readonly<Record<string, NativeDerived>>;
  /** Output fields assigned on create, by top-level v2 field. */
  readonly generated?: Readonly<Record<string, NativeGenerated>>;
  readonly delete?: {
    /** Refuse (FAILED_PRECONDITION, `RESOURCE_IN_USE`) while rows of these kinds point here. */
    readonly refuseWhileReferencedBy?: readonly NativeReferrer[];
    /** Delete the rows of these kinds that point here, in the same transaction. */
    readonly cascade?: readonly NativeReferrer[];
  };
  readonly lookup?: NativeLookup;
  /** The rows each `flag` filter of the mapping governs, by filter name. */
  readonly flags?: Readonly<Record<string, NativeFlag>>;
  /** Filters without a v2 field (v1 applied them), by filter name; undeclared ones are UNIMPLEMENTED in native mode. */
  readonly filters?: Readonly<Record<string, NativeFilter>>;
  /** Rows seeded at start (idempotently; changed seed data replaces the stored row). */
  readonly seed?: readonly NativeSeedRow[];
}
