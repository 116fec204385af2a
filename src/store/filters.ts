/**
 * StoreFilter → SQL condition. On a body field, the string operations match
 * string values only (a number or an absent field never equals "5"). UIDP
 * prefixes are byte ranges, not LIKE patterns: "starts with v/" is
 * `x >= 'v/' and x < 'v0'` ('0' follows '/'), which an index can answer and
 * which has no wildcards to escape.
 */
import { sql, type RawBuilder } from 'kysely';
import type { StoreFilter } from './types.ts';
import { asciiLower, textKeyTerm, type Dialect } from './dialect.ts';
import { fieldRef } from './fields.ts';
import { textKey } from './text-key.ts';

type Sql<T = unknown> = RawBuilder<T>;

const NONE = sql<boolean>`1 = 0`;

function stringValue(filter: StoreFilter): string {
  if (typeof filter.value !== 'string') throw new TypeError(`store: filter ${filter.op} on ${filter.field} needs a string`);
  return filter.value;
}

/** Every proper prefix of `value` that ends just before a '/': the uids `value` descends from. */
export function ancestorsOf(value: string): string[] {
  const out: string[] = [];
  for (let i = value.indexOf('/'); i >= 0; i = value.indexOf('/', i + 1)) out.push(value.slice(0, i));
  return out;
}

/** Which side of a range a column comparison bounds; `point` names rows outright (eq, in). */
export type Bound = 'lower' | 'upper' | 'both' | 'point';

/** How a filter refers to a column: index-hints.ts may keep a comparison off an index. */
export type ColumnRef = (column: string, bound: Bound) => Sql;

const plainColumn: ColumnRef = (column) => sql.ref(column);

function startsWithSlash(lower: Sql, upper: Sql, prefix: string): Sql<boolean> {
  return sql<boolean>`(${lower} >= ${`${prefix}/`} and ${upper} < ${`${prefix}0`})`;
}

export function filterCondition(d: Dialect, filter: StoreFilter, columnRef: ColumnRef = plainColumn): Sql<boolean> {
  const ref = fieldRef(filter.field);
  const isColumn = 'column' in ref;
  // Body text compares by bytes too: a database's default collation may be a locale's.
  const expr = (bound: Bound): Sql => (isColumn ? columnRef(ref.column, bound) : d.binary(d.text(ref.path)));
  switch (filter.op) {
    case 'eq': {
      if (typeof filter.value === 'boolean') {
        if (isColumn) return NONE;
        return sql<boolean>`(${d.rank(ref.path)} = 1 and ${d.number(ref.path)} = ${filter.value ? 1 : 0})`;
      }
      return sql<boolean>`${expr('point')} = ${stringValue(filter)}`;
    }
    case 'in': {
      if (!Array.isArray(filter.value)) throw new TypeError(`store: filter in on ${filter.field} needs a list`);
      return filter.value.length === 0 ? NONE : d.inList(expr('point'), filter.value);
    }
    case 'descendantOf':
      return startsWithSlash(expr('lower'), expr('upper'), stringValue(filter));
    case 'within': {
      if (!Array.isArray(filter.value)) throw new TypeError(`store: filter within on ${filter.field} needs a list`);
      const terms = filter.value.map((value) => value === ''
        ? sql<boolean>`${columnRef('parent', 'point')} = ''`
        : sql<boolean>`(${expr('point')} = ${value} or ${startsWithSlash(expr('lower'), expr('upper'), value)})`);
      return terms.length === 0 ? NONE : sql<boolean>`(${sql.join(terms, sql` or `)})`;
    }
    case 'childOf': {
      const parent = stringValue(filter);
      // The parent column is the uid's parent (contract), and (kind, parent) is indexed.
      if (isColumn && ref.column === 'uid') return sql<boolean>`${columnRef('parent', 'both')} = ${parent}`;
      return sql<boolean>`(${startsWithSlash(expr('lower'), expr('upper'), parent)} and substr(${expr('both')}, length(cast(${parent} as text)) + 2) not like '%/%')`;
    }
    case 'ancestorOf': {
      const ancestors = ancestorsOf(stringValue(filter));
      return ancestors.length === 0 ? NONE : d.inList(expr('point'), ancestors);
    }
    case 'inRoot': {
      if (typeof filter.value !== 'boolean') throw new TypeError(`store: filter inRoot on ${filter.field} needs a boolean`);
      return filter.value ? sql<boolean>`${expr('both')} not like '%/%'` : sql<boolean>`${expr('both')} like '%/%'`;
    }
    case 'gte': {
      const value = stringValue(filter);
      if (isColumn) return sql<boolean>`${expr('lower')} >= ${value}`;
      // Body strings compare as the gateway does (code units), via the text key.
      return sql<boolean>`(${expr('lower')} is not null and ${textKeyTerm(d, ref.path)} >= ${d.binary(sql`${textKey(value)}`)})`;
    }
    case 'contains': {
      const needle = asciiLower(stringValue(filter));
      return isColumn ? d.contains(expr('both'), needle) : d.anyContains(ref.path, needle);
    }
  }
}
