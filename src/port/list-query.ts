/**
 * A List request's filters, read against a mapping's filter declarations:
 * which reach v1 as query parameters, and the predicates the gateway applies to
 * every rendered row anyway (v1 silently ignores query keys it does not know, so
 * a filter is only trusted once the gateway has applied it itself).
 */
import { LRUCache } from 'lru-cache';
import { invalidField } from '../aip/errors.ts';
import { ownValue, spellings } from '../aip/names.ts';
import { parseListParams, type ListParams, type RawQuery } from '../aip/list-request.ts';
import { formatOrderBy, parseOrderBy, type OrderKey } from '../aip/order-by.ts';
import { queryFingerprint, type PageCursor, type PageTokenCodec } from '../aip/page-token.ts';
import { isChildOf, isDescendantOf, isInRoot, isUidp } from '../uidp.ts';
import { toMillisTimestamp } from '../aip/time.ts';
import type { FilterSpec, ResourceMapping } from '../vocabulary/resource.ts';
import { getPath, type Json } from '../vocabulary/json.ts';
import type { ReadField } from '../aip/list-window.ts';
import type { QueryValue } from '../v1/query-string.ts';

type FilterValue = string | boolean | string[];

export interface ParsedFilters {
  /** Canonical filter values, for the query fingerprint. */
  canonical: Record<string, FilterValue>;
  v1Query: Record<string, QueryValue>;
  /** v2 field paths the predicates read. */
  fields: string[];
  /** Some filter is one the gateway applies itself, beyond what v1 was asked. */
  localOnly: boolean;
  matches: (row: Json) => boolean;
  /** `matches` over any form of row, each v2 path read by `read`: a list tests v1 rows without rendering them. */
  matchesWith: <R>(row: R, read: ReadField<R>) => boolean;
}

type Test = <R>(row: R, read: ReadField<R>) => boolean;

const TRUE = /^(1|t|T|TRUE|true|True)$/;
const FALSE = /^(0|f|F|FALSE|false|False)$/;

function readValue(name: string, spec: FilterSpec, raw: string | string[]): FilterValue {
  const values = Array.isArray(raw) ? raw : [raw];
  if (spec.uidp) {
    for (const v of values) if (!isUidp(v)) throw invalidField(name, `"${v}" is not a valid UIDP`);
  }
  if (spec.enum) {
    for (const v of values) {
      if (ownValue(spec.enum.v2ToV1, v) === undefined) throw invalidField(name, `"${v}" is not one of ${Object.keys(spec.enum.v2ToV1).join(', ')}`);
    }
  }
  if (spec.op === 'in') return values;
  if (values.length > 1) throw invalidField(name, 'must be given at most once');
  const value = values[0]!;
  switch (spec.op) {
    case 'inRoot':
    case 'flag':
      // grpc-gateway parses booleans with Go's strconv.ParseBool.
      if (!TRUE.test(value) && !FALSE.test(value)) throw invalidField(name, `"${value}" is not a boolean`);
      return TRUE.test(value);
    case 'since': {
      const time = toMillisTimestamp(value);
      if (time === null) throw invalidField(name, `"${value}" is not an RFC 3339 timestamp`);
      return time;
    }
    default:
      return value;
  }
}

/** The value v1 is sent for a filter. */
function v1Value(spec: FilterSpec, value: FilterValue): QueryValue {
  if (spec.enum) return Array.isArray(value) ? value.map((v) => spec.enum!.v2ToV1[v]!) : spec.enum.v2ToV1[value as string]!;
  if (spec.op === 'flag') return String(spec.v1Inverted ? !value : value);
  return value;
}

function texts(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** `String(value)`, without the call when it is a string already (a predicate reads a string of every row). */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}

function predicate(spec: FilterSpec, value: FilterValue): Test | undefined {
  if (spec.op === 'contains') {
    const needle = String(value).toLowerCase();
    const paths = spec.anyOf ?? (spec.field ? [spec.field] : []);
    return (row, read) => paths.some((path) => texts(read(row, path)).some((t) => t.toLowerCase().includes(needle)));
  }
  const field = spec.field;
  if (field === undefined || spec.op === 'flag') return undefined;
  switch (spec.op) {
    case 'eq': return (row, read) => read(row, field) === value;
    case 'in': return (row, read) => (value as string[]).includes(read(row, field) as string);
    case 'descendantOf': return (row, read) => isDescendantOf(asText(read(row, field)), value as string);
    case 'childOf': return (row, read) => isChildOf(asText(read(row, field)), value as string);
    case 'ancestorOf': return (row, read) => isDescendantOf(value as string, asText(read(row, field)));
    case 'inRoot': return (row, read) => isInRoot(asText(read(row, field))) === value;
    // Timestamps render as RFC 3339 with milliseconds in UTC, so text order is time order.
    case 'since': return (row, read) => {
      const time = read(row, field);
      return typeof time === 'string' && time >= (value as string);
    };
  }
}

