/**
 * Benchmark child: the translating floor for gRPC. The gRPC floor's call (bench/grpc-floor-process.ts: the
 * request message read and dropped, the scenario's one v1 call) with v1's answer translated as
 * bench/lib/least-translation.ts says and answered as the RPC's own response message, written by the
 * gateway's own encoder, framed as it frames it (framedDocument, src/transport/grpc/document-binary.ts). No routing, request
 * decoding, checks, deadlines, logging or metrics. What the gateway's gRPC Get is read against beside the
 * gRPC floor (bench/README.md, The floor).
 *
 * `--v1-url <url> --v1-path <path?query> --rpc <package.Service/Method> --resource <name>` (and `--page
 * <n>` for a List); prints `{"url"}` once listening on a loopback port chosen by the OS.
 */
import http2 from 'node:http2';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { apiServices, framedDocument } from '../src/index.ts';
import { answerUnaryCalls, serveOnLoopback } from './lib/floor-server.ts';
import { leastTranslation, TRANSLATION_OPTIONS, wholeBody } from './lib/least-translation.ts';

const { values } = parseArgs({ options: { 'v1-url': { type: 'string' }, 'v1-path': { type: 'string' }, rpc: { type: 'string' }, ...TRANSLATION_OPTIONS }, strict: true });
if (!values['v1-url'] || !values['v1-path'] || !values.rpc) throw new Error('--v1-url, --v1-path and --rpc are required');
const [serviceName, methodName] = values.rpc.split('/');
const method = apiServices().find((s) => s.typeName === serviceName)?.methods.find((m) => m.name === methodName);
if (!method) throw new Error(`--rpc: ${values.rpc} is no method of the contract`);
const translate = leastTranslation(values);
const v1 = new Pool(values['v1-url']);
const path = values['v1-path'];

const server = http2.createServer();
answerUnaryCalls(server, async (headers) => {
  const answer = await v1.request({ method: 'GET', path, headers: { authorization: String(headers.authorization ?? '') } });
  const document = translate(answer.statusCode, await wholeBody(answer.body));
  if (document === undefined) throw new Error(`v1 answered ${answer.statusCode} without a row`);
  return framedDocument(method.output, document as Parameters<typeof framedDocument>[1]);
});
serveOnLoopback(server, v1);
