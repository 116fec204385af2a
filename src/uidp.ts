/**
 * UIDP: the hierarchical ids of the platform (chainguard-dev/sdk: proto/platform/common/v1/uidp.platform.proto).
 * A root UID is 20 random bytes as 40 lowercase hex characters; every further
 * segment is 8 random bytes as 16 hex characters, joined POSIX-path style.
 */
import { createHash, randomBytes } from 'node:crypto';

const UIDP_PATTERN = /^[0-9a-f]{40}(?:\/[0-9a-f]{16})*$/;

export function isUidp(value: string): boolean {
  return UIDP_PATTERN.test(value);
}

export function newRootUid(): string {
  return randomBytes(20).toString('hex');
}

/**
 * A root uid that is a pure function of `parts`: every replica and restart
 * names the same thing the same way (an identity not registered yet, a
 * built-in role). The parts are JSON-encoded first, so no two lists collide.
 */
export function deterministicRootUid(...parts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 40);
}

export function newChildUid(parent: string): string {
  return `${parent}/${randomBytes(8).toString('hex')}`;
}

/** The parent of a UIDP; a root UIDP's parent is "/". */
export function parentOf(uidp: string): string {
  const cut = uidp.lastIndexOf('/');
  return cut < 0 ? '/' : uidp.slice(0, cut);
}

export function isInRoot(uidp: string): boolean {
  return !uidp.includes('/');
}

/** Strict ancestry: `child` lies somewhere below `ancestor`. */
export function isDescendantOf(child: string, ancestor: string): boolean {
  return child.startsWith(`${ancestor}/`);
}

/**
 * `parentOf(child) === parent` (a List asks it of every row): a slash just past the parent's length and
 * none after it, then the prefix compared as a string (a slice of `child`, which V8 makes without a copy),
 * which costs less than `lastIndexOf` and `startsWith` did.
 */
export function isChildOf(child: string, parent: string): boolean {
  const n = parent.length;
  if (child.charCodeAt(n) !== 0x2f) return parent === '/' && child.indexOf('/') < 0;
  return child.indexOf('/', n + 1) < 0 && child.slice(0, n) === parent;
}

/** The UIDP itself and every ancestor of it, nearest first (`a/b/c` → `a/b/c`, `a/b`, `a`). */
export function selfAndAncestors(uidp: string): string[] {
  const segments = uidp.split('/');
  return segments.map((_, i) => segments.slice(0, segments.length - i).join('/'));
}

/**
 * A UIDP in a v1 URL path: each segment escaped, the slashes kept (v1 routes capture them with
 * `{id=**}`). Here, not in the v1 client, so the mappings that build v1 paths do not load the
 * client (and undici) in native mode.
 */
export function uidpPath(uidp: string): string {
  return uidp.split('/').map(encodeURIComponent).join('/');
}
