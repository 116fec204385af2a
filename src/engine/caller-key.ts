/**
 * Whose entry a cache entry is: the caller's token, as a digest. v1 decides what each token may see, so
 * the gateway's caches keep what one caller was given apart from every other caller's, and a token is
 * never kept in memory as a key, only its digest.
 */
import { createHash } from 'node:crypto';

export function callerKey(authorization: string): string {
  return createHash('sha256').update(authorization).digest('base64url');
}
