/**
 * The headers a pass-through forwards: all but the hop-by-hop ones, which belong to one connection,
 * not to the message (RFC 9110 §7.6.1). Shared by the floors (bench/floor-process.ts,
 * bench/fastify-floor-process.ts), so both forward the same message.
 */
import type { IncomingHttpHeaders } from 'node:http';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host']);

export function endToEnd(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  return kept;
}
