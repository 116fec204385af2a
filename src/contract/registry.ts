/**
 * The v2beta1 contract as data: the compiled descriptor set of our own .proto
 * files (proto/, built by `npm run proto`), loaded into a protobuf-es registry,
 * plus typed readers for the options the gateway acts on (HTTP rules, field
 * behaviours, IAM capabilities).
 */
import { readFileSync } from 'node:fs';
import { createFileRegistry, fromBinary, getOption, hasOption } from '@bufbuild/protobuf';
import type { DescEnum, DescExtension, DescField, DescMethod, DescService, FileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';

const bytes = readFileSync(new URL('./descriptors.binpb', import.meta.url));

/** Every file of the contract, with its imports (google.api, google.rpc, grpc health/reflection, ...). */
export const contract: FileRegistry = createFileRegistry(fromBinary(FileDescriptorSetSchema, bytes));

function extension(name: string): DescExtension {
  const ext = contract.getExtension(name);
  if (!ext) throw new Error(`contract: extension ${name} missing from descriptors.binpb`);
  return ext;
}

function enumeration(name: string): DescEnum {
  const desc = contract.getEnum(name);
  if (!desc) throw new Error(`contract: enum ${name} missing from descriptors.binpb`);
  return desc;
}

const httpExt = extension('google.api.http');
const fieldBehaviorExt = extension('google.api.field_behavior');
const iamExt = extension('chainguard.annotations.iam');
const capabilityNameExt = extension('chainguard.capabilities.name');
const internalOnlyExt = extension('chainguard.capabilities.internal_only');
const FieldBehavior = enumeration('google.api.FieldBehavior');
const Capability = enumeration('chainguard.capabilities.Capability');

/** The API services (packages `chainguard.platform.*`), in file order. */
export function apiServices(): DescService[] {
  const out: DescService[] = [];
  for (const file of contract.files) {
    if (!file.proto.package.startsWith('chainguard.platform.')) continue;
    out.push(...file.services);
  }
  return out;
}

/** A `google.api.http` rule: the verb is lower case; a custom verb is its `kind`. */
export interface HttpRuleView {
  readonly verb: 'get' | 'post' | 'patch' | 'put' | 'delete' | (string & {});
  readonly pattern: string;
  readonly body: string;
  readonly responseBody: string;
  readonly additional: readonly HttpRuleView[];
}

// The decoded shape of google.api.HttpRule (protobuf-es, no generated code).
interface HttpRuleMessage {
  pattern:
    | { case: 'get' | 'put' | 'post' | 'delete' | 'patch'; value: string }
    | { case: 'custom'; value: { kind: string; path: string } }
    | { case: undefined; value?: undefined };
  body: string;
  responseBody: string;
  additionalBindings: HttpRuleMessage[];
}

function view(rule: HttpRuleMessage): HttpRuleView {
  const p = rule.pattern;
  if (p.case === undefined) throw new Error('contract: google.api.http rule without a pattern');
  const [verb, pattern] = p.case === 'custom' ? [p.value.kind, p.value.path] : [p.case, p.value];
  return { verb, pattern, body: rule.body, responseBody: rule.responseBody, additional: rule.additionalBindings.map(view) };
}

/** The method's `google.api.http` rule, or undefined when it has none. */
export function httpRule(method: DescMethod): HttpRuleView | undefined {
  if (!hasOption(method, httpExt)) return undefined;
  return view(getOption(method, httpExt) as unknown as HttpRuleMessage);
}

/** The field's `google.api.field_behavior` values by name, e.g. `['OUTPUT_ONLY']`. */
export function fieldBehaviors(field: DescField): string[] {
  if (!hasOption(field, fieldBehaviorExt)) return [];
  const values = getOption(field, fieldBehaviorExt) as unknown as number[];
  return values.map((n) => FieldBehavior.value[n]?.name ?? String(n));
}

/** What the `chainguard.annotations.iam` option of a method asks for. */
export interface RequiredCapabilities {
  /** Capability enum value names, e.g. `CAP_IAM_GROUPS_LIST`. */
  readonly capabilities: string[];
  /** True when the request carries no `iam_scope` field and results are scoped to the caller's groups. */
  readonly unscoped: boolean;
  /** True when the method declares IAM checks disabled (a public method). */
  readonly disabled: boolean;
}

// The decoded shape of chainguard.annotations.IAM.
interface IamMessage {
  mode:
    | { case: 'enabled'; value: { capabilities: number[]; unscoped: boolean } }
    | { case: 'disabled'; value: object }
    | { case: undefined; value?: undefined };
}

/** The method's IAM annotation, or undefined when it has none. */
export function requiredCapabilities(method: DescMethod): RequiredCapabilities | undefined {
  if (!hasOption(method, iamExt)) return undefined;
  const mode = (getOption(method, iamExt) as unknown as IamMessage).mode;
  if (mode.case !== 'enabled') return { capabilities: [], unscoped: false, disabled: mode.case === 'disabled' };
  return {
    capabilities: mode.value.capabilities.map((n) => Capability.value[n]?.name ?? String(n)),
    unscoped: mode.value.unscoped,
    disabled: false,
  };
}

/** The v1 friendly name of a capability (`CAP_IAM_GROUPS_LIST` → `groups.list`), from its `(name)` option. */
export function capabilityV1Name(capability: string): string | undefined {
  const value = Capability.values.find((v) => v.name === capability);
  if (!value || !hasOption(value, capabilityNameExt)) return undefined;
  return getOption(value, capabilityNameExt) as unknown as string;
}

/** The capabilities the contract marks `(internal_only)`: the platform's own, which no customer role may carry. */
export function internalOnlyCapabilities(): ReadonlySet<string> {
  return new Set(Capability.values.filter((v) => hasOption(v, internalOnlyExt) && getOption(v, internalOnlyExt) === true).map((v) => v.name));
}
