/**
 * Moving values between the v1 and v2 shapes, driven by field specs:
 * rendering a v1 row as a v2 resource (renames, enum names, millisecond
 * timestamps, int64 as strings, every field present), reading request bodies in
 * either spelling, and writing v2 values into v1 bodies.
 */
import { camelToSnake } from '../aip/names.ts';
import { toMillisTimestamp } from '../aip/time.ts';
import type { FieldSpec, FieldType } from './mapping.ts';

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

export function getPath(obj: unknown, path: string): unknown {
  let value: unknown = obj;
  for (const segment of path.split('.')) {
    if (!isObject(value)) return undefined;
    value = value[segment];
  }
  return value;
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

export function renderV2(fields: Fields, v1: Json, resolve?: LookupResolver): Json {
  const out: Json = {};
  for (const [key, spec] of Object.entries(fields)) {
    const value = renderField(spec, key, v1, resolve);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function renderField(spec: FieldSpec, key: string, v1: Json, resolve?: LookupResolver): unknown {
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
    case 'message': return isObject(raw) ? renderV2(spec.fields ?? {}, raw, resolve) : undefined;
    case 'map': return isObject(raw) ? { ...raw } : undefined;
    case 'timestamp': return toMillisTimestamp(raw) ?? undefined;
    case 'int64': return String(raw);
    case 'enum': return typeof raw === 'string' ? spec.enum?.v1ToV2[raw] ?? (spec.enum ? undefined : raw) : undefined;
    default: return raw;
  }
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
    if (!key) {
      unknown.push(prefix + inputKey);
      continue;
    }
    const spec = fields[key]!;
    value[key] = readNested(spec, raw, `${prefix}${key}.`, unknown);
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
    default: return value;
  }
}

function setPath(target: Json, path: string, value: unknown): void {
  const segments = path.split('.');
  let node = target;
  for (const segment of segments.slice(0, -1)) {
    if (!isObject(node[segment])) node[segment] = {};
    node = node[segment] as Json;
  }
  const last = segments[segments.length - 1]!;
  if (value === undefined) delete node[last];
  else node[last] = value;
}

/** The v1 body for the writable fields present in a v2 value (creates). */
export function toV1(fields: Fields, v2: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(v2)) {
    const spec = fields[key];
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
 * Writes one v2 path's value into a v1 body in place (updates). `undefined`
 * clears it, which a full-replacement PUT reads as the zero value. Setting a
 * oneof member clears its siblings, as protobuf would.
 */
export function writeV1Path(fields: Fields, target: Json, v2Path: string, value: unknown): void {
  const segments = v2Path.split('.');
  let level = fields;
  let node = target;
  for (let i = 0; i < segments.length; i++) {
    const key = segments[i]!;
    const spec = level[key];
    if (!spec) return;
    const v1Key = writeKey(spec, key);
    if (v1Key === null) return;
    if (spec.oneof && value !== undefined) clearOneofSiblings(level, key, spec.oneof, node);
    if (i === segments.length - 1) {
      setPath(node, v1Key, writeValue(spec, value));
      return;
    }
    if (v1Key !== '.') {
      if (!isObject(getPath(node, v1Key))) setPath(node, v1Key, {});
      node = getPath(node, v1Key) as Json;
    }
    level = spec.fields ?? {};
  }
}

function clearOneofSiblings(level: Fields, key: string, oneof: string, node: Json): void {
  for (const [siblingKey, sibling] of Object.entries(level)) {
    if (siblingKey === key || sibling.oneof !== oneof) continue;
    const v1Key = writeKey(sibling, siblingKey);
    if (v1Key && v1Key !== '.') setPath(node, v1Key, undefined);
  }
}

/**
 * Copies the value at a v2 path from one v2 object into another (undefined
 * clears it); a oneof member that becomes set pushes its siblings out.
 */
export function copyV2Path(fields: Fields, from: Json, to: Json, path: string): void {
  const value = getPath(from, path);
  const top = path.split('.')[0]!;
  const spec = fields[top];
  if (spec?.oneof && value !== undefined && value !== null) {
    for (const [key, sibling] of Object.entries(fields)) {
      if (key !== top && sibling.oneof === spec.oneof) delete to[key];
    }
  }
  setPath(to, path, value);
}
