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
import { parseBatch } from '../operation/batch-request.ts';
import { patchOf } from '../render/patch.ts';
import { readBody, readUpdate } from '../render/request-body.ts';
import { validate } from '../render/validate.ts';
import { Code } from '../rpc-status.ts';
import { parentOf } from '../uidp.ts';
import type { Json } from '../vocabulary/json.ts';
import { atWithin, changesGrant, grantOf, roleWithin, type Grant } from '../vocabulary/role-grants.ts';
import type { Caller } from '../request/context.ts';
import type { Operation } from '../port/operation.ts';
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
    const held = await this.#grants.of(caller);
    // A batch grants one role many times: it is read once.
    const roles = new Map<string, Promise<readonly string[]>>();
    for (const grant of granted) {
      const capabilities = await this.#capabilities(grant, roles);
      const missing = missingAt(held, grant.at, capabilities);
      if (missing.length > 0) throw escalation(grant, missing);
    }
  }

  /** Every capability the grant hands out: its role's (one within its organisation only) and its own list. */
  async #capabilities(grant: Grant, roles: Map<string, Promise<readonly string[]>>): Promise<readonly string[]> {
    const own = grant.capabilities ?? [];
    if (!grant.role || !roleWithin(grant.role, grant.at)) return own;
    if (!roles.has(grant.role)) roles.set(grant.role, this.#reader.capabilitiesOf(grant.role));
    return [...new Set([...(await roles.get(grant.role)!), ...own])];
  }

  /**
   * The grants the operation makes, each within its resource's organisation (one reaching outside is the
   * runner's to refuse). Read and validated as the runner reads and validates them, so no spelling of a
   * field escapes, and a value the rules refuse (an internal-only capability) is INVALID_ARGUMENT, not a
   * refusal for what the caller lacks.
   */
  async #granted(op: Operation): Promise<Grant[]> {
    const { mapping } = op;
    const spec = mapping.grants;
    if (!spec) return [];
    const within = (group: string) => (grant: Grant) => atWithin(grant, group);
    switch (op.kind) {
      case 'create': {
        const { value } = readBody(mapping.fields, op.body);
        validate(mapping, value);
        return [grantOf(spec, value, op.parent)].filter(within(op.parent));
      }
      case 'batchCreate': {
        const batch = parseBatch(mapping, '', op.body);
        return batch.items.map((item, i) => {
          const { value } = readBody(mapping.fields, item);
          validate(mapping, value, undefined, `requests[${i}].${batch.singular}.`);
          return grantOf(spec, value, batch.parent);
        }).filter(within(batch.parent));
      }
      case 'update': {
        const { value, paths } = readUpdate(mapping.fields, op.body, op.mask);
        if (!changesGrant(spec, paths)) return [];
        // Nothing stored: the runner answers NOT_FOUND.
        const stored = await this.#reader.stored(mapping.name, op.uid);
        if (!stored) return [];
        // The resource as the update leaves it, merged and validated as the backend will merge and validate it.
        const group = parentOf(op.uid);
        return [grantOf(spec, patchOf(mapping, value, paths).apply(stored).document, group)].filter(within(group));
      }
      default:
        return [];
    }
  }
}

/** Room in the message for the names of missing capabilities (an answer's message is bounded: aip/errors.ts). */
const NAMES_BUDGET = 640;

function escalation(grant: Grant, missing: readonly string[]): ApiError {
  const what = grant.role ? `role ${grant.role}` : 'these capabilities';
  const named: string[] = [];
  let length = 0;
  for (const capability of missing) {
    if (length + capability.length + 2 > NAMES_BUDGET) break;
    named.push(capability);
    length += capability.length + 2;
  }
  const more = missing.length - named.length;
  const list = named.join(', ') + (more > 0 ? ` and ${more} more` : '');
  const count = missing.length === 1 ? '1 capability' : `${missing.length} capabilities`;
  return new ApiError(
    Code.PERMISSION_DENIED,
    `the caller may grant only what it holds: granting ${what} at "${grant.at}" needs ${count} the caller does not hold there: ${list}`,
  );
}
