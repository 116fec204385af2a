/**
 * A request as the report's samples and a capture keep it: values under keys
 * that name a credential are replaced. The caller's Authorization is never
 * part of a request message, so it is never kept at all.
 */
const SECRET = /token|secret|password|passphrase|credential|authorization|private_?key|privateKey|apiKey|api_key/i;
/** Paging cursors are not credentials and a replay needs them. */
const KEPT = /^(page_?token|pageToken|next_?page_?token|nextPageToken)$/;

export const REDACTED = '(redacted)';

export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, SECRET.test(k) && !KEPT.test(k) && v !== '' && v !== undefined ? REDACTED : redact(v)]));
  }
  return value;
}
