/**
 * Custom methods (AIP-136) as named functions beside the mapping that declares
 * them (Cadwyn's converters), not as new keywords of the mapping vocabulary.
 *
 * A custom method takes its request message in JSON form — built the same way
 * from a REST route, query and body as from a gRPC message, then checked
 * against the contract — and answers its response message in JSON form, which
 * the runner checks against the contract too. Each mode has its own
 * implementation, written against a narrow port: `translate` sees v1 (calls
 * with the caller's credentials, and the mappings' renderers), `native` sees
 * the rows of the store's kinds it declares (`touches`), and reads any other
 * resource as a v2 document through the port. A mode without an implementation answers UNIMPLEMENTED with the
 * reason the method declares for it.
 */
import type { V1Call } from '../v1/client.ts';
import type { ResourceStore } from '../store/types.ts';
import type { RequestContext } from '../request/context.ts';
import type { Orderable } from '../aip/order-by.ts';
import type { PageCursor } from '../aip/page-token.ts';
import type { Json } from './json.ts';

export type Mode = 'translate' | 'native';

/**
 * The page tokens of one request, for a custom method that pages by itself
 * (over a v1 list that has its own tokens): sealed by the gateway and bound to
 * the request's other fields and order, so a token can be neither read,
 * forged nor replayed against another query.
 */
export interface RequestPages {
  /** Where the request's `page_token` resumes; undefined on a first page (or after the token expired). */
  readonly cursor: PageCursor | undefined;
  seal(cursor: PageCursor): string;
}

/** What a custom method may do over v1. */
export interface V1Access {
  readonly pages: RequestPages;
  /** A v1 call with the caller's own credentials, under the request's deadline and signal. */
  call<T = Json>(call: Omit<V1Call, 'authorization'>): Promise<T>;
  /** A v1 row of a mapped resource as its v2 resource (renames, references, kept times). */
  render(resource: string, row: Json): Promise<Json>;
  /** The v1 row of a mapped resource by uid; NOT_FOUND when v1 has none. */
  row(resource: string, uid: string): Promise<Json>;
  /** After a write v1 made: forget what the gateway keeps of the resource (hydration cache). */
  changed(resource: string, uid: string): void;
}

/**
 * The store as a custom method's native implementation sees it: the rows of the kinds it declares
 * (`CustomMethod.touches`) and no others. Touching another kind is the gateway's own fault, refused
 * before any query.
 */
export interface StoreView {
  readonly resources: ResourceStore;
  /** Runs `work` atomically over the same view. */
  transaction<T>(work: (tx: { readonly resources: ResourceStore }) => Promise<T>): Promise<T>;
}

/** What a custom method may do in native mode. */
export interface NativeAccess {
  readonly pages: RequestPages;
  readonly store: StoreView;
  /** A stored resource as its v2 document (references hydrated, secrets hidden); NOT_FOUND when absent. */
  get(resource: string, uid: string): Promise<Json>;
  /** The time now, as the store writes it (RFC 3339, milliseconds). */
  now(): string;
}

export interface CustomMethod {
  /** Over v1; absent when v1 has no equivalent (then `unserved.translate` says why). */
  readonly translate?: (request: Json, v1: V1Access, ctx: RequestContext) => Promise<Json>;
  /** From the store; absent when native mode cannot answer it (then `unserved.native` says why). */
  readonly native?: (request: Json, store: NativeAccess, ctx: RequestContext) => Promise<Json>;
  /** The store kinds the native implementation reads or writes directly (its StoreView); another resource is read through `NativeAccess.get`. */
  readonly touches?: readonly string[];
  /** Why a mode without an implementation does not serve the method: its UNIMPLEMENTED answer and the README say so. */
  readonly unserved?: { readonly [mode in Mode]?: string };
  /**
   * A List-shaped custom method (AIP-132 paging fields on a request that is
   * not a standard List). Its implementations answer every matching row under
   * `items`; the runner orders, skips and pages them and seals the page token
   * to the request, as it does for a standard List over v1.
   */
  readonly list?: CustomList;
}

export interface CustomList {
  /** The response field (JSON name) holding the rows. */
  readonly items: string;
  /** What `order_by` may name; `uid` stands for `key`. */
  readonly order: Orderable;
  /** A row's unique, stable key: the order's final tiebreak, so a page token resumes exactly. */
  readonly key: (row: Json) => string;
}

/** Whether the method has an implementation for the mode. */
export function servesIn(method: CustomMethod, mode: Mode): boolean {
  return (mode === 'translate' ? method.translate : method.native) !== undefined;
}
