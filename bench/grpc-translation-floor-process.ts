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
 *
 * `--duties --log <file>` (and `--v1-timeout-ms <ms>`): the same with what issue 40 names as always on
 * (bench/lib/least-duties.ts): an access line a call, the gateway's RPC metrics (exposed at GET `/metrics`
 * over h2c), a deadline on the v1 call and the caller's Authorization forwarded. The gRPC floor with the
 * default duties, the gateway's gRPC Get's anchor for goal 3.
 */
import http2, { type IncomingHttpHeaders } from 'node:http2';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { apiServices, framedDocument } from '../src/index.ts';
import { answerUnaryCalls, serveOnLoopback, type CallKeeping } from './lib/floor-server.ts';
import { DUTY_OPTIONS, leastDuties, METRICS_PATH, type Duties } from './lib/least-duties.ts';
import { leastTranslation, TRANSLATION_OPTIONS, wholeBody } from './lib/least-translation.ts';

const { values } = parseArgs({ options: { 'v1-url': { type: 'string' }, 'v1-path': { type: 'string' }, rpc: { type: 'string' }, duties: { type: 'boolean', default: false }, ...DUTY_OPTIONS, ...TRANSLATION_OPTIONS }, strict: true });
if (!values['v1-url'] || !values['v1-path'] || !values.rpc) throw new Error('--v1-url, --v1-path and --rpc are required');
if (!values.duties && (values.log || values['v1-timeout-ms'])) throw new Error('--log and --v1-timeout-ms go with --duties');
const [serviceName, methodName] = values.rpc.split('/');
const method = apiServices().find((s) => s.typeName === serviceName)?.methods.find((m) => m.name === methodName);
if (!method) throw new Error(`--rpc: ${values.rpc} is no method of the contract`);
const translate = leastTranslation(values);
const v1 = new Pool(values['v1-url']);
const path = values['v1-path'];
const duties = values.duties ? await leastDuties(values) : undefined;

/** v1's answer as the RPC's response message, framed; throws when there is none. */
function encoded(statusCode: number, body: Buffer): Buffer {
  const document = translate(statusCode, body);
  if (document === undefined) throw new Error(`v1 answered ${statusCode} without a row`);
  return framedDocument(method!.output, document as Parameters<typeof framedDocument>[1]);
}

/** The one v1 call with the caller's authorization, and its answer encoded: the plain floor's, or under the duties' deadline. */
const answer = duties
  ? async (headers: IncomingHttpHeaders): Promise<Buffer> => {
    const { statusCode, body } = await duties.call(v1, path, String(headers.authorization ?? ''));
    return encoded(statusCode, body);
  }
  : async (headers: IncomingHttpHeaders): Promise<Buffer> => {
    const answer = await v1.request({ method: 'GET', path, headers: { authorization: String(headers.authorization ?? '') } });
    return encoded(answer.statusCode, await wholeBody(answer.body));
  };

/** The duties' keeping of every call, and `/metrics` answered beside them. */
function keeping(duties: Duties): CallKeeping {
  const rpc = duties.rpc(method!.parent.typeName, method!.name);
  return {
    started: rpc.started,
    ended: rpc.ended,
    served(stream, headers) {
      if (headers[':path'] !== METRICS_PATH) return false;
      void duties.exposition().then(({ contentType, body }) => {
        stream.respond({ ':status': 200, 'content-type': contentType });
        stream.end(body);
      });
      return true;
    },
  };
}

const server = http2.createServer();
answerUnaryCalls(server, answer, duties && keeping(duties));
serveOnLoopback(server, v1);
