/**
 * Moving values between the v1 and v2 shapes, driven by field specs:
 * rendering a v1 row as a v2 resource (renames, enum names, millisecond
 * timestamps, int64 as strings, every field present), reading request bodies in
 * either spelling, and writing v2 values into v1 bodies.
 */
import { camelToSnake, ownValue } from '../aip/names.ts';
import { toMillisTimestamp } from '../aip/time.ts';
import { invalidField } from '../aip/errors.ts';
import { maskFromBody, maskPaths, parseMask } from '../aip/field-mask.ts';
import type { FieldSpec, FieldType } from './mapping.ts';
import { compileRenderer, type FieldPlan, type TableRenderer } from './compiled-render.ts';

type Fields = Readonly<Record<string, FieldSpec>>;
export type Json = Record<string, unknown>;

/** Finds the v1 value a lookup names; undefined while the reference is not hydrated. */
export type LookupResolver = (resource: string, id: string, pick: string) => unknown;

export function typeOf(spec: FieldSpec): FieldType {
  return spec.type ?? (spec.fields ? 'message' : 'string');
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Dotted paths split once: a List reads the same few paths of every row. Bounded, as some paths come from clients. */
const SEGMENTS = new Map<string, readonly string[]>();
const MAX_REMEMBERED_PATHS = 10_000;

/** The value at a dotted path, through own properties only (never one Object.prototype lends). */
export function getPath(obj: unknown, path: string): unknown {
  if (!path.includes('.')) return isObject(obj) ? ownValue(obj, path) : undefined;
  let segments = SEGMENTS.get(path);
  if (!segments) {
    segments = path.split('.');
    if (SEGMENTS.size < MAX_REMEMBERED_PATHS) SEGMENTS.set(path, segments);
  }
  let value: unknown = obj;
  for (const segment of segments) {
    if (!isObject(value)) return undefined;
    value = ownValue(value, segment);
  }
  return value;
}

/** Sets an own property, even one named `__proto__` (which plain assignment would take as the prototype). */
function setOwn(target: Json, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

function zeroValue(spec: FieldSpec): unknown {
  if (spec.repeated) return [];
  switch (typeOf(spec)) {
    case 'string': return '';
    case 'bool': return false;
    case 'int': return 0;
    case 'int64': return '0';
    case 'enum': return spec.enum?.zero ?? '';
    case 'map': return {};
    default: return null;
  }
}

// ---- v1 → v2 -------------------------------------------------------------

/** Each field table's entries, listed once per table rather than once per rendered row. */
const ENTRIES = new WeakMap<Fields, readonly (readonly [string, FieldSpec])[]>();

function entriesOf(fields: Fields): readonly (readonly [string, FieldSpec])[] {
  let entries = ENTRIES.get(fields);
  if (!entries) {
    entries = Object.entries(fields);
    ENTRIES.set(fields, entries);
  }
  return entries;
}

/** A message without fields of its own: one table, so it is compiled once, not once per value rendered. */
const NO_FIELDS: Fields = Object.freeze({});

/** Each field table's renderer (compiled-render.ts), made the first time the table renders a row. */
const RENDERERS = new WeakMap<Fields, TableRenderer>();

/** A v1 row as its v2 resource: renames, enum names, millisecond timestamps, int64 as strings, every field present. */
export function renderV2(fields: Fields, v1: Json, resolve?: LookupResolver): Json {
  let render = RENDERERS.get(fields);
  if (!render) {
    // Named in profiles by its first few fields: a table has no name of its own.
    render = compileRenderer(entriesOf(fields).flatMap(([key, spec]) => planField(key, spec)), Object.keys(fields).slice(0, 3).join(','));
    RENDERERS.set(fields, render);
  }
  return render(v1, resolve);
}

/**
 * renderV2 worked out from the specs field by field, as it was before it was compiled: what the
 * compiled renderers are held to (test/engine/compiled-render.test.ts).
 */
export function renderV2BySpec(fields: Fields, v1: Json, resolve?: LookupResolver): Json {
  const out: Json = {};
  for (const [key, spec] of entriesOf(fields)) {
    const value = renderField(spec, key, v1, resolve);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

const MEMBER_TYPES: ReadonlySet<FieldType> = new Set(['string', 'bool', 'int', 'int64', 'enum', 'timestamp', 'map']);

/**
 * How a field renders: a scalar (or map) that is a top-level member of the v1 row, read by the compiled
 * renderer itself; anything else (a message, a list, a lookup, a dotted or whole-row source) by renderField.
 * A field never shown (input-only, secret) has no plan.
 */
function planField(key: string, spec: FieldSpec): FieldPlan[] {
  if (spec.inputOnly || spec.secret) return [];
  const source = spec.v1 === undefined ? key : spec.v1;
  const type = typeOf(spec);
  // `__proto__` as a member name reads the prototype in generated code; renderField reads the own member.
  if (!spec.lookup && !spec.repeated && !spec.keys && MEMBER_TYPES.has(type) && source !== null && source !== '.' && !source.includes('.') && source !== '__proto__') {
    const zero = zeroValue(spec);
    return [{
      kind: 'member',
      key,
      source,
      type: type as Extract<FieldPlan, { kind: 'member' }>['type'],
      omitWhenUnset: Boolean(spec.oneof || spec.optional),
      // A map's zero is a new `{}` on every row, made by the compiled renderer itself.
      zero: type === 'map' ? null : (zero as string | number | boolean | null),
      names: type === 'enum' ? spec.enum?.v1ToV2 : undefined,
    }];
  }
  return [{ kind: 'rendered', key, render: (v1, resolve) => renderField(spec, key, v1, resolve) }];
}

/** Adjusts a top-level field's rendered value (kept times fill a blank one). */
export type AdjustField = (spec: FieldSpec, value: unknown, v1: Json) => unknown;

/**
 * Reads one v2 path of v1 rows as `getPath(renderV2(fields, row), path)` would,
 * without rendering the row: what a List's filters and order read of every row,
 * while only the page's rows are rendered whole. The path is split once here,
 * not once per row.
 */
export function v2PathReader(fields: Fields, path: string, adjust?: AdjustField): (v1: Json) => unknown {
  const dot = path.indexOf('.');
  const key = dot < 0 ? path : path.slice(0, dot);
  const rest = dot < 0 ? undefined : path.slice(dot + 1);
  const spec = ownValue(fields, key);
  if (!spec) return () => undefined;
  const render = fieldRenderer(spec, key);
  return (v1) => {
    const value = adjust ? adjust(spec, render(v1), v1) : render(v1);
    return rest === undefined ? value : getPath(value, rest);
  };
}

/**
 * renderField for one field, chosen once per reader rather than worked out from the spec on every row.
 * A plain string field (by its plan, a v1 member of its own, always present in v2: a uid, a name) is
 * read straight from its member, which is what renderField makes of it; anything else is rendered as
 * renderField renders it. A List reads its filters' and order's fields of every row of v1's list.
 */
function fieldRenderer(spec: FieldSpec, key: string): (v1: Json) => unknown {
  const [plan] = planField(key, spec);
  if (plan?.kind === 'member' && plan.type === 'string' && !plan.omitWhenUnset) {
    const source = plan.source;
    return (v1) => {
      const raw = isObject(v1) ? ownValue(v1, source) : undefined;
      return typeof raw === 'string' ? raw : '';
    };
  }
  return (v1) => renderField(spec, key, v1);
}

/**
 * The top-level members of a v1 row that a v2 path renders from (what v2PathReader reads),
 * or undefined when it renders from the whole row (a sub-message built from flat v1 fields).
 */
export function v1MembersOf(fields: Fields, path: string): string[] | undefined {
  const key = path.split('.')[0]!;
  const spec = ownValue(fields, key);
  if (!spec) return [];
  const source = spec.lookup ? spec.lookup.by : spec.v1 === undefined ? key : spec.v1;
  if (source === null) return [];
  return source === '.' ? undefined : [source.split('.')[0]!];
}

function renderField(spec: FieldSpec, key: string, v1: Json, resolve?: LookupResolver): unknown {
  if (spec.inputOnly || spec.secret) return undefined;
  if (spec.lookup) {
    const id = getPath(v1, spec.lookup.by);
    const found = typeof id === 'string' && id ? resolve?.(spec.lookup.resource, id, spec.lookup.pick) : undefined;
    return found ?? zeroValue(spec);
  }
  const source = spec.v1 === undefined ? key : spec.v1;
  const raw = source === null ? undefined : source === '.' ? v1 : getPath(v1, source);
  if ((spec.oneof || spec.optional) && (raw === undefined || raw === null)) return undefined;
  if (spec.repeated) {
    if (!Array.isArray(raw)) return [];
    const items = raw.map((item) => renderValue(spec, item, resolve));
    // An enum value this table does not know is dropped, as the SDK's StringifyAll does.
    return typeOf(spec) === 'enum' ? items.filter((v) => v !== undefined) : items;
  }
  return renderValue(spec, raw, resolve) ?? zeroValue(spec);
}

function renderValue(spec: FieldSpec, raw: unknown, resolve?: LookupResolver): unknown {
  if (raw === undefined || raw === null) return undefined;
  switch (typeOf(spec)) {
    case 'message': return isObject(raw) ? renderV2(spec.fields ?? NO_FIELDS, raw, resolve) : undefined;
    case 'map': return isObject(raw) ? renameKeys(raw, spec.keys?.v1ToV2) : undefined;
    case 'timestamp': return toMillisTimestamp(raw) ?? undefined;
    case 'int64': return typeof raw === 'string' || typeof raw === 'number' ? String(raw) : undefined;
    case 'enum': return typeof raw === 'string' ? (spec.enum ? ownValue(spec.enum.v1ToV2, raw) : raw) : undefined;
    // A value of the wrong JSON type (v1 lying, or a proxy rewriting it) is left out like the cases above, so
    // what the gateway answers always fits the contract's message.
    case 'string': return typeof raw === 'string' ? raw : undefined;
    case 'bool': return typeof raw === 'boolean' ? raw : undefined;
    case 'int': return Number.isInteger(raw) ? raw : undefined;
    default: return raw;
  }
}

/** A copy of a map with its keys renamed where `names` knows them (a map keyed by an enum's names). */
export function renameKeys(map: Json, names: Readonly<Record<string, string>> | undefined): Json {
  if (!names) return { ...map };
  const out: Json = {};
  for (const [key, value] of Object.entries(map)) setOwn(out, Object.hasOwn(names, key) ? names[key]! : key, value);
  return out;
}

// ---- request bodies --------------------------------------------------------

export interface ReadBody {
  value: Json;
  /** Keys that name no field (dotted paths), for callers that must refuse them. */
  unknown: string[];
}

/** Reads a body whose keys may be JSON names or proto names into JSON-named keys. */
export function readBody(fields: Fields, body: Json, prefix = ''): ReadBody {
  const byInputName = new Map<string, string>();
  for (const key of Object.keys(fields)) {
    byInputName.set(key, key);
    byInputName.set(camelToSnake(key), key);
  }
  const value: Json = {};
  const unknown: string[] = [];
  for (const [inputKey, raw] of Object.entries(body)) {
    const key = byInputName.get(inputKey);
    const spec = key === undefined ? undefined : ownValue(fields, key);
    if (!key || !spec) {
      unknown.push(prefix + inputKey);
      continue;
    }
    setOwn(value, key, readNested(spec, raw, `${prefix}${key}.`, unknown));
  }
  return { value, unknown };
}

function readNested(spec: FieldSpec, raw: unknown, prefix: string, unknown: string[]): unknown {
  if (typeOf(spec) !== 'message' || !spec.fields) return raw;
  const one = (item: unknown) => {
    if (!isObject(item)) return item;
    const nested = readBody(spec.fields!, item, prefix);
    unknown.push(...nested.unknown);
    return nested.value;
  };
  return spec.repeated && Array.isArray(raw) ? raw.map(one) : one(raw);
}

// ---- v2 → v1 ---------------------------------------------------------------

function writeKey(spec: FieldSpec, key: string): string | null {
  if (spec.v1Write) return spec.v1Write;
  return spec.v1 === undefined ? key : spec.v1;
}

function writeValue(spec: FieldSpec, value: unknown): unknown {
  if (value === undefined || value === null) return value;
  if (spec.repeated && Array.isArray(value)) return value.map((item) => writeValue({ ...spec, repeated: false }, item));
  switch (typeOf(spec)) {
    case 'message': return isObject(value) ? toV1(spec.fields ?? {}, value) : value;
    case 'enum': return typeof value === 'string' ? spec.enum?.v2ToV1[value] ?? value : value;
    case 'map': return isObject(value) ? renameKeys(value, spec.keys?.v2ToV1) : value;
    default: return value;
  }
}

function setPath(target: Json, path: string, value: unknown): void {
  const segments = path.split('.');
  let node = target;
  for (const segment of segments.slice(0, -1)) {
    if (!isObject(ownValue(node, segment))) setOwn(node, segment, {});
    node = node[segment] as Json;
  }
  const last = segments[segments.length - 1]!;
  if (value === undefined) delete node[last];
  else setOwn(node, last, value);
}

/** The v1 body for the writable fields present in a v2 value (creates). */
export function toV1(fields: Fields, v2: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(v2)) {
    const spec = ownValue(fields, key);
    if (!spec || spec.outputOnly || spec.lookup || value === undefined) continue;
    const target = writeKey(spec, key);
    if (target === null) continue;
    const converted = writeValue(spec, value);
    if (target === '.' && isObject(converted)) Object.assign(out, converted);
    else setPath(out, target, converted);
  }
  return out;
}

/**
 * Sets the value at a v2 path inside `target`, walking the specs so that each
 * level uses the target's own key (`keyOf`) and value form (`convert`).
 * `undefined` clears; a path under a sub-message that does not exist is then
 * left alone rather than created. Setting a oneof member, at any depth, clears
 * its siblings, as protobuf would.
 */
function assignThroughSpecs(
  fields: Fields,
  target: Json,
  v2Path: string,
  value: unknown,
  keyOf: (spec: FieldSpec, key: string) => string | null,
  convert: (spec: FieldSpec, value: unknown) => unknown,
): void {
  const segments = v2Path.split('.');
  let level = fields;
  let node = target;
  for (let i = 0; i < segments.length; i++) {
    const key = segments[i]!;
    const spec = ownValue(level, key);
    if (!spec) return;
    const targetKey = keyOf(spec, key);
    if (targetKey === null) return;
    if (spec.oneof && value !== undefined && value !== null) {
      for (const [siblingKey, sibling] of Object.entries(level)) {
        if (siblingKey === key || sibling.oneof !== spec.oneof) continue;
        const siblingTarget = keyOf(sibling, siblingKey);
        if (siblingTarget && siblingTarget !== '.') setPath(node, siblingTarget, undefined);
      }
    }
    if (i === segments.length - 1) {
      setPath(node, targetKey, convert(spec, value));
      return;
    }
    if (targetKey !== '.') {
      if (!isObject(getPath(node, targetKey))) {
        if (value === undefined) return;
        setPath(node, targetKey, {});
      }
      node = getPath(node, targetKey) as Json;
    }
    level = spec.fields ?? {};
  }
}

/** Writes one v2 path's value into a v1 body in place (updates); `undefined` clears it, which a full-replacement PUT reads as the zero value. */
export function writeV1Path(fields: Fields, target: Json, v2Path: string, value: unknown): void {
  assignThroughSpecs(fields, target, v2Path, value, writeKey, writeValue);
}

/** Copies the value at a v2 path from one v2 object into another (absent clears it). */
export function copyV2Path(fields: Fields, from: Json, to: Json, path: string): void {
  assignThroughSpecs(fields, to, path, getPath(from, path), (_spec, key) => key, (_spec, value) => value);
}

/**
 * The paths whose rules an update must check. A path inside a oneof member
 * widens to the whole member: setting one field of a member that was not set
 * brings the member's other required fields into play.
 */
export function validationScope(fields: Fields, paths: readonly string[]): string[] {
  return [...new Set(paths.map((path) => {
    const top = path.split('.')[0]!;
    return ownValue(fields, top)?.oneof ? top : path;
  }))];
}

// ---- guarded fields on update ------------------------------------------------

/** The v2 paths of every field with the given flag, nested ones included. */
export function flaggedPaths(fields: Fields, flag: 'secret' | 'immutable', prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, spec] of Object.entries(fields)) {
    if (spec[flag]) out.push(prefix + key);
    else if (spec.fields && !spec.repeated) out.push(...flaggedPaths(spec.fields, flag, `${prefix}${key}.`));
  }
  return out;
}

function isCovered(path: string, paths: readonly string[]): boolean {
  return paths.some((p) => path === p || path.startsWith(`${p}.`));
}

/**
 * Checks an update's immutable and secret fields and says which paths must
 * keep their stored value although a written path covers them: an immutable
 * field the request does not restate, and a secret sent empty (or left out)
 * whose own path the mask does not name; likewise a top-level field locked
 * while another is set (`lockedWhileSet`). Changing an immutable or locked
 * field is INVALID_ARGUMENT; restating it is a no-op.
 */
export function pathsToKeep(fields: Fields, current: Json, request: Json, paths: readonly string[]): string[] {
  const keep: string[] = [];
  /** A field the request may restate or leave out (kept) but not change. */
  const fixed = (path: string, why: string) => {
    if (!isCovered(path, paths)) return;
    const wanted = getPath(request, path);
    if (wanted === undefined) keep.push(path);
    else if (JSON.stringify(wanted) !== JSON.stringify(getPath(current, path) ?? null)) throw invalidField(path, why);
  };
  for (const path of flaggedPaths(fields, 'immutable')) fixed(path, 'is immutable: it is set at create and cannot be changed');
  for (const [path, { lockedWhileSet }] of Object.entries(fields)) {
    if (lockedWhileSet && isObject(getPath(current, lockedWhileSet))) fixed(path, `is inherited while ${lockedWhileSet} is set, and cannot be changed here`);
  }
  for (const path of flaggedPaths(fields, 'secret')) {
    if (!isCovered(path, paths) || paths.includes(path)) continue;
    const wanted = getPath(request, path);
    if (wanted === undefined || wanted === '' || wanted === null) keep.push(path);
  }
  return keep;
}

/** Where a v2 path's value lives in a v1 write body; null when v1 has no place for it. */
export function v1WritePath(fields: Fields, v2Path: string): string | null {
  const out: string[] = [];
  let level: Fields = fields;
  for (const segment of v2Path.split('.')) {
    const spec = ownValue(level, segment);
    if (!spec) return null;
    const key = writeKey(spec, segment);
    if (key === null) return null;
    if (key !== '.') out.push(key);
    level = spec.fields ?? {};
  }
  return out.join('.');
}

/** Puts back, in a v1 write body, the values `before` held at the given v2 paths. */
export function restoreV1Paths(fields: Fields, before: Json, target: Json, v2Paths: readonly string[]): void {
  for (const v2Path of v2Paths) {
    const at = v1WritePath(fields, v2Path);
    if (at) setPath(target, at, structuredClone(getPath(before, at)));
  }
}

// ---- update requests -------------------------------------------------------

/**
 * A PATCH body and its mask, as both backends read them: the body in JSON
 * names, and the paths to change (the explicit mask, else the body's keys).
 * Without a mask an unknown key is an error, as grpc-gateway's mask
 * derivation makes it; with one, unknown keys are dropped as protojson does.
 */
/**
 * An update's body key that names no field of the resource is refused, with a mask as without: under
 * `update_mask=description`, `{"descripton": …}` would otherwise read as no description and clear it.
 */
function refuseUnknownKeys(unknown: readonly string[]): void {
  if (unknown.length > 0) throw invalidField(unknown[0]!, `could not find field "${unknown[0]}" in the resource`);
}

export function readUpdate(fields: Fields, body: Json, maskText: string | undefined): { value: Json; paths: string[] } {
  const { value, unknown } = readBody(fields, body);
  refuseUnknownKeys(unknown);
  const explicit = parseMask(maskText, fields);
  return { value, paths: maskPaths(explicit ?? maskFromBody(value, fields), fields) };
}
