/**
 * The v2 document as native mode keeps and serves it, driven by field specs:
 * every field present in the mapping's order, unset fields at the zero value
 * translate mode renders (oneof members and proto3 optionals absent instead),
 * int64 as strings, timestamps at millisecond precision. Pure.
 */
import { toMillisTimestamp } from '../aip/time.ts';
import type { FieldSpec } from '../vocabulary/resource.ts';
import { isObject, type Json } from '../vocabulary/json.ts';
import { renderV2 } from '../render/v1-row.ts';
import { typeOf } from '../vocabulary/resource.ts';

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

/**
 * A field's zero value exactly as translate mode renders an absent v1 value,
 * taken from the shared renderer so the two modes cannot drift apart;
 * `undefined` for oneof members and optionals, which are then absent.
 */
export function zeroOf(spec: FieldSpec): unknown {
  if (!ZEROS.has(spec)) {
    const { lookup: _lookup, secret: _secret, inputOnly: _inputOnly, ...plain } = spec;
    ZEROS.set(spec, renderV2({ zero: { ...plain, v1: null } }, {}).zero);
  }
  const zero = ZEROS.get(spec);
  // [] and {} are handed out fresh: documents are mutated after they are built.
  return typeof zero === 'object' && zero !== null ? structuredClone(zero) : zero;
}

/** Zero values by spec: rendering one is cheap, but a page renders thousands. */
const ZEROS = new WeakMap<FieldSpec, unknown>();

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
    case 'map': return isObject(raw) ? { ...raw } : undefined;
    case 'timestamp': return toMillisTimestamp(raw) ?? undefined;
    case 'int64': return typeof raw === 'number' || typeof raw === 'string' ? String(raw) : undefined;
    default: return typeof raw === 'object' ? structuredClone(raw) : raw;
  }
}
