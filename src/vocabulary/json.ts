/**
 * JSON values as the gateway moves them between layers: a JSON object, and
 * reading and writing dotted paths through own properties only.
 */
import { ownValue } from '../aip/names.ts';

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Rows read one at a time, by index: a list's rows however they are held. `row(i)` may answer one object
 * reused from call to call (a scanned list's rows are held by member: v1/list-body.ts), so a row is read
 * before the next is asked for, and never kept.
 */
export interface RowsByIndex {
  readonly count: number;
  row(i: number): Json;
  /**
   * Where the rows are held by member (a scanned list): every row's own value of top-level member `name`
   * by index (`column(name)[i]` is `row(i)`'s, undefined where the row lacks it), read without a row
   * object; undefined for a member not held so. A List reads a member or two of each of a thousand rows.
   */
  column?(name: string): readonly unknown[] | undefined;
}

/** An array's rows as RowsByIndex. */
export function rowsOfArray(rows: readonly Json[]): RowsByIndex {
  return { count: rows.length, row: (i) => rows[i]! };
}

/** Rows `from` to `to` (not included) of `rows`, as rows of their own from 0. */
export function rowsBetween(rows: RowsByIndex, from: number, to: number): RowsByIndex {
  return { count: to - from, row: (i) => rows.row(from + i) };
}

/** Dotted paths split once: a List reads the same few paths of every row. Bounded, as some paths come from clients. */
const SEGMENTS = new Map<string, readonly string[]>();
const MAX_REMEMBERED_PATHS = 10_000;

/** The value at a dotted path, through own properties only (never one Object.prototype lends). */
export function getPath(obj: unknown, path: string): unknown {
  if (!path.includes('.')) return isObject(obj) ? ownValue(obj, path) : undefined;
  let segments = SEGMENTS.get(path);
  if (!segments) {
    segments = path.split('.');
    if (SEGMENTS.size < MAX_REMEMBERED_PATHS) SEGMENTS.set(path, segments);
  }
  let value: unknown = obj;
  for (const segment of segments) {
    if (!isObject(value)) return undefined;
    value = ownValue(value, segment);
  }
  return value;
}

/** Sets an own property, even one named `__proto__` (which plain assignment would take as the prototype). */
export function setOwn(target: Json, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/** Sets the value at a dotted path, making the objects on the way; `undefined` deletes it. */
export function setPath(target: Json, path: string, value: unknown): void {
  const segments = path.split('.');
  let node = target;
  for (const segment of segments.slice(0, -1)) {
    if (!isObject(ownValue(node, segment))) setOwn(node, segment, {});
    node = node[segment] as Json;
  }
  const last = segments[segments.length - 1]!;
  if (value === undefined) delete node[last];
  else setOwn(node, last, value);
}

/** A copy of a map with its keys renamed where `names` knows them (a map keyed by an enum's names). */
export function renameKeys(map: Json, names: Readonly<Record<string, string>> | undefined): Json {
  if (!names) return { ...map };
  const out: Json = {};
  for (const [key, value] of Object.entries(map)) setOwn(out, Object.hasOwn(names, key) ? names[key]! : key, value);
  return out;
}
