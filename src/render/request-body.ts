/**
 * Request bodies as the runner reads them: keys in either spelling (JSON or
 * proto names) into JSON names, and a PATCH body with its update mask.
 */
import { camelToSnake, ownValue } from '../aip/names.ts';
import { invalidField } from '../aip/errors.ts';
import { maskFromBody, maskPaths, parseMask } from '../aip/field-mask.ts';
import { setOwn, isObject, type Json } from '../vocabulary/json.ts';
import { typeOf, type FieldSpec } from '../vocabulary/resource.ts';

type Fields = Readonly<Record<string, FieldSpec>>;

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

/**
 * A PATCH body and its mask, as both backends read them: the body in JSON
 * names, and the paths to change (the explicit mask, else the body's keys).
 * A body key that names no field is refused, with a mask as without: under
 * `update_mask=description`, `{"descripton": …}` would otherwise read as no
 * description and clear it.
 */
export function readUpdate(fields: Fields, body: Json, maskText: string | undefined): { value: Json; paths: string[] } {
  const { value, unknown } = readBody(fields, body);
  if (unknown.length > 0) throw invalidField(unknown[0]!, `could not find field "${unknown[0]}" in the resource`);
  const explicit = parseMask(maskText, fields);
  return { value, paths: maskPaths(explicit ?? maskFromBody(value, fields), fields) };
}
