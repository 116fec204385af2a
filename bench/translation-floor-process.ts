/**
 * Benchmark child: the translating floor. The least any gateway in Node spends to answer a v2 Get or List
 * page from v1: the raw floor's forward (bench/floor-process.ts) with v1's answer translated as
 * bench/lib/least-translation.ts says (read whole, parsed with JSON.parse, the served rows rendered by the
 * gateway's own renderer) and sent as one JSON body. Nothing else: no routing, input checks, filters,
 * order, page tokens, kept times, logging or metrics, which the gateway must also do.
 *
 * So it bounds a target from below: a List page read afresh costs a translator at least this much (the
 * whole list parsed), whatever it does besides. Read beside the gateway, it tells the cost of reading
 * v1's answer from the cost of the gateway's own work (bench/README.md, The floor).
 *
 * Requests carry v1's path, as the other floors' do. `--v1-url <url> --resource <name>`, and `--page <n>`
 * for a List (answers `{ <name>: [the first n rows] }`); without it, a Get (answers the first row alone).
 * Prints `{"url"}` once listening on a loopback port chosen by the OS, then serves until its parent closes
 * stdin or sends SIGTERM/SIGINT.
 */
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { endToEnd } from './lib/end-to-end.ts';
import { forwardFailed, http, serveOnLoopback } from './lib/floor-server.ts';
import { leastTranslation, TRANSLATION_OPTIONS, wholeBody } from './lib/least-translation.ts';

const { values } = parseArgs({ options: { 'v1-url': { type: 'string' }, ...TRANSLATION_OPTIONS }, strict: true });
if (!values['v1-url']) throw new Error('--v1-url is required');
const translate = leastTranslation(values);
const v1 = new Pool(values['v1-url']);

const server = http.createServer(async (request, response) => {
  try {
    const answer = await v1.request({ method: 'GET', path: request.url!, headers: endToEnd(request.headers) });
    const body = translate(answer.statusCode, await wholeBody(answer.body));
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
