/**
 * A request's id: the caller's `x-request-id` when it is one a log line and a
 * response header can carry (1 to 128 printable ASCII characters, no spaces:
 * UUIDs, trace ids), otherwise a new UUID. The id is logged with every line of
 * the request and echoed in headers and ErrorInfo, so a caller cannot make
 * either carry kilobytes of its own text.
 */
import { randomUUID } from 'node:crypto';

const USABLE = /^[\x21-\x7e]{1,128}$/;

export function requestIdOf(header: string | string[] | null | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && USABLE.test(value) ? value : randomUUID();
}
