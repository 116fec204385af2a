/**
 * The backend port: what a backend does once an operation has been read and
 * validated (src/operation/execute.ts). The v1 backend translates to v1 calls;
 * the native backend reads and writes the store. I/O only: neither reads a
 * request, checks a UIDP or takes a lock for a read-modify-write.
 */
import type { RequestContext } from '../operation/context.ts';
import type { PageCursor } from '../aip/page-token.ts';
import type { CustomMethod, RequestPages } from '../vocabulary/custom-method.ts';
import type { ListQuery } from './list-query.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';
import type { Json } from '../vocabulary/json.ts';
import type { Patch } from '../render/patch.ts';

export type { RequestContext };

/** One page of a List, before the runner wraps it in the v2 envelope and seals its token. */
export interface Page {
  items: Json[];
  /** Where the next page resumes; absent on the last page. */
  next?: PageCursor;
  /** Every match, when the backend knows it (totalCount is optional in v2). */
  total?: number;
  /** Rows skipped by this and earlier pages of the walk. */
  skipped: number;
}

export interface BackendPort {
  list(mapping: ResourceMapping, query: ListQuery, ctx: RequestContext): Promise<Page>;
  get(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json>;
  /** `value` is the validated body; `parent` a UIDP, or '' for a root where the mapping allows one. */
  create(mapping: ResourceMapping, parent: string, value: Json, ctx: RequestContext): Promise<Json>;
  /**
   * A read-modify-write: read the current row, hand its v2 document to
   * `patch.apply` (the merge and validation, render/patch.ts), write the
   * merged document. Called with the resource's in-process write lock held.
   */
  update(mapping: ResourceMapping, uid: string, patch: Patch, ctx: RequestContext): Promise<Json>;
  delete(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json>;
  /** Validated create bodies, all or none, answered `{<name>: [...]}` in request order. `singular` names a sub-request's resource in errors. */
  batchCreate(mapping: ResourceMapping, parent: string, values: readonly Json[], singular: string, ctx: RequestContext): Promise<Json>;
  /** `mapping.methods.lookup`: the parameters by v2 name → `{uid}`. */
  lookup(mapping: ResourceMapping, values: Readonly<Record<string, string>>, ctx: RequestContext): Promise<Json>;
  /** A custom method's implementation for this backend's mode, given the request message (JSON form) → the response message. */
  custom(method: CustomMethod, request: Json, ctx: RequestContext, pages: RequestPages): Promise<Json>;
}
