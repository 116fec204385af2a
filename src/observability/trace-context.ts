/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): reading a
 * caller's `traceparent`, and the headers that carry a context to the next
 * hop. Pure; the gateway uses it with tracing off too, to hand the caller's
 * context to v1 unchanged.
 */

export interface TraceParent {
  traceId: string;
  /** The caller's span: the parent of whatever the next hop makes. */
  spanId: string;
  /** Bit 0: the caller sampled this trace. */
  flags: number;
}

/** version-traceid-parentid-flags, lower-case hex; a future version may append fields after a dash. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/**
 * The caller's trace context, or undefined when the header is absent or not
 * one the specification lets a receiver continue: version `ff`, all-zero ids,
 * extra fields on version 00, or several headers (Node joins repeated
 * headers with a comma, which no valid value contains).
 */
export function parseTraceparent(value: string | readonly string[] | null | undefined): TraceParent | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId: traceId!, spanId: spanId!, flags: parseInt(flags!, 16) };
}

export function formatTraceparent(traceId: string, spanId: string, flags: number): string {
  return `00-${traceId}-${spanId}-${(flags & 0xff).toString(16).padStart(2, '0')}`;
}

/** Header names as Node presents them (lower case). */
export const TRACEPARENT_HEADER = 'traceparent';
export const TRACESTATE_HEADER = 'tracestate';

/** The headers that carry a context on: `traceparent`, and `tracestate` when there is one. */
export function propagationHeaders(traceparent: string, tracestate: string | undefined): Readonly<Record<string, string>> {
  return tracestate ? { [TRACEPARENT_HEADER]: traceparent, [TRACESTATE_HEADER]: tracestate } : { [TRACEPARENT_HEADER]: traceparent };
}

/** A caller's `tracestate`, when usable: one header line (repeated ones are joined by Node, as the spec allows), 512 characters at most. */
export function usableTracestate(value: string | readonly string[] | null | undefined): string | undefined {
  const text = typeof value === 'string' ? value.trim() : Array.isArray(value) ? value.join(',') : '';
  return text && text.length <= 512 ? text : undefined;
}
