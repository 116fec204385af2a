/**
 * What serves a resource's operations. The v1 backend translates to v1 calls;
 * a native store can implement the same contract. Routes only know this.
 */
import type { RawQuery } from '../aip/list-request.ts';
import type { ResourceMapping } from './mapping.ts';
import type { Json } from './shape.ts';

export interface RequestContext {
  /** The caller's Authorization header, forwarded to v1. */
  authorization: string;
  /** v1 calls this request made, for observability. */
  counter: { v1Calls: number };
}

export interface Backend {
  list(mapping: ResourceMapping, query: RawQuery, ctx: RequestContext): Promise<Json>;
  get(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json>;
  create(mapping: ResourceMapping, parent: string, body: Json, ctx: RequestContext): Promise<Json>;
  update(mapping: ResourceMapping, uid: string, body: Json, mask: string | undefined, ctx: RequestContext): Promise<Json>;
  delete(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json>;
  /** `mapping.methods.batchCreate`: body `{parent, requests: [...], <inherit>?}` → `{<name>: [...]}` in request order. */
  batchCreate(mapping: ResourceMapping, body: Json, ctx: RequestContext): Promise<Json>;
  /** `mapping.methods.lookup`: → `{uid}`. */
  lookup(mapping: ResourceMapping, query: RawQuery, ctx: RequestContext): Promise<Json>;
}
