/**
 * A sort key for strings whose byte order (SQLite's BINARY, PostgreSQL's
 * COLLATE "C": both compare UTF-8 bytes, i.e. code points) equals JavaScript's
 * code-unit order, which is what the gateway's in-memory order uses.
 *
 * The two orders disagree only between U+E000–U+FFFF and the supplementary
 * planes (U+10000 and up): as UTF-16 the latter are surrogates (D800–DFFF) and
 * sort first; as code points they sort last. The key moves U+E000–U+FFFF past
 * every supplementary character by prefixing each with the highest code point,
 * U+10FFFF, and escapes U+10FFFF itself as U+10FFFF U+0001 so the mapping stays
 * prefix-free and order-preserving. Strings without those characters (nearly
 * all) are their own key.
 *
 * PostgreSQL computes the same key in SQL (`TEXT_KEY_SQL_BODY` below); SQLite
 * calls this function, registered on the connection.
 */
const MARK = '\u{10FFFF}';
const NEEDS_WORK = /[\uDBFF\uE000-\uFFFF]/;
const MARK_ONLY = /\u{10FFFF}/gu;
const HIGH_BMP = /[\uE000-\uFFFF]/gu;

export function textKey(value: string | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (!NEEDS_WORK.test(value)) return value;
  return value.replace(MARK_ONLY, `${MARK}\u0001`).replace(HIGH_BMP, (c) => MARK + c);
}

/** The name both engines know the key function by. */
export const TEXT_KEY_FUNCTION = 'v2gw_text_key';

/** The same mapping in PostgreSQL (immutable, so it may appear in an index); NULL gives ''. */
export const TEXT_KEY_SQL_BODY =
  "select coalesce(regexp_replace(regexp_replace($1, '\\U0010FFFF', chr(1114111) || chr(1), 'g'), " +
  "'([\\uE000-\\uFFFF])', chr(1114111) || '\\1', 'g'), '')";
