/**
 * Authorization's read-only view of the native store (grants.ts's
 * AccessReader, no-escalation.ts's GrantReader), and the one write it makes: the owner binding of an
 * organisation to whoever created it.
 */
import type { Store } from '../store/types.ts';
import { newChildUid } from '../uidp.ts';
import { normalize } from '../vocabulary/document.ts';
import roleBindings from '../../mappings/role-bindings.ts';
import roles from '../../mappings/roles.ts';
import type { Json } from '../vocabulary/json.ts';
import type { AccessReader } from './grants.ts';
import type { GrantReader } from './no-escalation.ts';

/** The built-in owner role's uid, as the roles mapping seeds it. */
export function ownerRoleUid(): string {
  const owner = roles.native?.seed?.find((role) => role.body.name === 'owner');
  if (!owner) throw new Error('mappings/roles.ts seeds no built-in owner role');
  return owner.uid;
}

/** More bindings than one identity plausibly has; past it the rest are not read (and grant nothing). */
const MAX_BINDINGS = 10_000;

export class StoreGrants implements AccessReader, GrantReader {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async bindingsOf(identity: string): Promise<{ group: string; role: string }[]> {
    const { rows } = await this.#store.resources.list({
      kind: roleBindings.name,
      filters: [{ field: 'identityUid', op: 'eq', value: identity }],
      order: [{ field: 'uid', desc: false }],
      skip: 0,
      limit: MAX_BINDINGS,
    });
    return rows.map((row) => ({ group: row.parent, role: String(row.body.roleUid ?? '') }));
  }

  async capabilitiesOf(role: string): Promise<string[]> {
    const row = await this.#store.resources.get(roles.name, role);
    const capabilities = row?.body.capabilities;
    return Array.isArray(capabilities) ? capabilities.map(String) : [];
  }

  async stored(kind: string, uid: string): Promise<Json | undefined> {
    return (await this.#store.resources.get(kind, uid))?.body;
  }

  /** Binds `identity` to `role` at `group` (the organisation it just created), stored as native mode stores a binding. */
  async bind(group: string, identity: string, role: string, now = new Date().toISOString()): Promise<void> {
    const uid = newChildUid(group);
    const body = { ...normalize(roleBindings.fields, { identityUid: identity, roleUid: role }, { keepOutputOnly: false }), uid, createTime: now };
    await this.#store.resources.insert({ kind: roleBindings.name, uid, parent: group, body, createTime: now, updateTime: now });
  }
}
