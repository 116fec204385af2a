/**
 * Authorization's read-only view of the native store (grants.ts's
 * AccessReader), and the one write it makes: binding a root organisation's
 * creator as the access model says (mappings/access.ts). Which resources hold
 * bindings and roles is the model's to say, not this file's.
 */
import type { Store } from '../store/types.ts';
import { newChildUid } from '../uidp.ts';
import type { AccessModel } from '../vocabulary/access.ts';
import { normalize } from '../vocabulary/document.ts';
import { getPath } from '../vocabulary/json.ts';
import type { AccessReader, ReadLock } from './grants.ts';

/** More bindings than one identity plausibly has; past it the rest are not read (and grant nothing). */
const MAX_BINDINGS = 10_000;

export class StoreGrants implements AccessReader {
  readonly #store: Store;
  readonly #access: AccessModel;

  constructor(store: Store, access: AccessModel) {
    this.#store = store;
    this.#access = access;
  }

  async bindingsOf(identity: string, lock?: ReadLock): Promise<{ group: string; role: string }[]> {
    const bindings = this.#access.bindings;
    const { rows } = await this.#store.resources.list({
      kind: bindings.mapping.name,
      filters: [{ field: bindings.identity, op: 'eq', value: identity }],
      order: [{ field: 'uid', desc: false }],
      skip: 0,
      limit: MAX_BINDINGS,
      ...(lock ? { lock } : {}),
    });
    return rows.map((row) => ({ group: row.parent, role: String(getPath(row.body, bindings.role) ?? '') }));
  }

  async capabilitiesOf(role: string, lock?: ReadLock): Promise<string[]> {
    const roles = this.#access.roles;
    const row = lock ? await this.#lockedRow(roles.mapping.name, role, lock) : await this.#store.resources.get(roles.mapping.name, role);
    const capabilities = row ? getPath(row.body, roles.capabilities) : undefined;
    return Array.isArray(capabilities) ? capabilities.map(String) : [];
  }

  /** One row by uid, held as read until the transaction the caller is inside ends. */
  async #lockedRow(kind: string, uid: string, lock: NonNullable<ReadLock>) {
    const { rows } = await this.#store.resources.list({ kind, filters: [{ field: 'uid', op: 'eq', value: uid }], order: [{ field: 'uid', desc: false }], skip: 0, limit: 1, lock });
    return rows[0];
  }

  /** Binds the creator of the root organisation `group` as the access model says, stored as native mode stores a binding. */
  async bindCreator(group: string, identity: string, now = new Date().toISOString()): Promise<void> {
    const { mapping, identity: identityField, role: roleField } = this.#access.bindings;
    const uid = newChildUid(group);
    const declared = { [identityField]: identity, [roleField]: this.#access.onRootCreated.creatorRole };
    const body = { ...normalize(mapping.fields, declared, { keepOutputOnly: false }), uid, createTime: now };
    await this.#store.resources.insert({ kind: mapping.name, uid, parent: group, body, createTime: now, updateTime: now });
  }
}
