/**
 * Which RPCs of the contract the gateway serves, and how: each served method
 * bound to its resource mapping and the kind of operation it is. The contract
 * names the methods and their routes; a mapping says which of its resource's
 * standard methods the gateway serves and names its custom ones. Everything a
 * transport needs to turn a request into an operation is here, once.
 */
import type { DescField, DescMessage, DescMethod, DescService } from '@bufbuild/protobuf';
import { servesIn, type CustomMethod, type Mode } from '../vocabulary/custom-method.ts';
import { resourceMessageName, type ResourceMapping } from '../vocabulary/resource.ts';
import type { OperationKind } from '../vocabulary/resource.ts';
import { httpRule, type HttpRuleView } from './registry.ts';

export interface Binding {
  readonly method: DescMethod;
  readonly mapping: ResourceMapping;
  readonly kind: OperationKind;
  /** The REST route: the method's own rule, then its additional bindings. */
  readonly rules: readonly HttpRuleView[];
  /** The request field the REST body fills (`group`), `*` for the whole request, '' for none. */
  readonly body: string;
  /** The request field that names the resource (`uid`, `group.uid`) or its parent (`parent`), as a proto field path. */
  readonly target: string | undefined;
  /** For a custom method: its implementations, one per mode. */
  readonly custom?: CustomMethod;
}

const STANDARD: readonly OperationKind[] = ['get', 'create', 'update', 'delete'];

function kindOf(method: DescMethod, mapping: ResourceMapping): OperationKind | undefined {
  const resource = resourceMessageName(mapping);
  const message = resource.split('.').pop()!;
  if (customKey(method, mapping)) return 'custom';
  if (mapping.methods?.batchCreate?.rpc === method.name) return 'batchCreate';
  if (mapping.methods?.lookup?.rpc === method.name) return 'lookup';
  for (const kind of STANDARD) {
    if (method.name === `${capitalise(kind)}${message}`) return kind;
  }
  if (method.name.startsWith('List') && listsOf(method.output) === resource) return 'list';
  return undefined;
}

/**
 * The key under which a mapping declares a custom method: its RPC name for a
 * method of the mapping's own service package, `Service.Method` for another
 * package's (the advisory feed beside the advisories).
 */
function customKey(method: DescMethod, mapping: ResourceMapping): string | undefined {
  const custom = mapping.methods?.custom;
  if (!custom) return undefined;
  const qualified = `${method.parent.name}.${method.name}`;
  if (Object.hasOwn(custom, qualified)) return qualified;
  const ownPackage = method.parent.typeName.startsWith(`chainguard.platform.${mapping.service}.`);
  return ownPackage && Object.hasOwn(custom, method.name) ? method.name : undefined;
}

/** The resource a List response carries (its one repeated message field), if any. */
function listsOf(output: DescMessage): string | undefined {
  const repeated = output.fields.find((f) => f.fieldKind === 'list' && f.listKind === 'message');
  return repeated?.fieldKind === 'list' && repeated.listKind === 'message' ? repeated.message.typeName : undefined;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Every binding the mappings declare, whichever mode serves it; fails at start
 * when a mapping names an RPC the contract lacks. `forMode` narrows them.
 */
export function bindContract(services: readonly DescService[], mappings: readonly ResourceMapping[]): Binding[] {
  const bindings: Binding[] = [];
  for (const mapping of mappings) {
    const served = new Set<string>([
      ...mapping.operations,
      ...(mapping.methods?.batchCreate ? ['batchCreate'] : []),
      ...(mapping.methods?.lookup ? ['lookup'] : []),
      ...Object.keys(mapping.methods?.custom ?? {}),
    ]);
    const found = new Set<string>();
    for (const service of services) {
      for (const method of service.methods) {
        const kind = kindOf(method, mapping);
        const name = kind === 'custom' ? customKey(method, mapping) : kind;
        if (!kind || !served.has(name!)) continue;
        const rule = httpRule(method);
        if (!rule) throw new Error(`${method.parent.typeName}.${method.name} has no google.api.http rule`);
        found.add(name!);
        const custom = kind === 'custom' ? mapping.methods!.custom![name!] : undefined;
        bindings.push({ method, mapping, kind, rules: [rule, ...rule.additional], body: rule.body, target: targetOf(rule.pattern), ...(custom ? { custom } : {}) });
      }
    }
    const missing = [...served].filter((kind) => !found.has(kind));
    if (missing.length > 0) throw new Error(`mapping "${mapping.name}" serves ${missing.join(', ')}, which the contract does not declare for ${resourceMessageName(mapping)}`);
  }
  return bindings;
}

/**
 * The bindings one mode serves, and why it serves none of the others: a
 * resource v1 has no equivalent of is kept in the store in both modes, and a custom method may
 * lack an implementation for a mode. Reasons are by `package.Service.Method`.
 */
export function forMode(bindings: readonly Binding[], mode: Mode): { served: Binding[]; reasons: Record<string, string> } {
  const served: Binding[] = [];
  const reasons: Record<string, string> = {};
  for (const binding of bindings) {
    const reason = unservedIn(binding, mode);
    if (reason === undefined) served.push(binding);
    else reasons[`${binding.method.parent.typeName}.${binding.method.name}`] = reason;
  }
  return { served, reasons };
}

/** Translate mode serves what v1 lacks from the store (two-systems-backend.ts), so it serves whatever native mode can too. */
function unservedIn(binding: Binding, mode: Mode): string | undefined {
  if (binding.custom && !servesIn(binding.custom, mode) && !(mode === 'translate' && servesIn(binding.custom, 'native'))) {
    return binding.custom.unserved?.[mode] ?? `not served in ${mode} mode`;
  }
  return undefined;
}

/** The one variable of a route template, if any (`{group.uid=**}` → `group.uid`). */
function targetOf(pattern: string): string | undefined {
  return /\{([\w.]+)(?:=[^}]*)?\}/.exec(pattern)?.[1];
}

/** jsonPath's answers by message and proto path: the descriptors never change, and a gRPC call asks for its target's on every call. */
const JSON_PATHS = new WeakMap<DescMessage, Map<string, string>>();

/** A proto field path (`group.uid`) in JSON names (`group.uid`, `groupUid`), read through the message's descriptors. */
export function jsonPath(message: DescMessage, protoPath: string): string {
  let known = JSON_PATHS.get(message);
  const found = known?.get(protoPath);
  if (found !== undefined) return found;
  const path = jsonPathOf(message, protoPath);
  if (!known) JSON_PATHS.set(message, (known = new Map()));
  known.set(protoPath, path);
  return path;
}

function jsonPathOf(message: DescMessage, protoPath: string): string {
  const names: string[] = [];
  let current: DescMessage | undefined = message;
  for (const part of protoPath.split('.')) {
    const field: DescField | undefined = current?.fields.find((f) => f.name === part);
    if (!field) throw new Error(`${message.typeName} has no field ${protoPath}`);
    names.push(field.jsonName);
    current = field.fieldKind === 'message' ? field.message : undefined;
  }
  return names.join('.');
}

/** The contract's RPCs no binding serves: both transports answer them UNIMPLEMENTED rather than with a wrong route. */
export function unservedMethods(services: readonly DescService[], bindings: readonly Binding[]): DescMethod[] {
  const served = new Set(bindings.map((b) => b.method));
  return services.flatMap((service) => service.methods).filter((method) => !served.has(method));
}
