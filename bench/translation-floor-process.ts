/**
 * Benchmark child: the translating floor. The least any gateway in Node spends to answer a v2 Get or List
 * page from v1: the raw floor's forward (bench/floor-process.ts), with v1's answer read whole, parsed with
 * JSON.parse (Node's cheapest whole parse) and the rows it serves rendered by the gateway's own renderer
 * (renderV2 with the resource's field table), then sent as one JSON body. Nothing else: no routing, input
 * checks, filters, order, page tokens, kept times, logging or metrics, which the gateway must also do.
 *
 * So it bounds a target from below: a List page read afresh costs a translator at least this much (the
 * whole list parsed), whatever it does besides. A gateway target set under this floor's cost cannot be met
 * by reading v1's answers with JSON.parse; read beside the gateway, it tells the cost of reading v1's
 * answer from the cost of the gateway's own work (bench/README.md).
 *
 * Requests carry v1's path, as the other floors' do. `--v1-url <url> --resource <name>`, and `--page <n>`
 * for a List (answers `{ <name>: [the first n rows] }`); without it, a Get (answers the first row alone).
 * Prints `{"url"}` once listening on a loopback port chosen by the OS, then serves until its parent closes
 * stdin or sends SIGTERM/SIGINT.
 */
import { http } from '../src/node-http.ts';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { MAPPINGS } from '../mappings/index.ts';
import { MappingRegistry } from '../src/engine/registry.ts';
import { renderV2, type Json } from '../src/engine/shape.ts';
import { endToEnd } from './lib/end-to-end.ts';
import { forwardFailed, serveOnLoopback } from './lib/floor-server.ts';

const { values } = parseArgs({ options: { 'v1-url': { type: 'string' }, resource: { type: 'string' }, page: { type: 'string' } }, strict: true });
if (!values['v1-url']) throw new Error('--v1-url is required');
if (!values.resource) throw new Error('--resource is required');
const fields = new MappingRegistry(MAPPINGS).get(values.resource).fields;
const page = values.page === undefined ? undefined : Number(values.page);
if (page !== undefined && !(Number.isInteger(page) && page > 0)) throw new Error(`--page: expected a positive integer, got ${values.page}`);
const name = values.resource;
const v1 = new Pool(values['v1-url']);

/** The v2 answer made from v1's: the first row (a Get), or the first `page` rows under the resource's name. */
function translated(answer: { items?: unknown }): unknown {
  const rows = Array.isArray(answer.items) ? (answer.items as Json[]) : [];
  if (page === undefined) return rows.length > 0 ? renderV2(fields, rows[0]!) : undefined;
  return { [name]: rows.slice(0, page).map((row) => renderV2(fields, row)) };
}

const server = http.createServer(async (request, response) => {
  try {
    const answer = await v1.request({ method: 'GET', path: request.url!, headers: endToEnd(request.headers) });
    // Chunks gathered and joined once: ~8 µs a Get less than the body's arrayBuffer() here.
    const chunks: Buffer[] = [];
    for await (const chunk of answer.body) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    const body = answer.statusCode === 200 ? translated(JSON.parse(bytes.toString('utf8')) as { items?: unknown }) : undefined;
    if (body === undefined) {
      forwardFailed(response);
      return;
    }
    const text = JSON.stringify(body);
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  } catch {
    forwardFailed(response);
  }
});
serveOnLoopback(server, v1);
