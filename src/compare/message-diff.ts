/**
 * Two answers to one call, compared as messages of the contract, not as bytes
 * or JSON text. Both sides are first read into the method's response message
 * and written back in the contract's canonical JSON form, so an int64 sent as
 * a number or a string, an enum by name or number, a timestamp with three or
 * six fractional digits, and key order all come out the same (only the fields
 * whose JSON differs are read so; text fields alone differing are already in
 * that form, and are taken as they are). What is left is
 * walked with the message's descriptor, which says what each value is: an
 * absent field reads as its zero value, page tokens compare by presence, list
 * rows by position (when the caller asked for an order) or as sets keyed by
 * `uid`, and the OUTPUT_ONLY values a create assigns by shape only.
 */
import { fromJson, toJson, type DescField, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { fieldBehaviors } from '../contract/registry.ts';
import { isPlainText, textFields } from '../contract/text-fields.ts';
import { isObject, type Json } from '../vocabulary/json.ts';
import type { DiffClass, FieldDifference } from './classes.ts';

export interface DiffOptions {
  /** The caller asked for an order (`order_by`): rows compare by position. Otherwise as sets keyed by `uid`. */
  readonly ordered: boolean;
  /** The call created something: OUTPUT_ONLY values (uid, times) are the service's to assign, compared by shape. */
  readonly created: boolean;
}

/** The message's canonical JSON form, or undefined when it is not a message of this type. */
export function canonicalMessage(desc: DescMessage, json: unknown): Json | undefined {
  const read = (value: unknown) => toJson(desc, fromJson(desc, (value ?? {}) as JsonValue, { ignoreUnknownFields: true }), { alwaysEmitImplicit: true }) as Json;
  try {
    return read(json);
  } catch {
    // An answer built in this process may hold `undefined` where its wire form has no key at all.
    try {
      return read(JSON.parse(JSON.stringify(json ?? {})));
    } catch {
      return undefined;
    }
  }
}

/** Every difference between two response messages, one per field path (its most severe class). */
export function diffMessages(desc: DescMessage, a: unknown, b: unknown, options: DiffOptions): FieldDifference[] {
  // The same JSON is the same message: most answers of a healthy candidate end here, with no decoding.
  if (equalJson(a, b)) return [];
  // Only the fields whose JSON differs are read into messages: one that is the same JSON on both sides is
  // the same value, and reads as its zero value on both sides of what is walked.
  const [onlyA, onlyB] = differingFields(a, b);
  const found = new Map<string, DiffClass>();
  const walk: Walk = { ...options, found, rows: rowsField(desc) };
  // Text fields alone differing (a description, a name): their canonical form is the text as it is, so
  // the walk reads them without the two messages being made and written back.
  const plain = isObject(onlyA) && isObject(onlyB) ? plainTextFields(desc, onlyA, onlyB) : undefined;
  if (plain) walkFields(plain, onlyA as Json, onlyB as Json, '', walk);
  else {
    const left = canonicalMessage(desc, onlyA);
    const right = canonicalMessage(desc, onlyB);
    if (!left || !right) return left === right ? [] : [{ path: '(message)', class: 'value' }];
    walkMessage(desc, left, right, '', walk);
  }
  return [...found].map(([path, cls]) => ({ path, class: cls }));
}

/** Two answers cut to the top-level fields whose JSON differs (as they are, when either is not an object). */
function differingFields(a: unknown, b: unknown): [unknown, unknown] {
  if (!isObject(a) || !isObject(b)) return [a, b];
  const onlyA: Json = {};
  const onlyB: Json = {};
  for (const key in a) {
    if (equalJson(a[key], b[key])) continue;
    onlyA[key] = a[key];
    if (key in b) onlyB[key] = b[key];
  }
  // A key of both sides was weighed above (equalJson reads both ways alike): only b's own are left.
  for (const key in b) if (!Object.hasOwn(a, key) && b[key] !== undefined) onlyB[key] = b[key];
  return [onlyA, onlyB];
}

/**
 * The fields to walk when every key of both cut answers names a text field outside a oneof (contract/
 * text-fields.ts) and holds plain text or nothing: what reading them into the message and writing them
 * back gives (a missing value reads as the empty text, the zero value either way). Undefined otherwise
 * (a proto name, an unknown key, another kind of value): the messages are made.
 */
function plainTextFields(desc: DescMessage, onlyA: Json, onlyB: Json): DescField[] | undefined {
  const { byJsonName } = textFields(desc);
  for (const side of [onlyA, onlyB]) {
    for (const key in side) {
      const value = side[key];
      if (!byJsonName.has(key) || !(value === undefined || isPlainText(value))) return undefined;
    }
  }
  const fields: DescField[] = [];
  for (const key in onlyA) fields.push(byJsonName.get(key)!);
  for (const key in onlyB) if (!Object.hasOwn(onlyA, key)) fields.push(byJsonName.get(key)!);
  // In the descriptor's order, as the whole message's walk notes them.
  if (fields.length > 1) fields.sort((x, y) => desc.fields.indexOf(x) - desc.fields.indexOf(y));
  return fields;
}

interface Walk extends DiffOptions {
  readonly found: Map<string, DiffClass>;
  /** The List response's field of rows: a row that one side lacks there is hidden from the caller (access). */
  readonly rows: DescField | undefined;
}

const SEVERITY: Record<DiffClass, number> = { access: 0, dataLoss: 1, value: 2, cosmetic: 3 };

function note(walk: Walk, path: string, cls: DiffClass): void {
  const known = walk.found.get(path);
  if (known === undefined || SEVERITY[cls] < SEVERITY[known]) walk.found.set(path, cls);
}

/** Each message's field of rows (null: none), found once. */
const rowsFields = new WeakMap<DescMessage, DescField | null>();

/** A List response carries its rows in its one repeated message field beside the paging fields. */
function rowsField(desc: DescMessage): DescField | undefined {
  let rows = rowsFields.get(desc);
  if (rows === undefined) {
    rows = desc.fields.some((f) => f.name === 'next_page_token') ? (desc.fields.find((f) => f.fieldKind === 'list' && f.listKind === 'message') ?? null) : null;
    rowsFields.set(desc, rows);
  }
  return rows ?? undefined;
}

function join(prefix: string, name: string): string {
  return prefix ? `${prefix}.${name}` : name;
}

function walkMessage(desc: DescMessage, a: Json, b: Json, prefix: string, walk: Walk): void {
  walkFields(desc.fields, a, b, prefix, walk);
}

function walkFields(fields: readonly DescField[], a: Json, b: Json, prefix: string, walk: Walk): void {
  for (const field of fields) {
    const path = join(prefix, field.jsonName);
    const va = a[field.jsonName];
    const vb = b[field.jsonName];
    if (walk.created && fieldBehaviors(field).includes('OUTPUT_ONLY')) {
      if (shapeOf(va) !== shapeOf(vb)) note(walk, path, 'dataLoss');
      continue;
    }
    switch (field.fieldKind) {
      case 'scalar':
      case 'enum':
        compareLeaf(field, va, vb, path, walk);
        break;
      case 'message':
        if (isWellKnown(field.message)) compareLeaf(field, va, vb, path, walk);
        else walkMessage(field.message, asObject(va), asObject(vb), path, walk);
        break;
      case 'list':
        compareList(field, asArray(va), asArray(vb), path, walk);
        break;
      case 'map':
        compareMap(field, asObject(va), asObject(vb), path, walk);
        break;
    }
  }
}

function compareList(field: DescField & { fieldKind: 'list' }, a: unknown[], b: unknown[], path: string, walk: Walk): void {
  const rows = `${path}[]`;
  const missing: DiffClass = field === walk.rows ? 'access' : 'dataLoss';
  if (field.listKind !== 'message') {
    if (equalJson(a, b)) return;
    if (a.length !== b.length) note(walk, rows, 'dataLoss');
    // The same values in another order: nothing a caller reading them as a set would notice.
    else note(walk, rows, equalJson(sorted(a), sorted(b)) ? 'cosmetic' : 'value');
    return;
  }
  const element = field.message;
  const keyed = !walk.ordered && element.fields.some((f) => f.name === 'uid');
  if (keyed) {
    const byUid = new Map<string, Json>();
    for (const row of b) byUid.set(String(asObject(row).uid ?? ''), asObject(row));
    let matched = 0;
    for (const row of a) {
      const other = byUid.get(String(asObject(row).uid ?? ''));
      if (!other) {
        note(walk, rows, missing);
        continue;
      }
      matched++;
      compareRow(element, asObject(row), other, rows, walk);
    }
    if (matched < b.length) note(walk, rows, missing);
    return;
  }
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i++) compareRow(element, asObject(a[i]), asObject(b[i]), rows, walk);
  if (a.length !== b.length) note(walk, rows, missing);
}

