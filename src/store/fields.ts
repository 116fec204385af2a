/**
 * Field paths as the store reads them: the contract's four column fields map to
 * SQL columns; every other path reads the JSON body. Paths are inlined into SQL
 * (a generated column's expression is SQL text), so they are held to
 * identifier characters here.
 */
const COLUMNS: Readonly<Record<string, string>> = {
  uid: 'uid',
  parent: 'parent',
  createTime: 'create_time',
  updateTime: 'update_time',
};

const PATH = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * Body fields whose three sort terms (dialect.ts) are also generated columns,
 * indexed after kind and before uid: ordering by them is an index walk, and a
 * keyset cursor an index seek. SQLite seeks a row-value comparison only on
 * columns, not on expressions, hence columns rather than an expression index.
 */
export const SORTED_BODY_FIELDS = ['name'] as const;

export type SortColumns = readonly [rank: string, number: string, key: string];

export function sortColumns(field: string): SortColumns {
  return [`${field}_rank`, `${field}_num`, `${field}_key`];
}

export type FieldRef = { column: string } | { path: readonly string[]; sortColumns?: SortColumns };

export function fieldRef(field: string): FieldRef {
  const column = Object.hasOwn(COLUMNS, field) ? COLUMNS[field] : undefined;
  if (column) return { column };
  if (!PATH.test(field)) throw new TypeError(`store: "${field}" is not a field path the store can read`);
  const sorted = (SORTED_BODY_FIELDS as readonly string[]).includes(field);
  return sorted ? { path: [field], sortColumns: sortColumns(field) } : { path: field.split('.') };
}
