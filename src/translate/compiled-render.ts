/**
 * A field table's v1 → v2 renderer as one function generated for that table,
 * from a plan of its fields (v1-row.ts makes the plans; what each field renders
 * is decided there, once per table).
 *
 * Why generated: renderV2 worked every field out of its spec on every row (its
 * type, its source, its zero value), and its reads of v1 members and writes of
 * v2 ones were made by code every table shares, so V8 could cache none of them:
 * in a CPU profile of Gets, V8's megamorphic property lookups called from the
 * renderer were ~1.4% of the gateway's CPU, more than the rendering itself. In
 * the generated function each read and write names its member, so V8 caches it
 * per table. A group row: 1,540 → 270 ns (median of 16 rounds, same process).
 *
 * Member names are put in the code as JSON string literals, and the plans come
 * from the mappings, never from a request. A field that is not a plain top-level
 * member of a scalar kind (a message, a list, a dotted or whole-row
 * source) is rendered by the function its plan carries.
 */
import { toMillisTimestamp } from '../aip/time.ts';
import type { Json } from '../vocabulary/json.ts';

/** How one v2 field is rendered from a v1 row. */
export type FieldPlan =
  | {
      readonly kind: 'member';
      readonly key: string;
      /** The v1 row's own member the value is read from (never inherited). */
      readonly source: string;
      readonly type: 'string' | 'bool' | 'int' | 'int64' | 'enum' | 'timestamp' | 'map';
      /** A oneof member or proto3 optional: left out when v1 has no value, rather than rendered as the zero value. */
      readonly omitWhenUnset: boolean;
      /** The zero value of a scalar (a timestamp's is null; a map's is a new `{}`, whatever this says). */
      readonly zero: string | number | boolean | null;
      /** An enum's v1 → v2 names; without them an enum's v1 name is its v2 name. */
      readonly names?: Readonly<Record<string, string>> | undefined;
    }
  | {
      readonly kind: 'rendered';
      readonly key: string;
      /** The field's value, or undefined to leave it out. */
      readonly render: (v1: Json) => unknown;
    };

export type TableRenderer = (v1: Json) => Json;

const EMPTY: Json = Object.freeze({}) as Json;

/** What a member's value renders as, given `raw`; undefined when it is not a value of its kind. */
function valueExpression(plan: Extract<FieldPlan, { kind: 'member' }>, names: string): string {
  switch (plan.type) {
    case 'string': return "typeof raw === 'string' ? raw : undefined";
    case 'bool': return "typeof raw === 'boolean' ? raw : undefined";
    case 'int': return 'Number.isInteger(raw) ? raw : undefined';
    case 'int64': return "typeof raw === 'string' || typeof raw === 'number' ? String(raw) : undefined";
    case 'timestamp': return 'millis(raw) ?? undefined';
    case 'map': return "typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? { ...raw } : undefined";
    // An enum value the table does not know is no value (the zero value is rendered); inherited names are not names.
    case 'enum': return plan.names ? `typeof raw === 'string' && hasOwn(${names}, raw) ? ${names}[raw] : undefined` : "typeof raw === 'string' ? raw : undefined";
  }
}

/** The statements rendering one field into `out`. */
function fieldCode(plan: FieldPlan, at: number): string {
  const key = JSON.stringify(plan.key);
  if (plan.kind === 'rendered') return `value = helpers[${at}](v1);\nif (value !== undefined) out[${key}] = value;`;
  const source = JSON.stringify(plan.source);
  const zero = plan.type === 'map' ? '{}' : JSON.stringify(plan.zero);
  const read = `raw = hasOwn(row, ${source}) ? row[${source}] : undefined;`;
  const value = `value = ${valueExpression(plan, `helpers[${at}]`)};`;
  if (plan.omitWhenUnset) return `${read}\nif (raw !== undefined && raw !== null) {\n${value}\nout[${key}] = value === undefined ? ${zero} : value;\n}`;
  return `${read}\n${value}\nout[${key}] = value === undefined ? ${zero} : value;`;
}

/** The plans' fields rendered in their order, each as its plan says; a v1 value that is not an object has no members. */
export function compileRenderer(plans: readonly FieldPlan[], name = 'table'): TableRenderer {
  const helpers = plans.map((plan) => (plan.kind === 'rendered' ? plan.render : plan.names));
  const body = [
    "'use strict';",
    `return function render(v1) {`,
    // Members are read off an object; a field rendered by its own function is given v1 as it came.
    "const row = typeof v1 === 'object' && v1 !== null && !Array.isArray(v1) ? v1 : EMPTY;",
    'const out = {};',
    'let raw, value;',
    ...plans.map(fieldCode),
    'return out;',
    '};',
    // Named in profiles and stack traces as the table it renders.
    `//# sourceURL=v2gw-render/${encodeURIComponent(name)}`,
  ].join('\n');
  return new Function('helpers', 'hasOwn', 'millis', 'EMPTY', body)(helpers, Object.hasOwn, toMillisTimestamp, EMPTY) as TableRenderer;
}
