/**
 * What every store of the emulator's state shares: how records are copied in
 * and frozen, the common field checks, the unique-name index, and the view of
 * the rest of the state a store may consult (StoreContext).
 */
import { parentOf } from './uidp.ts';
import { invalidArgument, notFound } from './errors.ts';
import type { EnumDef } from './protojson.ts';
import type { V1Identity, V1Role } from './state-records.ts';
import { formatTimestamp, parseTimestamp } from './time.ts';

/** Enum-typed inputs accept a name or, as protojson does, a number. */
export type EnumInput = string | number;

/** Inputs are copied on the way in so that freezing a stored record never freezes a caller's object. */
export const copy = <T>(value: T): T => structuredClone(value);

/**
 * Stored records are immutable (every write stores a new record), so reads
 * hand them out without copying: lists are hot in benchmarks, because the
 * gateway has to fetch whole v1 lists to page them.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

export function store<T extends { id: string }>(rows: Map<string, T>, record: T): T {
  rows.set(record.id, deepFreeze(record));
  return record;
}

/** Whether any key of `rows` is a direct child UIDP of `parent`. */
export function hasChildOf(rows: ReadonlyMap<string, unknown>, parent: string): boolean {
  for (const id of rows.keys()) if (parentOf(id) === parent) return true;
  return false;
}

/** The record stored under `id`, or NOT_FOUND naming it. */
export function existing<T>(rows: ReadonlyMap<string, T>, id: string, what: string): T {
  const row = rows.get(id);
  if (!row) throw notFound(`${what} ${JSON.stringify(id)} not found`);
  return row;
}

export function requireName(name: unknown, what: string): string {
  // Decision: a nameless resource is refused, naming the field.
  if (typeof name !== 'string' || name === '') throw invalidArgument(`${what}.name: must not be empty`);
  return name;
}

export function enumValue(def: EnumDef, value: EnumInput | undefined, where: string): string {
  if (value === undefined) return Object.keys(def.values).find((k) => def.values[k] === 0)!;
  const name = typeof value === 'number' ? Object.keys(def.values).find((k) => def.values[k] === value) : value;
  if (name === undefined || !(name in def.values)) throw invalidArgument(`${where}: unknown ${def.name} value ${JSON.stringify(value)}`);
  return name;
}

/** Timestamps are stored the way protojson prints them, whoever supplied them. */
export function canonicalTimestamp(value: string, where: string): string {
  const at = parseTimestamp(value);
  if (!at) throw invalidArgument(`${where}: not an RFC 3339 timestamp`);
  return formatTimestamp(at);
}

/** Names that identify a record within its parent (repos in a group, tags in a repo). */
export class NameIndex {
  readonly #ids = new Map<string, string>();

  #key(parent: string, name: string): string {
    return `${parent}\n${name}`;
  }

  /** The id of the record called `name` under `parent`. */
  get(parent: string, name: string): string | undefined {
    return this.#ids.get(this.#key(parent, name));
  }

  /** Records `next` (whose id may already be indexed under `previous`'s name). */
  set(next: { id: string; name: string }, previous?: { id: string; name: string }): void {
    if (previous) this.delete(previous);
    this.#ids.set(this.#key(parentOf(next.id), next.name), next.id);
  }

  delete(record: { id: string; name: string }): void {
    this.#ids.delete(this.#key(parentOf(record.id), record.name));
  }
}

/** The rest of the state, as a store may consult it. */
export interface StoreContext {
  /** Microseconds since the epoch. */
  clock(): number;
  /** `clock()` as a protojson timestamp. */
  now(): string;
  /** The group a resource is created in: "" is 3 (naming `param`), a missing group 5. */
  parentGroup(parent: string, param: string): string;
  role(id: string): V1Role | undefined;
  identity(id: string): V1Identity | undefined;
  repoExists(id: string): boolean;
}

/** What every store starts from: its records by key (a UIDP), and the rest of the state. */
export class Rows<T> {
  protected readonly rows = new Map<string, T>();
  protected readonly ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.ctx = ctx;
  }

  get size(): number {
    return this.rows.size;
  }

  /** Whether any record is a direct child of `parent` (see EmulatorState.deleteGroup). */
  hasChildOf(parent: string): boolean {
    return hasChildOf(this.rows, parent);
  }

  /** Deletes the record under `key`, or NOT_FOUND naming `what`. */
  protected remove(key: string, what: string): T {
    const row = existing(this.rows, key, what);
    this.rows.delete(key);
    return row;
  }
}