export function parseFilters(mapping: ResourceMapping, query: RawQuery): ParsedFilters {
  const canonical: Record<string, FilterValue> = {};
  const v1Query: Record<string, QueryValue> = {};
  const tests: Test[] = [];
  const fields: string[] = [];
  let localOnly = false;
  for (const [name, spec] of Object.entries(mapping.filters)) {
    const given = spellings(name).filter((s) => ownValue(query, s) !== undefined);
    if (given.length === 0) continue;
    if (given.length > 1) throw invalidField(name, 'must be given under one spelling only');
    const raw = ownValue(query, given[0]!)!;
    if (raw === '' && spec.op !== 'in') continue;
    const value = readValue(name, spec, raw);
    canonical[name] = value;
    if (spec.v1) v1Query[spec.v1] = v1Value(spec, value);
    const test = predicate(spec, value);
    if (test) {
      tests.push(test);
      fields.push(...(spec.op === 'contains' ? spec.anyOf ?? [] : []), ...(spec.field ? [spec.field] : []));
      if (!spec.v1) localOnly = true;
    }
  }
  // A switch v1 reads with the opposite sense is sent even when the request leaves it out:
  // v2's default (off) is v1's "exclude", which v1 does not do unless asked.
  for (const [name, spec] of Object.entries(mapping.filters)) {
    if (spec.op === 'flag' && spec.v1Inverted && spec.v1 && !(name in canonical)) v1Query[spec.v1] = 'true';
  }
  // Run on every row of a v1 list: an indexed loop allocates nothing per row.
  const matchesWith = <R>(row: R, read: ReadField<R>): boolean => {
    for (let i = 0; i < tests.length; i++) if (!tests[i]!(row, read)) return false;
    return true;
  };
  return { canonical, v1Query, fields, localOnly, matches: (row) => matchesWith(row, getPath), matchesWith };
}

/** Everything a List request asks, read and checked once for either backend. */
export interface ListQuery {
  params: ListParams;
  filters: ParsedFilters;
  order: OrderKey[];
  /** Binds page tokens to this resource, these filters and this order. */
  fingerprint: string;
  /** The position a page token resumes from; undefined on a first page (or an expired token). */
  cursor: PageCursor | undefined;
}

/** What a query asks of a resource, its page token aside: the filters, order and fingerprint follow from it alone. */
type QueryShape = Pick<ListQuery, 'filters' | 'order' | 'fingerprint'>;

/**
 * Queries read, per mapping, by their parameters less the page token: a List polled, or walked page by
 * page, is read and fingerprinted once (parsing filters and hashing them was ~12 KB and ~3% of a List
 * page). They are shared: their users never change them. A query longer than a few KB (a long
 * `uidp.ids`) is read every time rather than held.
 */
const SHAPES = new WeakMap<ResourceMapping, LRUCache<string, QueryShape>>();
const SHAPES_PER_MAPPING = 256;
const MAX_SHAPE_KEY_CHARS = 4096;

export function readListQuery(mapping: ResourceMapping, query: RawQuery, tokens: PageTokenCodec): ListQuery {
  const params = parseListParams(query);
  const key = shapeKey(query);
  let shapes = SHAPES.get(mapping);
  let shape = key === undefined ? undefined : shapes?.get(key);
  if (shape === undefined) {
    const filters = parseFilters(mapping, query);
    const order = parseOrderBy(params.orderBy, mapping.orderBy);
    const fingerprint = queryFingerprint({ resource: mapping.name, filters: filters.canonical, order: formatOrderBy(order) });
    shape = { filters, order, fingerprint };
    if (key !== undefined) {
      if (!shapes) SHAPES.set(mapping, (shapes = new LRUCache({ max: SHAPES_PER_MAPPING })));
      shapes.set(key, shape);
    }
  }
  const cursor = params.pageToken ? tokens.open(params.pageToken, shape.fingerprint) : undefined;
  return { params, ...shape, cursor };
}

/** The query's parameters but its page token, as one string; undefined when too long to hold. */
function shapeKey(query: RawQuery): string | undefined {
  let key = '';
  for (const name of Object.keys(query)) {
    if (name === 'page_token' || name === 'pageToken') continue;
    key += `${JSON.stringify(name)}:${JSON.stringify(query[name])},`;
    if (key.length > MAX_SHAPE_KEY_CHARS) return undefined;
  }
  return key;
}
