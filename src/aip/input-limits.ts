/**
 * Limits every request is held to before any backend sees it, the same in
 * both modes and on both store engines, so that no input can reach a layer
 * that would fail on it (and answer INTERNAL) instead of being refused here
 * as INVALID_ARGUMENT naming the field:
 *
 * - JSON nesting: at most MAX_JSON_DEPTH levels of objects and arrays. v2
 *   messages nest six levels at most; only free-form fields (maps, JSON values
 *   such as `github.appInstallations`) can go deeper, and every layer below
 *   has a limit of its own (SQLite's JSON functions stop at 1,000 levels,
 *   V8's JSON.stringify at its stack).
 * - Text: no string (value, object key, filter or lookup parameter, path uid,
 *   mask) may contain NUL or a lone UTF-16 surrogate: PostgreSQL stores neither
 *   in text or jsonb, and neither is valid UTF-8 for v1 or a gRPC peer.
 * - Size: no string may exceed MAX_STRING_BYTES of UTF-8.
 *
 * Pure: no I/O, no framework types.
 */
import { invalidField } from './errors.ts';
import type { RawQuery } from './list-request.ts';

/** Levels of JSON objects and arrays a request body may nest; the body itself is level 1. */
export const MAX_JSON_DEPTH = 32;

/** The longest string a request may carry anywhere, in UTF-8 bytes (64 KiB). */
export const MAX_STRING_BYTES = 64 * 1024;

/** The parts of an operation that carry client text: path variables, the mask, the query, the body. */
export interface RequestInput {
  readonly uid?: string;
  readonly parent?: string;
  readonly mask?: string | undefined;
  readonly query?: RawQuery;
  readonly body?: unknown;
}

/** Checks every string and the nesting of one request; throws INVALID_ARGUMENT naming the first offending field. */
export function checkInput(input: RequestInput): void {
  if (input.uid !== undefined) checkText('uid', input.uid);
  if (input.parent !== undefined) checkText('parent', input.parent);
  if (input.mask !== undefined) checkText('update_mask', input.mask);
  if (input.query !== undefined) checkQuery(input.query);
  if (input.body !== undefined) checkJson(input.body);
}

/** Why a string may not be taken, or undefined when it may. */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL (U+0000)';
  if (!text.isWellFormed()) return 'must not contain a lone UTF-16 surrogate (U+D800 to U+DFFF without its pair)';
  // A UTF-16 code unit is at most 3 bytes of UTF-8: only long strings need counting.
  if (text.length * 3 > MAX_STRING_BYTES && Buffer.byteLength(text, 'utf8') > MAX_STRING_BYTES) {
    return `must be at most ${MAX_STRING_BYTES} bytes (UTF-8)`;
  }
  return undefined;
}

/** Throws INVALID_ARGUMENT on `field` when `text` breaks a text rule. */
export function checkText(field: string, text: string): void {
  const problem = textProblem(text);
  if (problem) throw invalidField(field, problem);
}

/** Every query parameter's name and values; a violation names the parameter. */
export function checkQuery(query: RawQuery): void {
  for (const [key, value] of Object.entries(query)) {
    const keyProblem = textProblem(key);
    if (keyProblem) throw invalidField(printable(key), `query parameter name ${keyProblem}`);
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string') checkText(key, item);
    }
  }
}

/**
 * Checks a request body (or any JSON value): nesting, then every key and
 * string value. A violation names the field by its path as the client wrote
 * it (`github.appInstallations.123.installations[0].name`), `body` for the
 * body itself.
 */
export function checkJson(value: unknown, field = '', limit = MAX_JSON_DEPTH): void {
  walk(value, field, 0, limit);
}

function walk(value: unknown, field: string, depth: number, limit: number): void {
  if (typeof value === 'string') {
    checkText(field || 'body', value);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  // Only objects and arrays count; this one is level depth + 1.
  if (depth + 1 > limit) throw invalidField(field || 'body', `nests JSON more than ${limit} levels deep`);
  if (Array.isArray(value)) {
    value.forEach((item, i) => walk(item, `${field}[${i}]`, depth + 1, limit));
    return;
  }
  for (const [key, member] of Object.entries(value)) {
    const path = field ? `${field}.${printable(key)}` : printable(key);
    const problem = textProblem(key);
    if (problem) throw invalidField(path, `key ${problem}`);
    walk(member, path, depth + 1, limit);
  }
}

/** Longer keys are cut when a field path names them. */
const MAX_KEY_SHOWN = 256;

/**
 * `text` as a field path may show it: NUL and lone surrogates written as
 * `\uXXXX` (so the path is itself valid text), and cut with `…` past
 * MAX_KEY_SHOWN characters.
 */
export function printable(text: string): string {
  const shown = text.length > MAX_KEY_SHOWN ? `${text.slice(0, MAX_KEY_SHOWN)}…` : text;
  if (!shown.includes('\u0000') && shown.isWellFormed()) return shown;
  return shown.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
