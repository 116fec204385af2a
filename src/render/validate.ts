/**
 * A request's value checked, as AIP-193 BadRequest errors: the mapping's
 * rules (zod), then the fields the contract marks REQUIRED and the oneofs the
 * mapping requires one member of, whose members the contract names. No
 * mapping restates either (test/mappings/contract.test.ts holds them to it).
 */
import { coveredBy } from '../aip/field-mask.ts';
import { invalidArgument, type FieldViolation } from '../aip/errors.ts';
import { getPath, isObject } from '../vocabulary/json.ts';
import type { FieldSpec, ResourceMapping } from '../vocabulary/resource.ts';

type Fields = Readonly<Record<string, FieldSpec>>;

/**
 * Checks `value`; with `onlyPaths`, reports only violations on those paths, so
 * an update is not refused for an untouched field that v1 holds in a form v2
 * would not accept. `fieldPrefix` places the value inside a larger request
 * (`requests[2].roleBinding.`).
 */
export function validate(mapping: Pick<ResourceMapping, 'fields' | 'validate' | 'requiredOneofs'>, value: unknown, onlyPaths?: readonly string[], fieldPrefix = ''): void {
  const violations: FieldViolation[] = [];
  const add = (field: string, description: string) => {
    if (onlyPaths && !coveredBy(field, onlyPaths)) return;
    if (!violations.some((v) => v.field === fieldPrefix + field)) violations.push({ field: fieldPrefix + field, description });
  };
  const result = mapping.validate?.safeParse(value);
  if (result && !result.success) for (const issue of result.error.issues) add(issue.path.map(String).join('.') || 'body', issue.message);
  // A field the rules found wrong already is not reported twice.
  if (isObject(value)) {
    for (const field of unsetRequired(mapping.fields, value)) add(field, 'is required');
    for (const oneof of mapping.requiredOneofs ?? []) {
      const unmet = unmetOneof(mapping.fields, value, oneof);
      if (unmet) add(unmet.field, `exactly one of ${unmet.members.join(', ')} must be set`);
    }
  }
  if (violations.length > 0) throw invalidArgument(violations);
}

/** A required oneof not set exactly once: where to report it (its first member) and its members; undefined when met or its message is unset. */
function unmetOneof(fields: Fields, value: Readonly<Record<string, unknown>>, oneof: string): { field: string; members: string[] } | undefined {
  const cut = oneof.lastIndexOf('.');
  const at = cut < 0 ? '' : oneof.slice(0, cut);
  const name = oneof.slice(cut + 1);
  let level: Fields = fields;
  for (const key of at ? at.split('.') : []) level = level[key]?.fields ?? {};
  const message = at ? getPath(value, at) : value;
  if (!isObject(message)) return undefined;
  const members = Object.entries(level).filter(([, spec]) => spec.oneof === name).map(([key]) => key);
  if (members.length === 0) throw new Error(`no oneof "${oneof}" in the contract`);
  const set = members.filter((key) => !isUnset(message[key]));
  return set.length === 1 ? undefined : { field: at ? `${at}.${members[0]}` : members[0]!, members };
}

/** An unset value in proto3 terms: absent, null, or a string's or list's empty value. */
function isUnset(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/** The paths of REQUIRED fields `value` leaves unset; a message's own required fields count only where the message is set. */
function unsetRequired(fields: Fields, value: Readonly<Record<string, unknown>>, prefix = ''): string[] {
  const unset: string[] = [];
  for (const [key, spec] of Object.entries(fields)) {
    if (spec.outputOnly) continue;
    const given = Object.hasOwn(value, key) ? value[key] : undefined;
    if (spec.required && isUnset(given)) {
      unset.push(prefix + key);
      continue;
    }
    if (!spec.fields) continue;
    if (spec.repeated && Array.isArray(given)) {
      given.forEach((item, i) => {
        if (isObject(item)) unset.push(...unsetRequired(spec.fields!, item, `${prefix}${key}.${i}.`));
      });
    } else if (isObject(given)) {
      unset.push(...unsetRequired(spec.fields, given, `${prefix}${key}.`));
    }
  }
  return unset;
}