function compareRow(element: DescMessage, a: Json, b: Json, path: string, walk: Walk): void {
  if (isWellKnown(element)) {
    if (!equalJson(a, b)) note(walk, path, 'value');
    return;
  }
  walkMessage(element, a, b, path, walk);
}

function compareMap(field: DescField & { fieldKind: 'map' }, a: Json, b: Json, path: string, walk: Walk): void {
  const entries = `${path}{}`;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!(key in a) || !(key in b)) {
      note(walk, entries, 'dataLoss');
      continue;
    }
    if (field.mapKind === 'message' && !isWellKnown(field.message)) walkMessage(field.message, asObject(a[key]), asObject(b[key]), entries, walk);
    else if (!equalJson(a[key], b[key])) note(walk, entries, 'value');
  }
}

function compareLeaf(field: DescField, a: unknown, b: unknown, path: string, walk: Walk): void {
  const za = isZero(field, a);
  const zb = isZero(field, b);
  // A page token is the server's own cursor: only whether there is a next page means anything.
  if (field.name.endsWith('page_token')) {
    if (za !== zb) note(walk, path, 'dataLoss');
    return;
  }
  if (za && zb) return;
  if (za || zb) return note(walk, path, 'dataLoss');
  if (equalJson(a, b)) return;
  note(walk, path, typeof a === 'string' && typeof b === 'string' && sameWords(a, b) ? 'cosmetic' : 'value');
}

