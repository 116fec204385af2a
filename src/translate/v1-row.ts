/**
 * A v1 row as its v2 document, driven by field specs: renames, enum names,
 * millisecond timestamps, int64 as strings, every field present. The v1
 * adapter's declared conversion (V1Backend.rows), by which its rows reach the
 * render stage (a stored row is a v2 document already: vocabulary/document.ts). Also reads single v2
 * paths off v1 rows without rendering them, for a List's filters and order.
 */
import { ownValue } from '../aip/names.ts';
import { toMillisTimestamp } from '../aip/time.ts';
import { getPath, isObject, renameKeys, type Json } from '../vocabulary/json.ts';
import { zeroValue } from '../vocabulary/document.ts';
import { typeOf, type FieldSpec, type FieldType } from '../vocabulary/resource.ts';
import { compileRenderer, type FieldPlan, type TableRenderer } from './compiled-render.ts';

type Fields = Readonly<Record<string, FieldSpec>>;

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
export function renderV2(fields: Fields, v1: Json): Json {
  let render = RENDERERS.get(fields);
  if (!render) {
    // Named in profiles by its first few fields: a table has no name of its own.
    render = compileRenderer(entriesOf(fields).flatMap(([key, spec]) => planField(key, spec)), Object.keys(fields).slice(0, 3).join(','));
    RENDERERS.set(fields, render);
  }
  return render(v1);
}

/**
 * renderV2 worked out from the specs field by field, as it was before it was compiled: what the
 * compiled renderers are held to (test/translate/compiled-render.test.ts).
 */
export function renderV2BySpec(fields: Fields, v1: Json): Json {
  const out: Json = {};
  for (const [key, spec] of entriesOf(fields)) {
    const value = renderField(spec, key, v1);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

const MEMBER_TYPES: ReadonlySet<FieldType> = new Set(['string', 'bool', 'int', 'int64', 'enum', 'timestamp', 'map']);

/**
 * How a field renders: a scalar (or map) that is a top-level member of the v1 row, read by the compiled
 * renderer itself; anything else (a message, a list, a dotted or whole-row source) by renderField.
 * A field never shown (input-only, secret) has no plan.
 */
function planField(key: string, spec: FieldSpec): FieldPlan[] {
  if (spec.inputOnly || spec.secret) return [];
  const source = spec.v1 === undefined ? key : spec.v1;
  const type = typeOf(spec);
  // `__proto__` as a member name reads the prototype in generated code; renderField reads the own member.
  if (!spec.repeated && !spec.keys && MEMBER_TYPES.has(type) && source !== null && source !== '.' && !source.includes('.') && source !== '__proto__') {
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
  return [{ kind: 'rendered', key, render: (v1) => renderField(spec, key, v1) }];
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

/** Adjusts a field's read value by the row's index (a kept time filling a blank one: AdjustField). */
export type AdjustAt = (spec: FieldSpec, value: unknown, at: number) => unknown;

/**
 * v2PathReader over rows held by member (RowsByIndex.column): row `i`'s value of the path, read from the
 * column of the member it renders from, as v2PathReader reads it off the row. Undefined where the path
 * renders from the whole row, or from a member `column` does not hold.
 */
export function v2ColumnReader(fields: Fields, path: string, column: (name: string) => readonly unknown[] | undefined, adjust?: AdjustAt): ((at: number) => unknown) | undefined {
  const dot = path.indexOf('.');
  const key = dot < 0 ? path : path.slice(0, dot);
  const rest = dot < 0 ? undefined : path.slice(dot + 1);
  const spec = ownValue(fields, key);
  if (!spec) return () => undefined;
  const render = fieldColumnRenderer(spec, key, column);
  if (!render) return undefined;
  if (!adjust && rest === undefined) return render;
  return (at) => {
    const value = adjust ? adjust(spec, render(at), at) : render(at);
    return rest === undefined ? value : getPath(value, rest);
  };
}

/** fieldRenderer of rows held by member: the member's value is the row's (getPath of the row, for a dotted source). */
function fieldColumnRenderer(spec: FieldSpec, key: string, column: (name: string) => readonly unknown[] | undefined): ((at: number) => unknown) | undefined {
  if (spec.inputOnly || spec.secret) return () => undefined;
  const source = spec.v1 === undefined ? key : spec.v1;
  if (source === null) return () => renderRaw(spec, undefined);
  if (source === '.') return undefined;
  const dot = source.indexOf('.');
  const values = column(dot < 0 ? source : source.slice(0, dot));
  if (!values) return undefined;
  const [plan] = planField(key, spec);
  if (plan?.kind === 'member' && plan.type === 'string' && !plan.omitWhenUnset) {
    return (at) => {
      const raw = values[at];
      return typeof raw === 'string' ? raw : '';
    };
  }
  const inside = dot < 0 ? undefined : source.slice(dot + 1);
  return (at) => renderRaw(spec, inside === undefined ? values[at] : getPath(values[at], inside));
}

/**
 * The top-level members of a v1 row that a v2 path renders from (what v2PathReader reads),
 * or undefined when it renders from the whole row (a sub-message built from flat v1 fields).
 */
export function v1MembersOf(fields: Fields, path: string): string[] | undefined {
  const key = path.split('.')[0]!;
  const spec = ownValue(fields, key);
  if (!spec) return [];
  const source = spec.v1 === undefined ? key : spec.v1;
  if (source === null) return [];
  return source === '.' ? undefined : [source.split('.')[0]!];
}

function renderField(spec: FieldSpec, key: string, v1: Json): unknown {
  if (spec.inputOnly || spec.secret) return undefined;
  const source = spec.v1 === undefined ? key : spec.v1;
  return renderRaw(spec, source === null ? undefined : source === '.' ? v1 : getPath(v1, source));
}

/** renderField of the value read from the field's source. */
function renderRaw(spec: FieldSpec, raw: unknown): unknown {
  if ((spec.oneof || spec.optional) && (raw === undefined || raw === null)) return undefined;
  if (spec.repeated) {
    if (!Array.isArray(raw)) return [];
    const items = raw.map((item) => renderValue(spec, item));
    // An enum value this table does not know is dropped, as the SDK's StringifyAll does.
    return typeOf(spec) === 'enum' ? items.filter((v) => v !== undefined) : items;
  }
  return renderValue(spec, raw) ?? zeroValue(spec);
}

function renderValue(spec: FieldSpec, raw: unknown): unknown {
  if (raw === undefined || raw === null) return undefined;
  switch (typeOf(spec)) {
    case 'message': return isObject(raw) ? renderV2(spec.fields ?? NO_FIELDS, raw) : undefined;
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
