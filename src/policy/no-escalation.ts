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
 * Judged inside the write's own store transaction (port/write-judge.ts), on
 * the documents as the backend is about to store them (an update's: merged
 * onto the row it has locked), and on the caller's grants and the granted
 * role read afresh there, never from the grants cache, held as read until the
 * write commits (grants.ts's ReadLock). So the judgement and the write see
 * one state: an owner changing the same binding, a revocation of the
 * caller's own binding or a role's capabilities changed meanwhile, through
 * this process or another replica, lands wholly before the judgement (and is
 * judged) or wholly after the write.
 *
 * The method's own authorization runs first (authorizer.ts), and the runner's
 * reading and validation of the request, so a value the rules refuse is
 * INVALID_ARGUMENT, not a refusal for what the caller lacks. A role outside
 * the grant's organisation is not read here: the runner refuses it
 * (vocabulary/role-grants.ts) without describing it, where this check would
 * name its capabilities.
 */
import { ApiError } from '../aip/errors.ts';
import { Code } from '../rpc-status.ts';
import { atWithin, changesGrant, grantOf, roleWithin, type Grant } from '../vocabulary/role-grants.ts';
import type { Caller } from '../request/context.ts';
import type { Operation } from '../port/operation.ts';
import type { JudgedWrite } from '../port/write-judge.ts';
import { missingAt, type AccessReader, type GrantMap, type ReadLock } from './grants.ts';

/** Where the check reads the caller's grants as they are now (grants.ts's `Grants.current`). */
export interface CurrentGrants {
  current(caller: Pick<Caller, 'subject'>, lock: ReadLock): Promise<GrantMap>;
}

/** The operations that may grant: the writes that store a mapping's document whole or merged. */
const GRANTING_KINDS: ReadonlySet<Operation['kind']> = new Set(['create', 'batchCreate', 'update']);

/** Reads inside the write hold what they read until it commits. */
const LOCK: ReadLock = 'share';

export class EscalationCheck {
  readonly #grants: CurrentGrants;
  readonly #reader: Pick<AccessReader, 'capabilitiesOf'>;

  constructor(grants: CurrentGrants, reader: Pick<AccessReader, 'capabilitiesOf'>) {
    this.#grants = grants;
    this.#reader = reader;
  }

  /** The operation with its write judged inside the write's transaction, when it may grant; as it was otherwise. */
  judging(op: Operation, caller: Caller): Operation {
    if (!op.mapping.grants || !GRANTING_KINDS.has(op.kind)) return op;
    return { ...op, judge: (write) => this.judge(write, caller) };
  }

  /** Resolves when the write grants nothing the caller lacks; rejects with PERMISSION_DENIED otherwise. */
  async judge(write: JudgedWrite, caller: Pick<Caller, 'subject'>): Promise<void> {
    const granted = grantsOf(write);
    if (granted.length === 0) return;
    const held = await this.#grants.current(caller, LOCK);
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
    if (!roles.has(grant.role)) roles.set(grant.role, this.#reader.capabilitiesOf(grant.role, LOCK));
    return [...new Set([...(await roles.get(grant.role)!), ...own])];
  }
}

/**
 * The grants a write makes, each within its resource's organisation (one reaching outside is the runner's
 * to refuse); none for an update whose mask leaves the grant as it was.
 */
function grantsOf({ mapping, group, documents, paths }: JudgedWrite): Grant[] {
  const spec = mapping.grants;
  if (!spec || (paths && !changesGrant(spec, paths))) return [];
  return documents.map((document) => grantOf(spec, document, group)).filter((grant) => atWithin(grant, group));
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
