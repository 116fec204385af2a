/**
 * Benchmark child: a candidate that answers as a real one did, for next to nothing. It asks the candidate at
 * `--v1-url` (a gateway: startFloor's flag names every floor's upstream) the `compare` part's question once,
 * `--path`, as the benchmark's caller, and then answers every request with those bytes, status and content
 * type, without reading anything of the request but its end.
 *
 * Why: the `compare` part measures what a comparison costs the primary, whose candidate must answer at least
 * as fast as the primary asks, or comparisons are dropped (the gateway) and skipped (the floors) and their cost
 * leaves the figure. A real candidate (a gateway over an emulator) on the candidates' core answered slower than
 * the primaries' core asked. The primary cannot tell the two apart: it sends the same call and reads the same
 * bytes.
 *
 * Prints `{"url"}` once listening on a loopback port chosen by the OS, then serves until its parent closes stdin
 * or sends SIGTERM/SIGINT.
 */
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { http, serveOnLoopback } from './lib/floor-server.ts';
import { AUTHORIZATION } from './lib/targets.ts';

const { values } = parseArgs({ options: { 'v1-url': { type: 'string' }, path: { type: 'string' } }, strict: true });
if (!values['v1-url'] || !values.path) throw new Error('--v1-url (the candidate to record) and --path are required');
const upstream = new Pool(values['v1-url']);
const recorded = await upstream.request({ method: 'GET', path: values.path, headers: { authorization: AUTHORIZATION } });
const body = Buffer.from(await recorded.body.arrayBuffer());
if (recorded.statusCode !== 200) throw new Error(`the candidate answered ${recorded.statusCode} to ${values.path}: ${body.toString('utf8').slice(0, 200)}`);
const headers = { 'content-type': String(recorded.headers['content-type'] ?? 'application/json'), 'content-length': String(body.length) };

const server = http.createServer((request, response) => {
  request.resume();
  request.once('end', () => response.writeHead(200, headers).end(body));
});
serveOnLoopback(server, upstream);
