/**
 * The paging parameters every List shares, read from a query string in either
 * spelling, with the spec's limits: page_size defaults to 50 and is capped at
 * 200; negative sizes or skips are refused.
 */
import { invalidField } from './errors.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export type RawQuery = Record<string, string | string[] | undefined>;

export interface ListParams {
  pageSize: number;
  pageToken: string | undefined;
  orderBy: string | undefined;
  skip: number;
}

/** A single-valued query parameter under any of its names. */
export function singleParam(query: RawQuery, names: readonly string[]): string | undefined {
  let found: string | undefined;
  for (const name of names) {
    const value = query[name];
    if (value === undefined) continue;
    if (Array.isArray(value) || found !== undefined) throw invalidField(names[0]!, 'must be given at most once');
    found = value;
  }
  return found;
}

function integerParam(query: RawQuery, names: readonly string[]): number | undefined {
  const raw = singleParam(query, names);
  if (raw === undefined || raw === '') return undefined;
  if (!/^[+-]?\d+$/.test(raw.trim())) throw invalidField(names[0]!, `"${raw}" is not an integer`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value > 2 ** 31 - 1 || value < -(2 ** 31)) {
    throw invalidField(names[0]!, `"${raw}" is out of the 32-bit integer range`);
  }
  return value;
}

export function parseListParams(query: RawQuery): ListParams {
  const size = integerParam(query, ['page_size', 'pageSize']);
  if (size !== undefined && size < 0) throw invalidField('page_size', 'must not be negative');
  const skip = integerParam(query, ['skip']) ?? 0;
  if (skip < 0) throw invalidField('skip', 'must not be negative');
  const token = singleParam(query, ['page_token', 'pageToken']);
  return {
    pageSize: !size ? DEFAULT_PAGE_SIZE : Math.min(size, MAX_PAGE_SIZE),
    pageToken: token || undefined,
    orderBy: singleParam(query, ['order_by', 'orderBy']),
    skip,
  };
}

/** The message's fields as the query parameters REST would carry: dotted paths, repeated values as lists. */
export function asQuery(json: Record<string, unknown>, prefix = '', into: RawQuery = {}): RawQuery {
  for (const [key, value] of Object.entries(json)) {
    if (isPlainObject(value)) asQuery(value, `${prefix}${key}.`, into);
    else if (Array.isArray(value)) into[prefix + key] = value.map(String);
    else if (value !== null && value !== undefined) into[prefix + key] = String(value);
  }
  return into;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
