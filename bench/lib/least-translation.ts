/**
 * What the translating floors do to v1's answer, and nothing more: read it whole, parse it with
 * JSON.parse, and render the rows served with the gateway's own renderer (renderV2 over the resource's
 * field table). The REST floor (bench/translation-floor-process.ts) sends the result as JSON, the gRPC
 * one (bench/grpc-translation-floor-process.ts) as the RPC's protobuf message.
 */
import { MAPPINGS } from '../../mappings/index.ts';
import { MappingRegistry } from '../../src/engine/registry.ts';
import { renderV2 } from '../../src/engine/v1-row.ts';
import type { Json } from '../../src/vocabulary/json.ts';

/** The floors' shared flags (node:util parseArgs): `--resource <name>` as the mappings name it, `--page <n>` for a List. */
export const TRANSLATION_OPTIONS = { resource: { type: 'string' }, page: { type: 'string' } } as const;

/**
 * v1's answer (its status and whole body) made the v2 document the floor answers: its first row for a
 * Get (no `page`), or `{ <resource>: [the first page rows] }` for a List; undefined when v1 did not
 * answer 200 or a Get finds no row. Throws where JSON.parse does.
 */
export type Translate = (statusCode: number, body: Buffer) => Json | undefined;

export function leastTranslation(values: { resource?: string | undefined; page?: string | undefined }): Translate {
  if (!values.resource) throw new Error('--resource is required');
  const name = values.resource;
  const fields = new MappingRegistry(MAPPINGS).get(name).fields;
  const page = values.page === undefined ? undefined : Number(values.page);
  if (page !== undefined && !(Number.isInteger(page) && page > 0)) throw new Error(`--page: expected a positive integer, got ${values.page}`);
  return (statusCode, body) => {
    if (statusCode !== 200) return undefined;
    const answer = JSON.parse(body.toString('utf8')) as { items?: unknown };
    const rows = Array.isArray(answer.items) ? (answer.items as Json[]) : [];
    if (page === undefined) return rows.length > 0 ? renderV2(fields, rows[0]!) : undefined;
    return { [name]: rows.slice(0, page).map((row) => renderV2(fields, row)) };
  };
}

/** v1's answer body whole: its chunks joined once (~8 µs a Get less than undici's `arrayBuffer()` here). */
export async function wholeBody(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}
