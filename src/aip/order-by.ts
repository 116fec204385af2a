/**
 * `order_by` (AIP-132): "field [asc|desc], field2 …". Fields are matched against
 * the resource's orderable fields in either spelling (and any declared alias,
 * e.g. `created_at`); the result always ends with `uid` so the order is total,
 * which the keyset cursor relies on.
 */
import { invalidField } from './errors.ts';
import { spellings } from './names.ts';

export interface OrderKey {
  /** The v2 field path (lowerCamel), e.g. `createTime`. */
  field: string;
  desc: boolean;
}

export interface Orderable {
  /** v2 field paths clients may order by. `uid` is always allowed. */
  fields: readonly string[];
  /** Other accepted names, e.g. `{ created_at: 'createTime' }`. */
  aliases?: Readonly<Record<string, string>>;
  /** Used when the request has no order_by; AIP default is `uid asc`. */
  default?: string;
}

const TIEBREAK = 'uid';

export function orderableNames(orderable: Orderable): Map<string, string> {
  const names = new Map<string, string>();
  for (const field of new Set([TIEBREAK, ...orderable.fields])) {
    for (const spelling of spellings(field)) names.set(spelling, field);
  }
  for (const [alias, field] of Object.entries(orderable.aliases ?? {})) names.set(alias, field);
  return names;
}

export function parseOrderBy(input: string | undefined, orderable: Orderable): OrderKey[] {
  const text = input?.trim() ? input : (orderable.default ?? TIEBREAK);
  const names = orderableNames(orderable);
  const keys: OrderKey[] = [];
  for (const clause of text.split(',')) {
    const words = clause.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0 || words.length > 2) {
      throw invalidField('order_by', `"${clause.trim()}" is not of the form "field [asc|desc]"`);
    }
    const [name, direction = 'asc'] = words as [string, string?];
    const field = names.get(name);
    if (!field) {
      const allowed = [...new Set(names.values())].join(', ');
      throw invalidField('order_by', `unknown field "${name}"; orderable fields are: ${allowed}`);
    }
    const dir = direction.toLowerCase();
    if (dir !== 'asc' && dir !== 'desc') throw invalidField('order_by', `unknown direction "${direction}"; use asc or desc`);
    if (keys.some((k) => k.field === field)) throw invalidField('order_by', `field "${name}" appears more than once`);
    keys.push({ field, desc: dir === 'desc' });
  }
  if (!keys.some((k) => k.field === TIEBREAK)) keys.push({ field: TIEBREAK, desc: false });
  return keys;
}

/** The canonical text of an order, for fingerprints: spelling and aliases no longer matter. */
export function formatOrderBy(keys: readonly OrderKey[]): string {
  return keys.map((k) => `${k.field} ${k.desc ? 'desc' : 'asc'}`).join(',');
}
