/**
 * Typed reads of a parsed v1 answer: its list rows, a sub-message, a boolean, a string, strings, an
 * int64. What protojson leaves out reads as its default; a value of another JSON type is refused as
 * an answer the gateway cannot read (errors.ts, unreadable), never passed on.
 */
import { unreadable } from './errors.ts';

/** The rows of a v1 list answer. Absent is none (grpc-gateway leaves empty lists out); anything but a list of objects is refused. */
export function v1ListRows(answer: { items?: unknown }): Record<string, unknown>[] {
  const items = answer.items;
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) return fail(`\`items\` is a ${jsonKind(items)}, not a list`);
  const bad = items.findIndex((item) => jsonKind(item) !== 'object');
  if (bad >= 0) return fail(`\`items[${bad}]\` is a ${jsonKind(items[bad])}, not an object`);
  return items as Record<string, unknown>[];
}

/** A sub-message a v1 answer must carry (`group` of a lookup): anything but an object is refused, as a list that is not one is. */
export function v1Member(answer: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = answer[key];
  if (jsonKind(value) !== 'object') return fail(`\`${key}\` is ${value === undefined ? 'missing' : `a ${jsonKind(value)}`} where v1's answer carries an object`);
  return value as Record<string, unknown>;
}

/** A boolean of a v1 answer: absent is false, as protojson leaves false out; anything but a boolean is refused. */
export function v1Bool(answer: Record<string, unknown>, key: string): boolean {
  const value = answer[key];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') return fail(`\`${key}\` is a ${jsonKind(value)}, not a boolean`);
  return value;
}

/** A string of a v1 answer: absent is '', as protojson leaves '' out; anything but a string is refused. */
export function v1String(answer: Record<string, unknown>, key: string): string {
  const value = answer[key];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') return fail(`\`${key}\` is a ${jsonKind(value)}, not a string`);
  return value;
}

/** A repeated string of a v1 answer: absent is none; anything but a list of strings is refused. */
export function v1Strings(answer: Record<string, unknown>, key: string): string[] {
  const value = answer[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) return fail(`\`${key}\` is not a list of strings`);
  return value as string[];
}

/** An int64 of a v1 answer, as protojson writes it (a decimal string, or a number): absent is '0'. */
export function v1Int64(answer: Record<string, unknown>, key: string): string {
  const value = answer[key];
  if (value === undefined || value === null) return '0';
  if ((typeof value === 'string' && /^-?\d+$/.test(value)) || (typeof value === 'number' && Number.isSafeInteger(value))) return String(value);
  return fail(`\`${key}\` is not an integer`);
}

function fail(why: string): never {
  throw unreadable(200, why);
}

/** What a parsed JSON value is, in JSON's words. */
export function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}