/** Text that differs only in letter case, surrounding or repeated white space, or Unicode composition. */
function sameWords(a: string, b: string): boolean {
  return plainWords(a) === plainWords(b);
}

/** Text of ASCII alone, which composition leaves as it is: not handed to ICU to be composed. */
const ASCII = /^[\x00-\x7f]*$/;

function plainWords(text: string): string {
  return (ASCII.test(text) ? text : text.normalize('NFC')).trim().replace(/\s+/g, ' ').toLowerCase();
}

function isZero(field: DescField, value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === 0 || value === '0' || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) return Object.keys(value).length === 0;
  // The enum's zero value by name, as the canonical form writes it.
  return field.fieldKind === 'enum' && field.enum.values[0]?.name === value;
}

/** A value's shape for OUTPUT_ONLY fields a create assigns: set or not, and for a name, how many segments. */
function shapeOf(value: unknown): string {
  if (value === undefined || value === null || value === '') return 'absent';
  if (typeof value === 'string') return `string/${value.split('/').length}`;
  return typeof value;
}

function isWellKnown(desc: DescMessage): boolean {
  return desc.typeName.startsWith('google.protobuf.');
}

function asObject(value: unknown): Json {
  return isObject(value) ? value : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function sorted(values: unknown[]): string[] {
  return values.map((v) => JSON.stringify(v)).sort();
}

/** JSON values equal whatever the order of object keys (a key holding `undefined` is no key, as on the wire). */
export function equalJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => equalJson(v, b[i]));
  if (isObject(a) && isObject(b)) {
    let count = 0;
    for (const key in a) {
      if (a[key] === undefined) continue;
      count++;
      if (!equalJson(a[key], b[key])) return false;
    }
    for (const key in b) if (b[key] !== undefined) count--;
    return count === 0;
  }
  return false;
}
