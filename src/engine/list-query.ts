/**
 * A List request's filters, read against a mapping's filter declarations:
 * which reach v1 as query parameters, and the predicates the gateway applies to
 * every rendered row anyway (v1 silently ignores query keys it does not know, so
 * a filter is only trusted once the gateway has applied it itself).
 */
import { invalidField } from '../aip/errors.ts';
import { spellings } from '../aip/names.ts';
import type { RawQuery } from '../aip/list-request.ts';
import { isChildOf, isDescendantOf, isInRoot, isUidp } from '../uidp.ts';
import type { FilterSpec, ResourceMapping } from './mapping.ts';
import { getPath, type Json } from './shape.ts';
import type { QueryValue } from '../v1/client.ts';

type FilterValue = string | boolean | string[];

export interface ParsedFilters {
  /** Canonical filter values, for the query fingerprint. */
  canonical: Record<string, FilterValue>;
  v1Query: Record<string, QueryValue>;
  /** v2 field paths the predicates read. */
  fields: string[];
  matches: (row: Json) => boolean;
}

function readValue(name: string, spec: FilterSpec, raw: string | string[]): FilterValue {
  const values = Array.isArray(raw) ? raw : [raw];
  if (spec.uidp) {
    for (const v of values) if (!isUidp(v)) throw invalidField(name, `"${v}" is not a valid UIDP`);
  }
  if (spec.op === 'in') return values;
  if (values.length > 1) throw invalidField(name, 'must be given at most once');
  const value = values[0]!;
  if (spec.op === 'inRoot') {
    // grpc-gateway parses booleans with Go's strconv.ParseBool.
    if (!/^(1|t|T|TRUE|true|True|0|f|F|FALSE|false|False)$/.test(value)) throw invalidField(name, `"${value}" is not a boolean`);
    return /^(1|t|T|TRUE|true|True)$/.test(value);
  }
  return value;
}

function predicate(spec: FilterSpec, value: FilterValue): (row: Json) => boolean {
  const read = (row: Json) => getPath(row, spec.field);
  switch (spec.op) {
    case 'eq': return (row) => read(row) === value;
    case 'in': return (row) => (value as string[]).includes(read(row) as string);
    case 'descendantOf': return (row) => isDescendantOf(String(read(row)), value as string);
    case 'childOf': return (row) => isChildOf(String(read(row)), value as string);
    case 'ancestorOf': return (row) => isDescendantOf(value as string, String(read(row)));
    case 'inRoot': return (row) => isInRoot(String(read(row))) === value;
  }
}

export function parseFilters(mapping: ResourceMapping, query: RawQuery): ParsedFilters {
  const canonical: Record<string, FilterValue> = {};
  const v1Query: Record<string, QueryValue> = {};
  const tests: ((row: Json) => boolean)[] = [];
  const fields: string[] = [];
  for (const [name, spec] of Object.entries(mapping.filters)) {
    const given = spellings(name).filter((s) => query[s] !== undefined);
    if (given.length === 0) continue;
    if (given.length > 1) throw invalidField(name, 'must be given under one spelling only');
    const raw = query[given[0]!]!;
    if (raw === '' && spec.op !== 'in') continue;
    const value = readValue(name, spec, raw);
    canonical[name] = value;
    if (spec.v1) v1Query[spec.v1] = value;
    tests.push(predicate(spec, value));
    fields.push(spec.field);
  }
  return { canonical, v1Query, fields, matches: (row) => tests.every((t) => t(row)) };
}
