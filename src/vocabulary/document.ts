/**
 * The v2 document in its normal form, driven by field specs: every field
 * present in the mapping's order, unset fields at their zero value (oneof
 * members and proto3 optionals absent instead), int64 as strings, timestamps
 * at millisecond precision. The store keeps documents in this form and the
 * render stage serves them in it; a v1 row rendered (translate/v1-row.ts) has the
 * same zero values. Pure.
 */
import { toMillisTimestamp } from '../aip/time.ts';
import { isObject, renameKeys, type Json } from './json.ts';
import { typeOf, type FieldSpec } from './resource.ts';

type Fields = Readonly<Record<string, FieldSpec>>;

export interface NormalizeOptions {
  /** Keep output-only values found in `value` (stored documents); otherwise they start at zero (requests). */
  keepOutputOnly: boolean;
  /** Leave secret fields out (responses). */
  dropSecrets?: boolean;
  /**
   * `value` is a stored document, normalised when it was written and decoded
   * afresh for this call: its scalars are taken as they are and nothing is
   * cloned (a page renders thousands of values).
   */
  stored?: boolean;
}

/** A field's zero value, as both modes render an unset field (a message's is null, a timestamp's too). */
export function zeroValue(spec: FieldSpec): unknown {
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

/**
 * What an unset field shows: its zero value, or `undefined` for oneof members
 * and optionals, which are then absent. A fresh [] or {} each time: documents
 * are mutated after they are built.
 */
export function zeroOf(spec: FieldSpec): unknown {
  return spec.oneof || spec.optional ? undefined : zeroValue(spec);
}

/** The document built from `value` under `fields` (see NormalizeOptions); keys no field declares are dropped. */
export function normalize(fields: Fields, value: Json, options: NormalizeOptions): Json {
  const out: Json = {};
  for (const [key, spec] of Object.entries(fields)) {
    if (spec.inputOnly || (options.dropSecrets && spec.secret)) continue;
    const given = spec.outputOnly && !options.keepOutputOnly ? undefined : value[key];
    const normalized = given === undefined || given === null ? undefined : normalizeValue(spec, given, options);
    const result = normalized === undefined ? zeroOf(spec) : normalized;
    if (result !== undefined) out[key] = result;
  }
  return out;
}

function normalizeValue(spec: FieldSpec, raw: unknown, options: NormalizeOptions): unknown {
  if (spec.repeated) {
    if (!Array.isArray(raw)) return undefined;
    return raw.map((item) => normalizeOne(spec, item, options)).filter((item) => item !== undefined);
  }
  return normalizeOne(spec, raw, options);
}

function normalizeOne(spec: FieldSpec, raw: unknown, options: NormalizeOptions): unknown {
  if (raw === undefined || raw === null) return undefined;
  const type = typeOf(spec);
  if (options.stored && type !== 'message') return raw;
  switch (type) {
    case 'message': return isObject(raw) ? normalize(spec.fields ?? {}, raw, options) : undefined;
    // Kept in v2's spelling whichever the client used.
    case 'map': return isObject(raw) ? renameKeys(raw, spec.keys?.v1ToV2) : undefined;
    case 'timestamp': return toMillisTimestamp(raw) ?? undefined;
    case 'int64': return typeof raw === 'number' || typeof raw === 'string' ? String(raw) : undefined;
    default: return typeof raw === 'object' ? structuredClone(raw) : raw;
  }
}
