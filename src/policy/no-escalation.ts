/**
 * No escalation (Kubernetes RBAC's rule): a caller may grant only what it
 * holds. A write that grants something — what a mapping's `grants` declares:
 * a role binding's role, an invite's, an identity provider's default role, a
 * custom role's own capabilities — is refused with PERMISSION_DENIED, naming
 * the missing capabilities, unless the caller holds every capability granted
 * at the group it is granted at (bindings there or above count). An update
 * grants anew when it changes any part of the grant (moving a binding to
 * another identity too), and is judged on the grant as it leaves it.
 *
 * Runs after the method's own authorization and before the runner. A role
 * outside the grant's organisation is not read here: the runner refuses it
 * (vocabulary/role-grants.ts) without describing it, where this check would
 * name its capabilities.
 */
import { ApiError } from '../aip/errors.ts';
import { parseBatch } from '../engine/batch-request.ts';
import { readBody, readUpdate } from '../render/request-body.ts';
import { Code } from '../rpc-status.ts';
import { parentOf } from '../uidp.ts';
import type { Json } from '../vocabulary/json.ts';
import { atWithin, changesGrant, grantAfterUpdate, grantOf, roleWithin, type Grant } from '../vocabulary/role-grants.ts';
import type { Caller } from '../operation/context.ts';
import type { Operation } from '../operation/operation.ts';
import { missingAt, type AccessReader, type Grants } from './grants.ts';

/** What the check reads of the store: a role's capabilities, and a resource as stored (an update's grant before it). */
export interface GrantReader extends Pick<AccessReader, 'capabilitiesOf'> {
  /** The stored document of a resource; undefined when there is none. */
  stored(kind: string, uid: string): Promise<Json | undefined>;
}

export class EscalationCheck {
  readonly #grants: Grants;
  readonly #reader: GrantReader;

  constructor(grants: Grants, reader: GrantReader) {
    this.#grants = grants;
    this.#reader = reader;
  }

  /** Resolves when the operation grants nothing the caller lacks; rejects with PERMISSION_DENIED otherwise. */
  async check(op: Operation, caller: Caller): Promise<void> {
    const granted = await this.#granted(op);
    if (granted.length === 0) return;
    const held = await this.#grants.of(caller.subject);
    for (const grant of granted) {
      const capabilities = await this.#capabilities(grant);
      const missing = missingAt(held, grant.at, capabilities);
      if (missing.length > 0) throw escalation(grant, missing);
    }
  }

  /** Every capability the grant hands out: its role's (one within its organisation only) and its own list. */
  async #capabilities(grant: Grant): Promise<readonly string[]> {
    const own = grant.capabilities ?? [];
    if (!grant.role || !roleWithin(grant.role, grant.at)) return own;
    return [...new Set([...(await this.#reader.capabilitiesOf(grant.role)), ...own])];
  }

  /**
   * The grants the operation makes, each within its resource's organisation (one reaching outside is the
   * runner's to refuse). Read from the request as the runner reads it, so no spelling of a field escapes.
   */
  async #granted(op: Operation): Promise<Grant[]> {
    const spec = op.mapping.grants;
    if (!spec) return [];
    const within = (group: string) => (grant: Grant) => atWithin(grant, group);
    switch (op.kind) {
      case 'create':
        return [grantOf(spec, readBody(op.mapping.fields, op.body).value, op.parent)].filter(within(op.parent));
      case 'batchCreate': {
        const batch = parseBatch(op.mapping, '', op.body);
        return batch.items.map((item) => grantOf(spec, readBody(op.mapping.fields, item).value, batch.parent)).filter(within(batch.parent));
      }
      case 'update': {
        const { value, paths } = readUpdate(op.mapping.fields, op.body, op.mask);
        if (!changesGrant(spec, paths)) return [];
        // Nothing stored: the runner answers NOT_FOUND.
        const stored = await this.#reader.stored(op.mapping.name, op.uid);
        const group = parentOf(op.uid);
        return stored ? [grantAfterUpdate(spec, stored, value, paths, group)].filter(within(group)) : [];
      }
      default:
        return [];
    }
  }
}

function escalation(grant: Grant, missing: readonly string[]): ApiError {
  const what = grant.role ? `role ${grant.role}` : 'these capabilities';
  return new ApiError(
    Code.PERMISSION_DENIED,
    `the caller may grant only what it holds: granting ${what} at "${grant.at}" needs ${missing.join(', ')}, which the caller does not hold there`,
    [],
    { missingCapabilities: missing.join(',') },
  );
}
