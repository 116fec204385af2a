/**
 * Authorization, driven by the contract (method-rules.ts), of native mode and
 * of what translate mode keeps in its store (the grants come from the store's
 * role bindings or from v1: grants.ts's GrantsSource): a
 * method runs only when the caller holds its capabilities at the group its
 * request acts on. Decided before any existence check, from the caller's
 * grants alone: a caller without rights at a group is refused for every uid
 * under it, existing or not, so a refusal tells nothing about what exists.
 * An `unscoped` List is narrowed to the groups where the caller holds the
 * List's capability (the store filters the rows, so totalCount counts only
 * those, and a page token, which only says where a page starts, grants nothing).
 * A lookup is narrowed alike, to what the caller may read.
 */
import { ApiError } from '../aip/errors.ts';
import { Code } from '../rpc-status.ts';
import type { Caller } from '../request/context.ts';
import type { Operation } from '../port/operation.ts';
import { groupsHolding, holds, type GrantsSource } from './grants.ts';
import type { MethodRule } from './method-rules.ts';

/** What a permitted request may see: everything, or only rows within these uids ('' = the flat, shared rows). */
export type Visibility = readonly string[] | undefined;

export class Authorizer {
  readonly #grants: GrantsSource;
  /** Uids of the rows every caller may read (the built-in roles). */
  readonly #shared: ReadonlySet<string>;

  constructor(grants: GrantsSource, shared: ReadonlySet<string>) {
    this.#grants = grants;
    this.#shared = shared;
  }

  /** Resolves with what the request may see, or rejects with PERMISSION_DENIED. */
  async check(rule: MethodRule, op: Operation, caller: Caller): Promise<Visibility> {
    const needed = rule.capabilities;
    if (rule.readsAs && !rule.disabled && !rule.readsAs.disabled) return this.#readable([...needed, ...rule.readsAs.capabilities], caller);
    if (rule.disabled || needed.length === 0) return undefined;
    const grants = await this.#grants.of(caller);
    if (rule.unscoped && op.kind === 'list') {
      const within = groupsHolding(grants, needed);
      // The shared rows (built-in roles) are every caller's to read, in the Lists that hold them.
      return op.mapping.native?.seed?.length ? [...within, ''] : within;
    }
    const scope = rule.scopeOf(op);
    if (rule.unscoped) {
      // Creating an organisation (an unscoped create that names no parent) needs a verified caller only.
      if (scope === '' && op.kind === 'create') return undefined;
      if (this.#shared.has(scope) && op.kind === 'get') return undefined;
    }
    if (scope !== '' && holds(grants, scope, needed)) return undefined;
    throw denied(rule, scope);
  }

  /**
   * What a lookup may find: rows within the groups where the caller may read the resource, and the
   * root-level ones (users, built-in rows), which are everyone's to find. Anything else is answered as
   * if nothing matched.
   */
  async #readable(needed: readonly string[], caller: Caller): Promise<Visibility> {
    return [...groupsHolding(await this.#grants.of(caller), needed), ''];
  }

  /** A write through this process may have changed someone's grants. */
  changed(): void {
    this.#grants.forget();
  }
}

function denied(rule: MethodRule, scope: string): ApiError {
  const where = scope ? `at "${scope}"` : 'without a group to act on';
  return new ApiError(Code.PERMISSION_DENIED, `the caller may not call ${rule.rpc.split('/').pop()} ${where}: it needs ${rule.capabilities.join(', ')}`);
}
