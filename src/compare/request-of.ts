/**
 * The request message an operation was built from, in the contract's JSON
 * form: what a second target is sent, what sampling hashes and what a capture
 * records. Either transport's operation comes back to the same message, so a
 * REST call and a gRPC call asking the same thing are one request here.
 */
import type { DescMethod } from '@bufbuild/protobuf';
import { jsonPath, type Binding } from '../contract/bindings.ts';
import { requestFromRest } from '../contract/request-message.ts';
import type { Json } from '../vocabulary/json.ts';
import type { Operation } from '../operation/operation.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';

/** Finds the binding an operation was made from: by its method for a custom one, else by mapping and kind. */
export class BindingIndex {
  readonly #byMapping = new Map<ResourceMapping, Map<string, Binding>>();
  readonly #byMethod = new Map<DescMethod, Binding>();

  constructor(bindings: readonly Binding[]) {
    for (const binding of bindings) {
      if (binding.kind === 'custom') this.#byMethod.set(binding.method, binding);
      else {
        const kinds = this.#byMapping.get(binding.mapping) ?? new Map<string, Binding>();
        kinds.set(binding.kind, binding);
        this.#byMapping.set(binding.mapping, kinds);
      }
    }
  }

  of(op: Operation): Binding | undefined {
    return op.kind === 'custom' ? this.#byMethod.get(op.method) : this.#byMapping.get(op.mapping)?.get(op.kind);
  }
}

/** The request message of an operation; throws what the contract refuses (the primary has refused it too). */
export function requestOf(binding: Binding, op: Operation): Json {
  const input = binding.method.input;
  const at = (protoPath: string | undefined, value: string, into: Json): Json => {
    if (!protoPath) return into;
    const names = jsonPath(input, protoPath).split('.');
    let node = into;
    for (const name of names.slice(0, -1)) node = (node[name] ??= {}) as Json;
    node[names.at(-1)!] = value;
    return into;
  };
  const bodyField = binding.body && binding.body !== '*' ? jsonPath(input, binding.body) : undefined;
  const wrap = (body: Json): Json => (bodyField ? { [bodyField]: structuredClone(body) } : structuredClone(body));
  switch (op.kind) {
    case 'list':
    case 'lookup':
      return requestFromRest(input, { body: '', variables: {}, query: op.query, rawBody: undefined });
    case 'get':
    case 'delete':
      return at(binding.target, op.uid, {});
    case 'create':
      return at(binding.target, op.parent, wrap(op.body));
    case 'update': {
      const request = at(binding.target, op.uid, wrap(op.body));
      if (op.mask !== undefined) request.updateMask = op.mask;
      return request;
    }
    case 'batchCreate':
      return structuredClone(op.body);
    case 'custom':
      return op.request;
  }
}

/** `package.Service/Method`, the name the report and metrics use. */
export function methodName(method: DescMethod): string {
  return `${method.parent.typeName}/${method.name}`;
}
