/**
 * Benchmark child: the raw pass-through floor for gRPC, what the gateway's
 * gRPC figures are read against (the HTTP/1.1 floor, floor-process.ts, would
 * charge HTTP/2 and the gRPC client's own costs to the gateway). A node:http2
 * h2c server that, for every unary call, reads the request message (unread:
 * the v1 path is fixed, `--v1-path`), makes the same one v1 call over an
 * undici Pool with the caller's authorization, and answers with v1's bytes
 * framed as a gRPC message: carried in field 15, which no response of the
 * contract has, so any client decodes it as an unknown field. No routing,
 * parsing, logging or metrics. `--v1-url <url> --v1-path <path?query>`;
 * prints `{"url"}` once listening on a loopback port chosen by the OS.
 */
import http2 from 'node:http2';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { answerUnaryCalls, serveOnLoopback } from './lib/floor-server.ts';

const { values } = parseArgs({ options: { 'v1-url': { type: 'string' }, 'v1-path': { type: 'string' } }, strict: true });
if (!values['v1-url'] || !values['v1-path']) throw new Error('--v1-url and --v1-path are required');
const v1 = new Pool(values['v1-url']);
const path = values['v1-path'];

/** Field 15, wire type 2 (length-delimited): (15 << 3) | 2. */
const FIELD_15_BYTES = 0x7a;

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** v1's answer as one gRPC message: the 5-byte prefix, then field 15 holding the bytes. */
function framed(bytes: Buffer): Buffer {
  const head = Buffer.from([FIELD_15_BYTES, ...varint(bytes.length)]);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(head.length + bytes.length, 1);
  return Buffer.concat([prefix, head, bytes]);
}

const server = http2.createServer();
answerUnaryCalls(server, async (headers) => {
  const answer = await v1.request({ method: 'GET', path, headers: { authorization: String(headers.authorization ?? '') } });
  const bytes = Buffer.from(await answer.body.arrayBuffer());
  if (answer.statusCode !== 200) throw new Error(`v1 answered ${answer.statusCode}`);
  return framed(bytes);
});
serveOnLoopback(server, v1);
