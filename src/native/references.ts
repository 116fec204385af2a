/**
 * Read-time references (NativeSpec.references): fields that show another
 * row as it is now — a role binding's identity, group and role, an invite's
 * role, a sub-group's kind inherited from its organisation. The uids a page
 * needs are gathered first and fetched with one store query per kind and
 * chunk, never one per row.
 */
import { invalidField } from '../aip/errors.ts';
import type { FieldSpec, ResourceMapping } from '../vocabulary/resource.ts';
import { getPath, type Json } from '../vocabulary/json.ts';
import type { ResourceStore, StoredResource } from '../store/types.ts';
import { normalize, zeroOf } from './document.ts';
import type { NativeReference } from '../vocabulary/native.ts';
import { currentSpan, inChildSpan } from '../observability/tracing.ts';

/** Uids per store query: keeps parameter lists well inside both engines' limits. */
const CHUNK = 500;

/** The uid a reference points at from `row`, or undefined when unset. */
export function referencedUid(reference: NativeReference, row: Pick<StoredResource, 'uid' | 'parent' | 'body'>): string | undefined {
  let uid: unknown;
  if (reference.by === '@parent') uid = row.parent;
  else if (reference.by === '@root') uid = row.uid.split('/')[0];
  else uid = getPath(row.body, reference.by);
  return typeof uid === 'string' && uid !== '' ? uid : undefined;
}

/** Up to this many uids are read one by one (a keyed lookup each); more go through `list` with an `in` filter. */
const ONE_BY_ONE = 16;

/** Fetches rows of one kind by uid. */
export async function fetchByUid(store: ResourceStore, kind: string, uids: readonly string[]): Promise<Map<string, StoredResource>> {
  const found = new Map<string, StoredResource>();
  const unique = [...new Set(uids)];
  if (unique.length <= ONE_BY_ONE) {
    for (const row of await Promise.all(unique.map((uid) => store.get(kind, uid)))) if (row) found.set(row.uid, row);
    return found;
  }
  for (let i = 0; i < unique.length; i += CHUNK) {
    const chunk = unique.slice(i, i + CHUNK);
    const { rows } = await store.list({
      kind,
      filters: [{ field: 'uid', op: 'in', value: chunk }],
      order: [{ field: 'uid', desc: false }],
      skip: 0,
      limit: chunk.length,
    });
    for (const row of rows) found.set(row.uid, row);
  }
  return found;
}

/** The referenced document as the picking sees it: the stored body with its uid and times. */
function viewOf(row: StoredResource): Json {
  return { ...row.body, uid: row.uid, createTime: row.createTime, updateTime: row.updateTime };
}

/**
 * Sets every reference field of the documents rendered from `rows` (same
 * order), in place.
 */
export async function hydrateReferences(store: ResourceStore, mapping: ResourceMapping, rows: readonly StoredResource[], docs: readonly Json[]): Promise<void> {
  const references = Object.entries(mapping.native?.references ?? {});
  if (references.length === 0 || rows.length === 0) return;

  const wanted = new Map<string, string[]>();
  for (const row of rows) {
    for (const [, reference] of references) {
      const uid = referencedUid(reference, row);
      if (uid) wanted.set(reference.kind, [...(wanted.get(reference.kind) ?? []), uid]);
    }
  }
  const fetched = new Map<string, Map<string, StoredResource>>();
  const lookups = [...wanted.values()].reduce((sum, uids) => sum + uids.length, 0);
  // A step of the request's trace: its store queries are this span's children.
  await inChildSpan(currentSpan(), `hydrate ${mapping.name}`, { 'v2gw.resource': mapping.name, 'v2gw.hydration.lookups': lookups }, () =>
    Promise.all([...wanted].map(async ([kind, uids]) => fetched.set(kind, await fetchByUid(store, kind, uids)))));

  rows.forEach((row, i) => {
    for (const [field, reference] of references) {
      const spec = mapping.fields[field];
      if (!spec) throw new Error(`${mapping.name}: reference "${field}" names no field`);
      const uid = referencedUid(reference, row);
      const target = uid ? fetched.get(reference.kind)?.get(uid) : undefined;
      const value = target ? pick(reference, viewOf(target), spec) : zeroOf(spec);
      // An optional message whose row is gone is absent, as protojson leaves an unset optional out.
      if (value === undefined) delete docs[i]![field];
      else docs[i]![field] = value;
    }
  });
}

/** A copy of a value taken from another document: objects are cloned, primitives (the usual case) are not. */
function copied(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

function pick(reference: NativeReference, target: Json, spec: FieldSpec): unknown {
  if (typeof reference.pick === 'string') return copied(getPath(target, reference.pick)) ?? zeroOf(spec);
  const picked: Json = {};
  for (const [sub, path] of Object.entries(reference.pick)) picked[sub] = copied(getPath(target, path));
  // Zero-fill (and order) the message like any other, so a referenced field the target lacks still shows.
  return spec.fields ? normalize(spec.fields, picked, { keepOutputOnly: true, dropSecrets: true }) : picked;
}

/**
 * Refuses a write whose required references (NativeSpec.requires) name no
 * row: INVALID_ARGUMENT on the field holding the uid. Unset ones are left to
 * validation. `only`: check just the fields under these paths (an update's mask).
 */
export async function requireReferenced(store: ResourceStore, mapping: ResourceMapping, document: Json, only?: readonly string[]): Promise<void> {
  for (const [field, kind] of Object.entries(mapping.native?.requires ?? {})) {
    if (only && !only.some((path) => field === path || field.startsWith(`${path}.`))) continue;
    const uid = getPath(document, field);
    if (typeof uid !== 'string' || uid === '') continue;
    if (!(await store.get(kind, uid))) throw invalidField(field, `${kind} "${uid}" does not exist`);
  }
}
