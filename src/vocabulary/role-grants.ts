/**
 * What a write grants, read from its value as the mapping declares it
 * (`ResourceMapping.grants`), and the rule that what a grant names stays
 * inside the organisation it is granted in: a role built in or defined at the
 * group or above it, an identity that is a user (root-level) or of that
 * organisation. Decided from uids alone, never from a read, so a refusal is
 * the same whether the foreign resource exists or not and describes nothing
 * of it. Pure.
 */
import { coveredBy } from '../aip/field-mask.ts';
import { invalidArgument, type FieldViolation } from '../aip/errors.ts';
import { isInRoot, parentOf } from '../uidp.ts';
import { getPath, type Json } from './json.ts';
import type { GrantSpec } from './resource.ts';

/** One write's grant: what it hands out, at which group, to whom (unset parts are undefined). */
export interface Grant {
  /** The group it is granted at; '' when the write names none. */
  readonly at: string;
  readonly role: string | undefined;
  readonly capabilities: readonly string[] | undefined;
  readonly identity: string | undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function organisationOf(uid: string): string {
  return uid.split('/')[0]!;
}

/** The fields of a grant declaration (the at-field too, when the group is a field). */
function grantFields(spec: GrantSpec): string[] {
  return [spec.role, spec.capabilities, spec.identity, spec.at === '@parent' ? undefined : spec.at].filter((f): f is string => !!f);
}

/** The grant a resource's value makes; `group` is the group the resource sits in. */
export function grantOf(spec: GrantSpec, value: Json, group: string): Grant {
  const capabilities = spec.capabilities ? getPath(value, spec.capabilities) : undefined;
  return {
    at: spec.at === '@parent' ? group : (text(getPath(value, spec.at)) ?? ''),
    role: spec.role ? text(getPath(value, spec.role)) : undefined,
    capabilities: Array.isArray(capabilities) ? capabilities.map(String) : undefined,
    identity: spec.identity ? text(getPath(value, spec.identity)) : undefined,
  };
}

/** Whether an update's paths change what the resource grants (its role, capabilities, identity or group). */
export function changesGrant(spec: GrantSpec, paths: readonly string[]): boolean {
  return grantFields(spec).some((field) => coveredBy(field, paths));
}

/** A role may be granted at `at` when it is built in (a flat, root-level uid) or defined at `at` or one of its ancestors. */
export function roleWithin(role: string, at: string): boolean {
  if (isInRoot(role)) return true;
  const defined = parentOf(role);
  return at === defined || at.startsWith(`${defined}/`);
}

/** An identity may be granted a role at `at` when it is a user (a root-level identity) or lies in `at`'s organisation. */
export function identityWithin(identity: string, at: string): boolean {
  return isInRoot(identity) || (at !== '' && organisationOf(identity) === organisationOf(at));
}

/** Whether the grant's group lies in the organisation of the group the resource sits in. */
export function atWithin(grant: Grant, group: string): boolean {
  return grant.at !== '' && organisationOf(grant.at) === organisationOf(group);
}

/**
 * Refuses a grant that reaches outside its organisation: INVALID_ARGUMENT on
 * the field, saying what the field must name and nothing of what it names.
 * `paths`: an update's, whose uncovered fields are not checked (they are as
 * stored); `fieldPrefix` places the value inside a batch request.
 */
export function requireGrantWithin(spec: GrantSpec, value: Json, group: string, paths?: readonly string[], fieldPrefix = ''): void {
  const grant = grantOf(spec, value, group);
  const checked = (field: string | undefined): field is string => !!field && (!paths || coveredBy(field, paths));
  const violations: FieldViolation[] = [];
  const at = spec.at === '@parent' ? undefined : spec.at;
  const atOk = atWithin(grant, group);
  if (checked(at) && grant.at !== '' && !atOk) {
    violations.push({ field: fieldPrefix + at, description: `must be a group of the organisation ${organisationOf(group)}` });
  }
  if (checked(spec.role) && grant.role && !(atOk && roleWithin(grant.role, grant.at))) {
    violations.push({ field: fieldPrefix + spec.role, description: `must name a built-in role or a role defined at ${atOk ? grant.at : 'the group it is granted at'} or one of its ancestors` });
  }
  if (checked(spec.identity) && grant.identity && !(atOk && identityWithin(grant.identity, grant.at))) {
    violations.push({ field: fieldPrefix + spec.identity, description: `must name a user (a root-level identity) or an identity of the organisation ${organisationOf(group)}` });
  }
  if (violations.length > 0) throw invalidArgument(violations);
}
