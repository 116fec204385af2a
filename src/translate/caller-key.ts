/**
 * Whose entry a cache entry is: the caller's token, as a digest. v1 decides what each token may see, so
 * the gateway's caches (hydration, walks, list readings) keep what one caller was given apart from every
 * other caller's, and a token is never kept in memory as a key, only its digest. A request's digest is
 * made once, however many cache lookups the request makes (a hydrated page makes one per reference).
 */
import { createHash } from 'node:crypto';
import type { RequestContext } from '../request/context.ts';

const BY_REQUEST = new WeakMap<RequestContext, string>();

/** The digest of the request's caller, made on first asking and kept with the request. */
export function callerOf(ctx: RequestContext): string {
  let key = BY_REQUEST.get(ctx);
  if (key === undefined) {
    key = createHash('sha256').update(ctx.authorization).digest('base64url');
    BY_REQUEST.set(ctx, key);
  }
  return key;
}
