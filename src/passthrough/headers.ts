/**
 * Which headers cross the pass-through. Everything does except what describes
 * one connection rather than the message (RFC 9110 §7.6.1): those are about
 * the client's socket or v1's, and the gateway has its own of each.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { TRACEPARENT_HEADER, TRACESTATE_HEADER } from '../observability/trace-context.ts';

type Headers = IncomingHttpHeaders;

const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'te',
  'transfer-encoding',
  'upgrade',
  'trailer',
  'http2-settings',
]);

/** The names a Connection header lists are hop-by-hop too, whatever they are. */
function listedInConnection(headers: Headers): string[] {
  const value = headers.connection;
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text.split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
}

function withoutHopByHop(headers: Headers, alsoDrop: readonly string[]): Headers {
  const drop = new Set([...HOP_BY_HOP, ...listedInConnection(headers), ...alsoDrop]);
  const kept: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    // `:method`, `:path`, `:authority`, …: HTTP/2's pseudo-headers belong to the client's stream.
    if (value !== undefined && !drop.has(name.toLowerCase()) && !name.startsWith(':')) kept[name] = value;
  }
  return kept;
}

/**
 * The client's headers as v1 gets them. `expect` goes too: Node has already
 * answered `100 Continue` to the client, and undici refuses to send it. So
 * does `host`, the gateway's own authority: undici names v1's.
 *
 * `trace` is the context of the gateway's own span for this call, when it
 * made one: it replaces the client's `traceparent` and `tracestate`, so v1
 * gets exactly one, naming that span as its parent. Without it (tracing off)
 * the client's pass through untouched, as every other header does.
 */
export function requestHeadersForV1(headers: Headers, trace?: Readonly<Record<string, string>>): Headers {
  if (!trace) return withoutHopByHop(headers, ['expect', 'host']);
  return { ...withoutHopByHop(headers, ['expect', 'host', TRACEPARENT_HEADER, TRACESTATE_HEADER]), ...trace };
}

/** v1's response headers as the client gets them. */
export function responseHeadersForClient(headers: Headers): Headers {
  return withoutHopByHop(headers, []);
}
