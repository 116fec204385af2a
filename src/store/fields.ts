/**
 * Field paths as the store reads them: the contract's four column fields map to
 * SQL columns; every other path reads the JSON body. Paths are inlined into SQL
 * (an expression index only matches a query that spells the same literal), so
 * they are held to identifier characters here.
 */
const COLUMNS: Readonly<Record<string, string>> = {
  uid: 'uid',
  parent: 'parent',
  createTime: 'create_time',
  updateTime: 'update_time',
};

const PATH = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

export type FieldRef = { column: string } | { path: readonly string[] };

export function fieldRef(field: string): FieldRef {
  const column = Object.hasOwn(COLUMNS, field) ? COLUMNS[field] : undefined;
  if (column) return { column };
  if (!PATH.test(field)) throw new TypeError(`store: "${field}" is not a field path the store can read`);
  return { path: field.split('.') };
}
