/**
 * The backend port: I/O only. A backend reads rows (a page, one by uid, many
 * by uid), writes, and deletes (counting children first where the mapping
 * refuses to delete a parent, inside the store's transaction); the operation runner
 * (src/operation/execute.ts) and the render stage (src/render/) do the rest —
 * reading and validating requests, the PATCH merge, references and rendering.
 * The v1 adapter's rows are v1-shaped, the store's are stored documents: each
 * reaches the render stage through the conversion its backend declares.
 */
import type { ZodType } from 'zod';
import type { RequestContext } from '../request/context.ts';
import type { PageCursor } from '../aip/page-token.ts';
import type { CustomMethod, RequestPages } from '../vocabulary/custom-method.ts';
import type { ListQuery } from './list-query.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';
import type { Json } from '../vocabulary/json.ts';
import type { Carries } from '../vocabulary/references.ts';
import type { ResourceTimes } from '../store/types.ts';
import type { WriteJudge } from './write-judge.ts';

export type { RequestContext };

/** Times the gateway keeps for rows whose backend lacks them, by uid (translate mode's kept times). */
export type KeptTimesByUid = ReadonlyMap<string, ResourceTimes>;

/**
 * The render stage's entry point, handed to a backend once, when the runner
 * over it is built (`BackendPort.renderThrough`), for where rows it reads must
 * come back rendered (a custom method's answer; a List's page the runner renders): the rows as
 * v2 resources, references filled. `times`: kept times the caller already
 * looked up.
 */
export type RenderRows<Row = unknown> = (mapping: ResourceMapping, rows: readonly Row[], ctx: RequestContext, times?: KeptTimesByUid) => Promise<Json[]>;

/** How a backend's rows become v2 documents: the one declared conversion of each mode. */
export interface RowConversion<Row = unknown> {
  readonly mode: 'translate' | 'native';
  /** The rows as v2 documents, before references are filled (translate mode: renames and kept times; native: the stored document). */
  documents(mapping: ResourceMapping, rows: readonly Row[], ctx: RequestContext, times?: KeptTimesByUid): Promise<Json[]> | Json[];
  /** A row of a referenced kind as the reference's pick reads it. */
  target(kind: string, row: Row): Json;
  /** Whether this backend's rows hold a field's value themselves, so that a reference need not fill it. */
  readonly carries: Carries;
  /** The backend's clock, for fields computed when read (native mode's derived fields); default Date.now. */
  readonly now?: () => number;
  /** Rules this system of record holds writes to beyond the contract's and the mapping's (v1's shorter limits). */
  readonly rules?: (mapping: ResourceMapping) => ZodType | undefined;
}

/** A PATCH as a backend's read-modify-write applies it (made by render/patch.ts). */
export interface Patch {
  /** The paths the update changes; none: the current resource is answered unchanged. */
  readonly paths: readonly string[];
  /** The current document merged with the request and validated on the masked paths; throws INVALID_ARGUMENT. */
  apply(current: Json): { readonly document: Json; readonly keep: readonly string[] };
}

/** Rows by kind and uid; a uid with no row is absent. */
export type RowsById<Row = unknown> = ReadonlyMap<string, ReadonlyMap<string, Row>>;

/** A created row, and what only the create answer shows (a one-time code the store never keeps). */
export interface Created<Row = unknown> {
  readonly row: Row;
  readonly once?: Json;
}

/** One page of a List: its rows, which the runner renders, wraps in the v2 envelope and seals the token of. */
export interface Page<Row = unknown> {
  rows: readonly Row[];
  /** The kept times of the page's rows the backend looked up for its reading (translate mode), for their rendering. */
  times?: KeptTimesByUid | undefined;
  /** Where the next page resumes; absent on the last page. */
  next?: PageCursor;
  /** Every match, when the backend knows it (totalCount is optional in v2). */
  total?: number;
  /** Rows skipped by this and earlier pages of the walk. */
  skipped: number;
}

export interface BackendPort<Row = unknown> {
  readonly rows: RowConversion<Row>;
  /** The render stage this port's custom methods render through, given once by the runner built over it (operation/execute.ts). */
  renderThrough(render: RenderRows<Row>): void;
  /** A page of matching rows (the runner renders them). */
  list(mapping: ResourceMapping, query: ListQuery, ctx: RequestContext): Promise<Page<Row>>;
  /** One row by uid; NOT_FOUND when there is none. */
  read(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Row>;
  /** Rows of several kinds by uid, for one rendering (kind → uids); rows gone are left out. */
  readByIds(wanted: ReadonlyMap<string, readonly string[]>, ctx: RequestContext): Promise<RowsById<Row>>;
  /**
   * `value` is the validated body; `parent` a UIDP, or '' for a root where the mapping allows one.
   * `judge`, when given, is run inside the write's transaction before anything is stored (write-judge.ts).
   */
  create(mapping: ResourceMapping, parent: string, value: Json, ctx: RequestContext, judge?: WriteJudge): Promise<Created<Row>>;
  /**
   * A read-modify-write: read the current row, hand its v2 document to
   * `patch.apply` (the merge and validation, render/patch.ts), write the
   * merged document; the row as written. Called with the resource's
   * in-process write lock held. `judge`, when given, judges the merged document inside the write's
   * transaction, with the row as read locked, before it is stored.
   */
  update(mapping: ResourceMapping, uid: string, patch: Patch, ctx: RequestContext, judge?: WriteJudge): Promise<Row>;
  delete(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<void>;
  /**
   * Validated create bodies, all or none, the rows in request order. `singular` names a sub-request's resource in errors.
   * `judge`, when given, judges every document at once inside the write's transaction, before any is stored.
   */
  batchCreate(mapping: ResourceMapping, parent: string, values: readonly Json[], singular: string, ctx: RequestContext, judge?: WriteJudge): Promise<Row[]>;
  /** `mapping.methods.lookup`: the parameters by v2 name → `{uid}`. */
  lookup(mapping: ResourceMapping, values: Readonly<Record<string, string>>, ctx: RequestContext): Promise<Json>;
  /** A custom method's implementation for this backend's mode, given the request message (JSON form) → the response message. */
  custom(method: CustomMethod, request: Json, ctx: RequestContext, pages: RequestPages): Promise<Json>;
}
