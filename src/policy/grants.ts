/**
 * A caller's capabilities by group, as its role bindings grant them: a
 * binding at a group grants its role's capabilities there and at every
 * descendant. Read through `AccessReader`, a small read-only view of the
 * store, and kept briefly per caller (a request costs a map lookup, not a
 * store query); `forget()` drops them all when this process writes something
 * that may change them. A write that grants is judged on grants read afresh
 * inside its own transaction instead (`current`, no-escalation.ts).
 */
import { LRUCache } from 'lru-cache';
import type { Caller } from '../request/context.ts';
import type { StoreListQuery } from '../store/types.ts';

/**
 * How a read made inside a write's transaction holds what it read, as the store offers it (its list
 * query's `lock`): 'share', the rows stay as read until the write commits (a replica revoking one
 * meanwhile waits for it). Unset: a plain read.
 */
export type ReadLock = StoreListQuery['lock'];

/** What authorization reads of the store, and nothing else. */
export interface AccessReader {
  /** The identity's role bindings: the group each is at and the role it grants. */
  bindingsOf(identity: string, lock?: ReadLock): Promise<readonly { group: string; role: string }[]>;
  /** The capability enum names a role (built-in or custom) carries; [] when there is no such role. */
  capabilitiesOf(role: string, lock?: ReadLock): Promise<readonly string[]>;
}

/** Capabilities held at each group a binding names. */
export type GrantMap = ReadonlyMap<string, ReadonlySet<string>>;

/** Where the authorizer reads a caller's grants: the store's role bindings (native mode), or v1's word (v1-grants.ts). */
export interface GrantsSource {
  of(caller: Caller): Promise<GrantMap>;
  /** Drops what is kept: a write through this process may have changed someone's grants. */
  forget(): void;
}

export class Grants implements GrantsSource {
  readonly #reader: AccessReader;
  readonly #ttlMs: number;
  readonly #cache: LRUCache<string, Promise<GrantMap>>;

  constructor(reader: AccessReader, ttlMs = 2000) {
    this.#reader = reader;
    this.#ttlMs = ttlMs;
    this.#cache = new LRUCache({ max: 10_000, ttl: Math.max(1, ttlMs) });
  }

  /** The grants of the caller's identity (its verified `sub`). */
  of({ subject: identity }: Pick<Caller, 'subject'>): Promise<GrantMap> {
    if (this.#ttlMs <= 0) return this.#read(identity);
    let grants = this.#cache.get(identity);
    if (!grants) {
      grants = this.#read(identity);
      this.#cache.set(identity, grants);
      // A failed read is not kept: the next request reads again.
      grants.catch(() => this.#cache.delete(identity));
    }
    return grants;
  }

  /**
   * The grants as stored now, never from the cache (which a revocation through another replica does
   * not reach): what a write that grants is judged on, read inside its transaction with `lock`.
   */
  current({ subject: identity }: Pick<Caller, 'subject'>, lock: ReadLock): Promise<GrantMap> {
    return this.#read(identity, lock);
  }

  /** Everything cached is dropped: a role binding, role or group changed through this process. */
  forget(): void {
    this.#cache.clear();
  }

  async #read(identity: string, lock?: ReadLock): Promise<GrantMap> {
    const bindings = await this.#reader.bindingsOf(identity, lock);
    const roles = new Map<string, Promise<readonly string[]>>();
    const grants = new Map<string, Set<string>>();
    for (const { group, role } of bindings) {
      if (!roles.has(role)) roles.set(role, this.#reader.capabilitiesOf(role, lock));
      const held = grants.get(group) ?? new Set<string>();
      for (const capability of await roles.get(role)!) held.add(capability);
      grants.set(group, held);
    }
    return grants;
  }
}

/** Whether `grants` hold every capability at `uid`: bindings at the uid itself and at each of its ancestors count. */
export function holds(grants: GrantMap, uid: string, capabilities: readonly string[]): boolean {
  return capabilities.length === 0 || missingAt(grants, uid, capabilities).length === 0;
}

/** The capabilities of `capabilities` that `grants` do not hold at `uid` (bindings at it and its ancestors count), in their order. */
export function missingAt(grants: GrantMap, uid: string, capabilities: readonly string[]): string[] {
  const held = new Set<string>();
  for (let end = uid.indexOf('/'); ; end = uid.indexOf('/', end + 1)) {
    const at = grants.get(end < 0 ? uid : uid.slice(0, end));
    if (at) for (const capability of at) held.add(capability);
    if (end < 0) break;
  }
  return capabilities.filter((capability) => !held.has(capability));
}

/** The groups at which `grants` hold every capability: what an unscoped List may show (rows within them). */
export function groupsHolding(grants: GrantMap, capabilities: readonly string[]): string[] {
  return [...grants.keys()].filter((group) => holds(grants, group, capabilities));
}
