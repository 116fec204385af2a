/**
 * Where the two engines' SQL differs, and nowhere else: reading a JSON body,
 * byte-order collation, substring search, and passing a list of strings as one
 * parameter. Everything the store says is built from these pieces plus SQL that
 * both engines accept as is.
 *
 * Body values are read as three sort terms that give compareValues' order:
 * `rank` (0 absent/null/object/array, 1 boolean, 2 number, 3 string), then
 * `number` (numbers, booleans as 0/1, else 0), then the string's text key (else
 * ''). None is ever NULL, so row-value comparisons need no NULL cases.
 */
import { sql, type RawBuilder } from 'kysely';
import { TEXT_KEY_FUNCTION } from './text-key.ts';
import type { Json } from './types.ts';

type Sql<T = unknown> = RawBuilder<T>;

export interface Dialect {
  readonly engine: 'sqlite' | 'postgres';
  /** Column type for keys and times: text that compares by bytes. */
  readonly textType: Sql;
  readonly bodyType: Sql;
  rank(path: readonly string[]): Sql<number>;
  number(path: readonly string[]): Sql<number>;
  /** The string at `path`; NULL when the value there is not a string. */
  text(path: readonly string[]): Sql<string | null>;
  /**
   * The same value, but not a candidate for index use. SQLite plans without
   * statistics on ranges, so it is told; PostgreSQL's planner has them.
   */
  unindexed(expr: Sql): Sql;
  /** Makes a text expression compare by bytes (code points). */
  binary(expr: Sql): Sql<string>;
  /** True when the string at `path`, or any string element of the array there, contains `needle` (already lower-cased). */
  anyContains(path: readonly string[], needle: string): Sql<boolean>;
  /** ASCII-lower-cased `expr` contains `needle` (already lower-cased). */
  contains(expr: Sql, needle: string): Sql<boolean>;
  /** `expr` is one of `values`: one parameter, however many values. */
  inList(expr: Sql, values: readonly string[]): Sql<boolean>;
  /** A subquery of one column, `value`, over `values`, for INSERT … SELECT. */
  listSource(values: readonly string[]): Sql;
  encodeBody(body: Json): string;
  decodeBody(raw: unknown): Json;
}

/** ASCII-only case folding: the only folding SQLite's lower() and PostgreSQL's lower() under COLLATE "C" share. */
export function asciiLower(value: string): string {
  return value.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

const textKeyCall = (expr: Sql) => sql<string>`${sql.raw(TEXT_KEY_FUNCTION)}(${expr})`;

/** The sort-key term of the string at `path`. */
export function textKeyTerm(d: Dialect, path: readonly string[]): Sql<string> {
  return d.binary(textKeyCall(d.text(path)));
}

// ---- SQLite (json1; text compares by bytes already) -----------------------

function sqlitePath(path: readonly string[]): Sql {
  return sql.lit(`$.${path.join('.')}`);
}

export const sqliteDialect: Dialect = {
  engine: 'sqlite',
  textType: sql`text`,
  bodyType: sql`text`,
  rank: (path) => sql<number>`(case json_type(body, ${sqlitePath(path)}) when 'text' then 3 when 'integer' then 2 when 'real' then 2 when 'true' then 1 when 'false' then 1 else 0 end)`,
  number: (path) => sql<number>`(case json_type(body, ${sqlitePath(path)}) when 'integer' then json_extract(body, ${sqlitePath(path)}) when 'real' then json_extract(body, ${sqlitePath(path)}) when 'true' then 1 else 0 end)`,
  text: (path) => sql<string | null>`(case json_type(body, ${sqlitePath(path)}) when 'text' then json_extract(body, ${sqlitePath(path)}) end)`,
  // Unary + is SQLite's documented way to keep a term off an index.
  unindexed: (expr) => sql`+${expr}`,
  binary: (expr) => expr as Sql<string>,
  anyContains: (path, needle) =>
    sql<boolean>`(json_type(body, ${sqlitePath(path)}) in ('text', 'array') and exists (select 1 from json_each(body, ${sqlitePath(path)}) as e where e.type = 'text' and instr(lower(e.value), ${needle}) > 0))`,
  contains: (expr, needle) => sql<boolean>`instr(lower(${expr}), ${needle}) > 0`,
  inList: (expr, values) => sql<boolean>`${expr} in (select value from json_each(${JSON.stringify(values)}))`,
  listSource: (values) => sql`(select value from json_each(${JSON.stringify(values)}))`,
  encodeBody: (body) => JSON.stringify(body),
  decodeBody: (raw) => JSON.parse(raw as string) as Json,
};

// ---- PostgreSQL (json, not jsonb: the body keeps its key order as written) --

function pgPath(path: readonly string[]): Sql {
  return sql.lit(`{${path.join(',')}}`);
}

export const postgresDialect: Dialect = {
  engine: 'postgres',
  textType: sql`text collate "C"`,
  bodyType: sql`json`,
  rank: (path) => sql<number>`(case json_typeof(body #> ${pgPath(path)}) when 'string' then 3 when 'number' then 2 when 'boolean' then 1 else 0 end)`,
  number: (path) => sql<number>`(case json_typeof(body #> ${pgPath(path)}) when 'number' then (body #>> ${pgPath(path)})::numeric when 'boolean' then (case body #>> ${pgPath(path)} when 'true' then 1 else 0 end) else 0 end)`,
  text: (path) => sql<string | null>`(case json_typeof(body #> ${pgPath(path)}) when 'string' then body #>> ${pgPath(path)} end)`,
  unindexed: (expr) => expr,
  binary: (expr) => sql<string>`(${expr} collate "C")`,
  anyContains: (path, needle) =>
    sql<boolean>`exists (select 1 from json_array_elements(case json_typeof(body #> ${pgPath(path)}) when 'array' then body #> ${pgPath(path)} when 'string' then json_build_array(body #> ${pgPath(path)}) end) as e where json_typeof(e) = 'string' and strpos(lower((e #>> '{}') collate "C"), ${needle}) > 0)`,
  contains: (expr, needle) => sql<boolean>`strpos(lower(${expr} collate "C"), ${needle}) > 0`,
  inList: (expr, values) => sql<boolean>`${expr} = any(${values}::text[])`,
  listSource: (values) => sql`(select unnest(${values}::text[]) as value)`,
  encodeBody: (body) => JSON.stringify(body),
  decodeBody: (raw) => (typeof raw === 'string' ? (JSON.parse(raw) as Json) : (raw as Json)),
};
