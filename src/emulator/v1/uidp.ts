/**
 * UIDPs as v1 mints and reads them (api-surface.md §0.3). The emulator keeps its own: it is the v1
 * contract written from the facts, and shares no code with the gateway it stands behind in tests.
 *
 * A root UID is 20 random bytes in lowercase hex (40 characters); each further segment (an SUID) is 8
 * random bytes (16 characters), joined to its parent with `/`. A root UIDP's parent is `/`.
 */
import { randomBytes } from 'node:crypto';

const ROOT_UID_BYTES = 20;
const SUID_BYTES = 8;
const SEPARATOR = '/';
/** The facts' validity pattern. */
const WELL_FORMED = /^[0-9a-f]{40}(?:\/[0-9a-f]{16})*$/;

export const isUidp = (value: string): boolean => WELL_FORMED.test(value);

/** Where a UID's bytes come from: random, unless a caller fixes them (EmulatorState's `uidBytes`). */
export type UidBytes = (size: number) => Buffer;

/** A new organisation or other root-level resource. */
export const newRootUid = (bytes: UidBytes = randomBytes): string => bytes(ROOT_UID_BYTES).toString('hex');

/** A new resource placed under `parent`. */
export const newChildUid = (parent: string, bytes: UidBytes = randomBytes): string => parent + SEPARATOR + bytes(SUID_BYTES).toString('hex');

export function parentOf(uidp: string): string {
  const last = uidp.lastIndexOf(SEPARATOR);
  return last === -1 ? SEPARATOR : uidp.slice(0, last);
}

/** Root level: organisations, user identities, managed roles. */
export const isInRoot = (uidp: string): boolean => !uidp.includes(SEPARATOR);

/** Strict ancestry: `uidp` lies somewhere below `ancestor` (never `ancestor` itself). */
export function isDescendantOf(uidp: string, ancestor: string): boolean {
  return uidp.length > ancestor.length + 1 && uidp.startsWith(ancestor) && uidp[ancestor.length] === SEPARATOR;
}

/** `parentOf(uidp) === parent`, asked of every row a list scans, so without cutting `uidp`. */
export function isChildOf(uidp: string, parent: string): boolean {
  if (parent === SEPARATOR) return isInRoot(uidp);
  return isDescendantOf(uidp, parent) && uidp.indexOf(SEPARATOR, parent.length + 1) === -1;
}
