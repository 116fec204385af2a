/**
 * v1 rows as the native store keeps them: each rendered as translate mode
 * renders it (the mapping's renames, and the times the gateway kept for rows
 * v1 gives none), then normalised as native mode stores a document. References
 * are stored by uid only: native mode hydrates them when it reads.
 */
import { isInRoot, isUidp, parentOf } from '../uidp.ts';
import { KeptTimes, applyKeptTimes } from '../translate/kept-times.ts';
import type { FieldSpec, ResourceMapping } from '../vocabulary/resource.ts';
import { v1UidKey } from '../port/registry.ts';
import { renderV2 } from '../translate/v1-row.ts';
import type { Json } from '../vocabulary/json.ts';
import { normalize } from '../vocabulary/document.ts';
import type { StoredResource } from '../store/types.ts';

export interface Converted {
  rows: StoredResource[];
  /** Rows that cannot be stored, each with why (never with its values: they may hold personal data). */
  refused: { uid: string; why: string }[];
}

/**
 * The stored rows of a batch of v1 rows of `mapping`. `times` keeps the times v1 omits (the same
 * records translate mode keeps, when the import writes to the store that gateway uses); `now` is
 * the time of the import, for a resource whose v2 form has no time of its own.
 */
export async function storedRows(mapping: ResourceMapping, v1: readonly Json[], times: KeptTimes, now: string): Promise<Converted> {
  const uidKey = v1UidKey(mapping);
  const refused: Converted['refused'] = [];
  const valid: Json[] = [];
  for (const row of v1) {
    const uid = row[uidKey];
    if (typeof uid === 'string' && isUidp(uid)) valid.push(row);
    else refused.push({ uid: typeof uid === 'string' ? uid : '', why: `\`${uidKey}\` is not a UIDP` });
  }
  const kept = await times.forUids(mapping, times.lacking(mapping, valid, uidKey));
  const rows = valid.map((row) => {
    const uid = row[uidKey] as string;
    const document = applyKeptTimes(mapping, renderV2(mapping.fields, row), kept?.get(uid));
    const body = normalize(mapping.fields, document, { keepOutputOnly: true });
    const createTime = timeOf(body.createTime) ?? now;
    const updateTime = timeOf(body.updateTime) ?? createTime;
    // The parent column is the uid's own parent, as native mode sets it on a create.
    return { kind: mapping.name, uid, parent: isInRoot(uid) ? '' : parentOf(uid), body, createTime, updateTime };
  });
  return { rows, refused };
}

/** Whether a stored row of a singleton holds nothing but zero values (an unwritten singleton is served as such). */
export function isZeroSingleton(mapping: ResourceMapping, row: StoredResource): boolean {
  const zero = normalize(mapping.fields, { uid: row.uid }, { keepOutputOnly: true });
  return JSON.stringify(zero) === JSON.stringify(row.body);
}

/** The top-level fields v1 never returns (a secret), which the import therefore cannot carry. */
export function secretFields(fields: Readonly<Record<string, FieldSpec>>, prefix = ''): string[] {
  return Object.entries(fields).flatMap(([key, spec]) => {
    if (spec.secret) return [`${prefix}${key}`];
    return spec.fields ? secretFields(spec.fields, `${prefix}${key}.`) : [];
  });
}

function timeOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
