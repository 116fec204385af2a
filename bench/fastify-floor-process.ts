/**
 * Benchmark child: the Fastify floor. The raw floor's forward (bench/floor-process.ts) inside a Fastify
 * route, as a gateway built on Fastify must at least spend before it does any work of its own: Fastify's
 * routing and request lifecycle, and v1's answer read whole before it is sent (any gateway that
 * translates an answer reads all of it first). No logger, hooks, parsing, rendering or metrics: those are
 * the gateway's own work. So the gateway's Get is read in two steps (bench/README.md): the raw floor to
 * this one is what the framework costs, this one to the gateway is what the gateway does.
 *
 * Answers GET only (the bench loads nothing else). `--v1-url <url>`; prints `{"url"}` once listening on
 * a loopback port chosen by the OS, then serves until its parent closes stdin or sends SIGTERM/SIGINT.
 */
import Fastify from 'fastify';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { endToEnd } from './lib/end-to-end.ts';
import { serveAppOnLoopback } from './lib/floor-server.ts';

const { values } = parseArgs({ options: { 'v1-url': { type: 'string' } }, strict: true });
if (!values['v1-url']) throw new Error('--v1-url is required');
const v1 = new Pool(values['v1-url']);

const app = Fastify({ logger: false });
app.get('/*', async (request, reply) => {
  try {
    const answer = await v1.request({ method: 'GET', path: request.url, headers: endToEnd(request.headers) });
    const bytes = await answer.body.bytes();
    return reply.code(answer.statusCode).headers(endToEnd(answer.headers)).send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch {
    // The benchmark counts any non-200; the floor says no more than that.
    return reply.code(502).send();
  }
});
await serveAppOnLoopback(app, v1);
