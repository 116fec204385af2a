/**
 * v2 values written into v1 bodies, driven by field specs: a create's body,
 * and the paths an update changes, written into (and restored in) v1's own row.
 */
import { ownValue } from '../aip/names.ts';
import { getPath, isObject, renameKeys, setPath, type Json } from '../vocabulary/json.ts';
import { assignThroughSpecs } from '../vocabulary/field-paths.ts';
import { typeOf, type FieldSpec } from '../vocabulary/resource.ts';

type Fields = Readonly<Record<string, FieldSpec>>;

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

/** The v1 body for the writable fields present in a v2 value (creates). */
export function toV1(fields: Fields, v2: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(v2)) {
    const spec = ownValue(fields, key);
    if (!spec || spec.outputOnly || value === undefined) continue;
    const target = writeKey(spec, key);
    if (target === null) continue;
    const converted = writeValue(spec, value);
    if (target === '.' && isObject(converted)) Object.assign(out, converted);
    else setPath(out, target, converted);
  }
  return out;
}

/** Writes one v2 path's value into a v1 body in place (updates); `undefined` clears it, which a full-replacement PUT reads as the zero value. */
export function writeV1Path(fields: Fields, target: Json, v2Path: string, value: unknown): void {
  assignThroughSpecs(fields, target, v2Path, value, writeKey, writeValue);
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
