/**
 * Benchmark child: the raw pass-through floor. A node:http server that
 * forwards each request as it came (method, path and query, headers, body) to
 * v1 over an undici Pool and streams v1's answer back, and does nothing else:
 * no routing, no parsing, no logging, no metrics. What any proxy written in
 * Node must at least spend, so the gateway's figures are read against it
 * (issue 12). `--v1-url <url>`; prints `{"url"}` once listening on a loopback
 * port chosen by the OS, then serves until its parent closes stdin or sends
 * SIGTERM/SIGINT.
 */
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { endToEnd } from './lib/end-to-end.ts';
import { forwardFailed, http, serveOnLoopback } from './lib/floor-server.ts';

const { values } = parseArgs({ options: { 'v1-url': { type: 'string' } }, strict: true });
if (!values['v1-url']) throw new Error('--v1-url is required');
const v1 = new Pool(values['v1-url']);

const server = http.createServer(async (request, response) => {
  try {
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    const answer = await v1.request({ method: request.method as 'GET', path: request.url!, headers: endToEnd(request.headers), body: hasBody ? request : null });
    response.writeHead(answer.statusCode, endToEnd(answer.headers));
    // pipe, not stream.pipeline: the floor's streaming should cost what Node's cheapest way costs.
    answer.body.on('error', () => response.destroy()).pipe(response);
  } catch {
    forwardFailed(response);
  }
});
serveOnLoopback(server, v1);
