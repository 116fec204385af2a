/**
 * GroupInvites (api-surface.md §7): children of a group promising a role
 * binding to whoever redeems the code. Two shapes on the wire, read from
 * group_invites.platform.proto: the create response `GroupInvite` {id,
 * expiration, keyId, role, code} and the list row `StoredGroupInvite` {id,
 * expiration, keyId, role, email, createdAt, singleUse} — both with the full
 * v1 Role; `code` exists only in the create response and is never stored.
 */
import { randomBytes } from 'node:crypto';
import { newChildUid, parentOf } from '../uidp.ts';
import { invalidArgument } from '../errors.ts';
import { Rows, store } from '../records.ts';
import { canonicalDuration, durationMicros, formatMicros } from '../time.ts';
import type { V1Role } from '../state-records.ts';

export interface GroupInviteFields {
  /** google.protobuf.Duration as protojson writes it ("3600s"). */
  ttl?: string;
  /** A role UIDP: a custom role or a managed (built-in) one. */
  role: string;
  email?: string;
  singleUse?: boolean;
}

/** What is stored: the role by id, so a later role change or deletion shows on reads. */
interface StoredInvite {
  id: string;
  expiration: string;
  keyId: string;
  role: string;
  email: string;
  createdAt: string;
  singleUse: boolean;
}

/** The create response. */
export interface V1GroupInvite {
  id: string;
  expiration: string;
  keyId: string;
  role: V1Role;
  code: string;
}

/** A list row. `role` is null when the role has since been deleted (v2 documents the same gap). */
export interface V1StoredGroupInvite {
  id: string;
  expiration: string;
  keyId: string;
  role: V1Role | null;
  email: string;
  createdAt: string;
  singleUse: boolean;
}

export interface GroupInviteFilter {
  group?: string;
  id?: string;
  keyId?: string;
}

export class GroupInviteStore extends Rows<StoredInvite> {
  /**
   * Decision: `ttl` is required and must be positive (an invite that is born
   * expired is useless); no upper bound, since neither version states one.
   * Decision: every invite gets its own verification key id, and the code
   * (an opaque base64url JSON document naming that key) is minted once and
   * returned only here; `?keyId=` therefore finds the invite a code belongs to.
   */
  create(group: string, fields: GroupInviteFields): V1GroupInvite {
    const parent = this.ctx.parentGroup(group, 'group');
    if (fields.ttl === undefined) throw invalidArgument('ttl: is required');
    const canonical = canonicalDuration(fields.ttl);
    if (canonical === undefined) throw invalidArgument('ttl: not a google.protobuf.Duration');
    const ttl = durationMicros(canonical);
    if (ttl <= 0) throw invalidArgument('ttl: must be positive');
    const role = this.ctx.role(fields.role ?? '');
    if (!role) throw invalidArgument(`role: role ${JSON.stringify(fields.role ?? '')} does not exist`);
    const now = this.ctx.clock();
    const invite = store(this.rows, {
      id: newChildUid(parent),
      expiration: formatMicros(now + ttl),
      keyId: randomBytes(16).toString('hex'),
      role: role.id,
      email: fields.email ?? '',
      createdAt: formatMicros(now),
      singleUse: fields.singleUse ?? false,
    });
    const code = Buffer.from(JSON.stringify({ kid: invite.keyId, group: parent, exp: invite.expiration, nonce: randomBytes(16).toString('hex') })).toString(
      'base64url',
    );
    return { id: invite.id, expiration: invite.expiration, keyId: invite.keyId, role, code };
  }

  /**
   * Decision: `group` matches invites directly under that group ("the group
   * this record is rooted under"); expired invites stay listed until deleted.
   */
  list(filter: GroupInviteFilter = {}): V1StoredGroupInvite[] {
    const rows = filter.id ? [this.rows.get(filter.id)].filter((r) => r !== undefined) : [...this.rows.values()];
    return rows
      .filter((r) => (!filter.group || parentOf(r.id) === filter.group) && (!filter.keyId || r.keyId === filter.keyId))
      .map((r) => ({ ...r, role: this.ctx.role(r.role) ?? null }));
  }

  delete(id: string): void {
    this.remove(id, 'group invite');
  }
}
