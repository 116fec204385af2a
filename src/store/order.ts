/**
 * `order` keys as SQL sort terms, and the keyset condition "strictly after the
 * cursor" in that order.
 *
 * A column key is one term. A body key is three (see dialect.ts: rank, number,
 * text key; generated columns for the fields in SORTED_BODY_FIELDS), none of
 * them ever NULL, so the SQL order equals compareValues' order, absent values
 * first, and tuples compare without NULL cases. The cursor's JSON values are
 * turned into the same three terms here, in JavaScript, with the same rules.
 *
 * The condition groups consecutive terms of one direction into a row-value
 * comparison, `(a, b) > (?, ?)`, which both engines can answer with an index
 * range; a direction change nests (`R1 > c1`, or `R1 = c1` and the rest).
 */
import { sql, type RawBuilder } from 'kysely';
import type { OrderKey } from '../aip/order-by.ts';
import { textKeyTerm, type Dialect } from './dialect.ts';
import { fieldRef } from './fields.ts';
import { textKey } from './text-key.ts';

type Sql<T = unknown> = RawBuilder<T>;

export interface SortTerm {
  expr: Sql;
  desc: boolean;
}

/** compareValues' type ranks: absent/null/object/array, boolean, number, string. */
export function rankOf(value: unknown): number {
  switch (typeof value) {
    case 'boolean': return 1;
    case 'number': return 2;
    case 'string': return 3;
    default: return 0;
  }
}

function bodyTermValues(value: unknown): unknown[] {
  const number = typeof value === 'number' ? value : value === true ? 1 : 0;
  return [rankOf(value), number, typeof value === 'string' ? textKey(value) : ''];
}

export function sortTerms(d: Dialect, order: readonly OrderKey[]): SortTerm[] {
  return order.flatMap(({ field, desc }) => {
    const ref = fieldRef(field);
    if ('column' in ref) return [{ expr: sql.ref(ref.column), desc }];
    const exprs = ref.sortColumns
      ? ref.sortColumns.map((column) => sql.ref(column))
      : [d.rank(ref.path), d.number(ref.path), textKeyTerm(d, ref.path)];
    return exprs.map((expr) => ({ expr, desc }));
  });
}

/** The cursor's values spread over the sort terms, aligned with `sortTerms(order)`. */
export function cursorTermValues(order: readonly OrderKey[], after: readonly unknown[]): unknown[] {
  if (after.length !== order.length) {
    throw new TypeError(`store: cursor has ${after.length} values for an order of ${order.length} keys`);
  }
  return order.flatMap(({ field }, i) => {
    const value = after[i];
    if ('column' in fieldRef(field)) {
      if (typeof value !== 'string') throw new TypeError(`store: cursor value for ${field} must be a string`);
      return [value];
    }
    return bodyTermValues(value);
  });
}

export function orderByClause(terms: readonly SortTerm[]): Sql {
  return sql.join(terms.map((t) => sql`${t.expr} ${sql.raw(t.desc ? 'desc' : 'asc')}`));
}

const tuple = (items: readonly unknown[]) => sql`(${sql.join(items)})`;

/** Rows strictly after the cursor whose term values are `values`. */
export function afterCondition(terms: readonly SortTerm[], values: readonly unknown[]): Sql<boolean> {
  const runs: { exprs: Sql[]; values: unknown[]; desc: boolean }[] = [];
  terms.forEach((term, i) => {
    const last = runs[runs.length - 1];
    if (last && last.desc === term.desc) {
      last.exprs.push(term.expr);
      last.values.push(values[i]);
    } else {
      runs.push({ exprs: [term.expr], values: [values[i]], desc: term.desc });
    }
  });
  // Run by run from the last: `R > c`, then `R >= c and not (R = c and not rest)`, which is
  // `R > c or (R = c and rest)` with no OR for a planner to split into a bitmap union
  // (PostgreSQL did, and sorted every match); `R >= c` is the range an index seeks to.
  let condition: Sql<boolean> | undefined;
  for (let i = runs.length - 1; i >= 0; i--) {
    const run = runs[i]!;
    const lhs = tuple(run.exprs);
    const rhs = tuple(run.values.map((v) => sql`${v}`));
    const op = run.desc ? '<' : '>';
    condition = condition
      ? sql<boolean>`(${lhs} ${sql.raw(`${op}=`)} ${rhs} and not (${lhs} = ${rhs} and not (${condition})))`
      : sql<boolean>`${lhs} ${sql.raw(op)} ${rhs}`;
  }
  return condition!;
}
