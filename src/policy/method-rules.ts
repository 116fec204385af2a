/**
 * What the contract asks of each served method before it runs, read once from
 * its `(chainguard.annotations.iam)` option: no token at all (`disabled`), or
 * a token and the capabilities it lists, at the group the request's
 * `iam_scope` field names (followed into a message field, e.g. an update's
 * `group.uid`), or, for an `unscoped` method, over whatever the caller may see.
 */
import type { DescField, DescMessage, DescMethod } from '@bufbuild/protobuf';
import { getOption, hasOption } from '@bufbuild/protobuf';
import { singleParam } from '../aip/list-request.ts';
import { spellings } from '../aip/names.ts';
import { jsonPath, type Binding } from '../contract/bindings.ts';
import { contract, requiredCapabilities } from '../contract/registry.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';
import { getPath } from '../vocabulary/json.ts';
import type { Operation, OperationKind } from '../port/operation.ts';

export interface MethodRule {
  readonly rpc: string;
  /** Public: no token is needed, in any mode. */
  readonly disabled: boolean;
  /** Capability enum names the caller must hold at the scope. */
  readonly capabilities: readonly string[];
  /** No scope field: a List sees only what the caller may see; other methods are checked at their target, if any. */
  readonly unscoped: boolean;
  /** The uid the request acts on (its `iam_scope` field, or an unscoped method's target), '' when it names none. */
  scopeOf(op: Operation): string;
  /**
   * A lookup's: the rule of its resource's Get. A lookup answers a resource the caller may not read as it
   * answers one that does not exist (authorizer.ts), so it cannot be used to find what lies elsewhere.
   */
  readonly readsAs?: MethodRule;
}

const iamScope = contract.getExtension('chainguard.annotations.iam_scope');

function isScope(field: DescField): boolean {
  return !!iamScope && hasOption(field, iamScope) && getOption(field, iamScope) === true;
}

/** The proto path of the request's scope field: `uid`, `parent`, `group.uid`; undefined when there is none. */
export function scopePath(message: DescMessage): string | undefined {
  const field = message.fields.find(isScope);
  if (!field) return undefined;
  if (field.fieldKind !== 'message') return field.name;
  const inner = scopePath(field.message);
  return inner ? `${field.name}.${inner}` : undefined;
}

function targetOf(op: Operation): string {
  switch (op.kind) {
    case 'get':
    case 'update':
    case 'delete':
      return op.uid;
    case 'create':
      return op.parent;
    default:
      return '';
  }
}

/** Reads the scope field wherever the operation holds it: the route's target, the body, the query or the whole request. */
function scopeReader(binding: Binding, path: string | undefined): (op: Operation) => string {
  // A custom method's route variable is in its request message like any other field (targetOf knows standard methods only).
  if (!path || (path === binding.target && binding.kind !== 'custom')) return targetOf;
  const json = jsonPath(binding.method.input, path);
  return (op) => {
    let value: unknown;
    if (op.kind === 'custom') value = getPath(op.request, json);
    else if (op.kind === 'batchCreate') value = getPath(op.body, json);
    else if (op.kind === 'list' || op.kind === 'lookup') value = singleParam(op.query, spellings(json));
    else value = targetOf(op);
    return typeof value === 'string' ? value : '';
  };
}

export function methodRule(binding: Binding): MethodRule {
  const method: DescMethod = binding.method;
  const iam = requiredCapabilities(method);
  const rpc = `${method.parent.typeName}/${method.name}`;
  // A method the contract leaves unannotated is treated as the strictest: a token, and a capability no role holds.
  const capabilities = iam ? iam.capabilities : ['CAP_UNANNOTATED'];
  return {
    rpc,
    disabled: iam?.disabled ?? false,
    capabilities,
    unscoped: iam?.unscoped ?? false,
    scopeOf: scopeReader(binding, iam?.unscoped ? undefined : scopePath(method.input)),
  };
}

/** Each served method's rule, found by the operation the transports build (a mapping and a kind, or a custom method). */
export class MethodRules {
  readonly #standard = new Map<ResourceMapping, Map<OperationKind, MethodRule>>();
  readonly #custom = new Map<DescMethod, MethodRule>();

  constructor(bindings: readonly Binding[]) {
    for (const binding of bindings) {
      const rule = methodRule(binding);
      if (binding.kind === 'custom') {
        this.#custom.set(binding.method, rule);
        continue;
      }
      let kinds = this.#standard.get(binding.mapping);
      if (!kinds) this.#standard.set(binding.mapping, (kinds = new Map()));
      // The GA twin and v2beta1 share one table: the first binding of a kind is its rule.
      if (!kinds.has(binding.kind)) kinds.set(binding.kind, rule);
    }
    for (const kinds of this.#standard.values()) {
      const lookup = kinds.get('lookup');
      // A lookup of a resource no Get serves reads as the strictest rule: nothing found is shown.
      if (lookup) kinds.set('lookup', { ...lookup, readsAs: kinds.get('get') ?? { ...lookup, capabilities: ['CAP_UNANNOTATED'] } });
    }
  }

  of(op: Operation): MethodRule | undefined {
    return op.kind === 'custom' ? this.#custom.get(op.method) : this.#standard.get(op.mapping)?.get(op.kind);
  }
}
