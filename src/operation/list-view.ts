/**
 * What a standard List shows of each resource. The contract leaves some
 * fields out of List responses (an identity provider's SCIM token expiry and
 * credential state: "populated on Get; omitted from List"); a mapping marks
 * them `listOmits`, and a page shows them at their zero value, as protojson
 * writes an unset field. The runner applies it to both backends' pages, so
 * the modes cannot differ. Pure.
 */
import type { FieldSpec } from '../vocabulary/resource.ts';
import { isObject, type Json } from '../vocabulary/json.ts';
import { zeroOf } from '../vocabulary/document.ts';

type Fields = Readonly<Record<string, FieldSpec>>;

const OMITS = new WeakMap<Fields, boolean>();

/** Whether any field, at any depth, is left out of List answers. */
function omitsAny(fields: Fields): boolean {
  let omits = OMITS.get(fields);
  if (omits === undefined) {
    omits = Object.values(fields).some((spec) => spec.listOmits || (spec.fields !== undefined && omitsAny(spec.fields)));
    OMITS.set(fields, omits);
  }
  return omits;
}

/** The document as a List shows it: `listOmits` fields at their zero value (a copy; the argument is untouched). */
export function asListed(fields: Fields, doc: Json): Json {
  if (!omitsAny(fields)) return doc;
  const listed: Json = { ...doc };
  for (const [key, spec] of Object.entries(fields)) {
    if (!(key in listed)) continue;
    if (spec.listOmits) listed[key] = zeroOf(spec);
    else if (spec.fields && isObject(listed[key]) && !spec.repeated) listed[key] = asListed(spec.fields, listed[key] as Json);
  }
  return listed;
}
