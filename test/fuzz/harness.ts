/**
 * Sends fuzz requests over each channel and judges every answer against the
 * rules that hold for any input whatsoever:
 *
 * - an error is AIP-193 (`{code, message, details: [ErrorInfo, …]}`, strictly
 *   a google.rpc.Status) with the HTTP status grpc-gateway pairs with its code,
 *   or a gRPC status whose `grpc-status-details-bin` decodes to the same
 *   google.rpc.Status (for the Connect protocol: its JSON error with an
 *   ErrorInfo detail);
 * - nothing is INTERNAL, UNKNOWN or DATA_LOSS (HTTP 500);
 * - no answer carries a stack trace or a source path;
 * - a success parses strictly (no unknown field) as its RPC's response message.
 *
 * Each check answers the problems it found, in words, so a failure report can
 * list them beside the request that caused them.
 */
import http from 'node:http';
import http2 from 'node:http2';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { fromBinary, fromJson, toJson, type DescMessage, type JsonValue, type Message } from '@bufbuild/protobuf';
import { isReflectList, isReflectMap, isReflectMessage, reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { ConnectError, createClient, type Client, type Transport } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { contract } from '../../src/contract/registry.ts';
import { httpStatusFor, isCode } from '../../src/rpc-status.ts';
import { LEAKS, routeFor, rpcByPath, RPCS, type ConnectRequest, type FuzzRequest, type GrpcRawRequest, type GrpcRequest, type GrpcWebRequest, type RestRequest } from './generators.ts';

const STATUS = contract.getMessage('google.rpc.Status')!;
const ERROR_INFO = contract.getMessage('google.rpc.ErrorInfo')!;
const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
/** Codes no input may produce: UNKNOWN, INTERNAL, DATA_LOSS. */
const FORBIDDEN = new Set([2, 13, 15]);
const TIMEOUT_MS = 15_000;
const V2_PATH = /^\/(iam|registry|vulnerabilities|advisory|events)\/v2(beta1)?(\/|:|$)/;

export interface Outcome {
  /** What was answered, in one line: `400 INVALID_ARGUMENT`, `grpc 5`. */
  summary: string;
  problems: string[];
  /** The answer's request id, to tie log lines to the request. */
  requestId?: string;
}

// ---- shared checks -------------------------------------------------------------------

function leaks(text: string, where: string): string[] {
  return LEAKS.filter(([pattern]) => pattern.test(text)).map(([, what]) => `${where} contains ${what}: ${clip(text, 400)}`);
}

/** Every string inside a JSON value, each tested for leaks (escapes decoded). */
function leaksInJson(value: unknown, where: string): string[] {
  const found: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') found.push(...leaks(v, where));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.entries(v).forEach(([k, x]) => { found.push(...leaks(k, where)); walk(x); });
  };
  walk(value);
  return found;
}

export function clip(text: string, max = 300): string {
  return text.length <= max ? text : `${text.slice(0, max)}…[${text.length - max} more]`;
}

/** Where a decoded message carries fields its schema does not declare. */
function unknownFields(message: ReflectMessage, path = ''): string[] {
  const found: string[] = [];
  if ((message.getUnknown()?.length ?? 0) > 0) found.push(path || '(the message)');
  for (const field of message.fields) {
    if (!message.isSet(field)) continue;
    const value = message.get(field) as unknown;
    const at = path ? `${path}.${field.name}` : field.name;
    if (isReflectMessage(value)) found.push(...unknownFields(value, at));
    else if (isReflectList(value)) { let i = 0; for (const item of value) { if (isReflectMessage(item)) found.push(...unknownFields(item, `${at}[${i}]`)); i++; } }
    else if (isReflectMap(value)) for (const [k, item] of value) if (isReflectMessage(item)) found.push(...unknownFields(item, `${at}[${String(k)}]`));
  }
  return found;
}

function strictBinary(desc: DescMessage, bytes: Uint8Array, what: string): string[] {
  try {
    const message = fromBinary(desc, bytes);
    const unknown = unknownFields(reflect(desc, message));
    return unknown.length ? [`${what} is a ${desc.typeName} with fields it does not declare at ${unknown.join(', ')}`] : [];
  } catch (error) {
    return [`${what} is not a ${desc.typeName}: ${(error as Error).message}`];
  }
}

function strictJson(desc: DescMessage, body: unknown, what: string): string[] {
  try {
    fromJson(desc, body as JsonValue, { registry: contract, ignoreUnknownFields: false });
    return [];
  } catch (error) {
    return [`${what} is not a ${desc.typeName}: ${(error as Error).message}`];
  }
}

/** A google.rpc.Status (decoded to protojson) holds a known, allowed code and an ErrorInfo first. */
function statusProblems(status: { code?: number; message?: string; details?: { '@type'?: string }[] }, where: string): string[] {
  const problems: string[] = [];
  const code = status.code ?? 0;
  if (!isCode(code) || code === 0) problems.push(`${where}: code ${code} is no error code`);
  if (FORBIDDEN.has(code)) problems.push(`${where}: code ${code} (${code === 13 ? 'INTERNAL' : code === 2 ? 'UNKNOWN' : 'DATA_LOSS'}): ${clip(status.message ?? '')}`);
  if (!status.details?.length || status.details[0]!['@type'] !== ERROR_INFO_TYPE) problems.push(`${where}: details[0] is not an ErrorInfo: ${clip(JSON.stringify(status.details ?? null))}`);
  problems.push(...leaksInJson(status, where));
  return problems;
}

// ---- REST ------------------------------------------------------------------------------

interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  bytes?: Buffer;
}

function httpRequest(url: URL, method: string, target: string, headers: Record<string, string>, body: string | Buffer | undefined): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const request = http.request({
      host: url.hostname, port: url.port, method, path: target, agent: false,
      headers: { ...headers, ...(payload ? { 'content-length': String(payload.length) } : {}) },
      timeout: TIMEOUT_MS,
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: bytes.toString('utf8'), bytes });
      });
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    request.on('error', reject);
    request.end(payload);
  });
}

/** The checks on an answer that came back over REST (or the REST fallback of the gRPC port). */
function restProblems(method: string, target: string, answer: HttpAnswer): string[] {
  const problems: string[] = [];
  const { status, text } = answer;
  problems.push(...leaks(text, 'the body'));
  if (status === 500) problems.push(`HTTP 500: ${clip(text)}`);
  if (method.toUpperCase() === 'HEAD') return problems;
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    return [...problems, `HTTP ${status} with a body that is not JSON: ${clip(text)}`];
  }
  problems.push(...leaksInJson(body, 'the body'));
  if (status >= 200 && status < 300) {
    const path = target.split('?', 1)[0]!;
    if (!V2_PATH.test(path)) return [...problems, `HTTP ${status} for a path outside the v2 API`];
    const route = routeFor(method.toUpperCase(), path);
    if (!route) return [...problems, `HTTP ${status} although no route of the contract matches ${method} ${path}`];
    if (body === undefined) return [...problems, `HTTP ${status} with an empty body`];
    return [...problems, ...strictJson(route.rpc.output, body, `the ${status} body`)];
  }
  const b = body as { code?: unknown; message?: unknown; details?: unknown } | undefined;
  if (!b || typeof b.code !== 'number' || typeof b.message !== 'string' || !Array.isArray(b.details)) {
    return [...problems, `HTTP ${status} without an AIP-193 body: ${clip(text)}`];
  }
  problems.push(...strictJson(STATUS, body, `the ${status} body`));
  problems.push(...statusProblems(b as never, 'the error'));
  if (isCode(b.code) && httpStatusFor(b.code) !== status) problems.push(`HTTP ${status} for code ${b.code}, which grpc-gateway answers with ${httpStatusFor(b.code)}`);
  return problems;
}

/** An error body's numeric code for the summary; a success may have a `code` field of its own (a group invite's). */
function codeOf(text: string): string {
  try {
    const code = JSON.parse(text)?.code;
    return typeof code === 'number' ? ` code ${code}` : '';
  } catch {
    return '';
  }
}

export async function sendRest(url: URL, request: RestRequest): Promise<Outcome> {
  let answer: HttpAnswer;
  try {
    answer = await httpRequest(url, request.method, request.target, request.headers, request.body);
  } catch (error) {
    const message = (error as Error).message;
    const why = request.method === 'HEAD' && /Data after/.test(message) ? ' (the answer to a HEAD carried a body, which HTTP forbids)' : '';
    return { summary: 'no answer', problems: [`no HTTP answer: ${message}${why}`] };
  }
  return {
    summary: `HTTP ${answer.status}${codeOf(answer.text)}`,
    problems: restProblems(request.method, request.target, answer),
    requestId: String(answer.headers['x-request-id'] ?? ''),
  };
}

// ---- gRPC through the Connect client ----------------------------------------------------

export class GrpcChannel {
  readonly #transport: Transport;
  readonly #clients = new Map<string, Client<any>>();

  constructor(url: string) {
    this.#transport = createGrpcTransport({ baseUrl: url });
  }

  #client(service: string): Client<any> {
    let client = this.#clients.get(service);
    if (!client) {
      client = createClient(RPCS.find((m) => m.parent.typeName === service)!.parent, this.#transport);
      this.#clients.set(service, client);
    }
    return client;
  }

  async send(request: GrpcRequest): Promise<Outcome> {
    const rpc = rpcByPath(request.rpc)!;
    const message = fromJson(rpc.input, request.message, { registry: contract });
    const headers: Record<string, string> = request.authorization === null ? {} : { authorization: request.authorization };
    let response: Message;
    try {
      response = await (this.#client(rpc.parent.typeName) as Record<string, Function>)[rpc.localName]!(message, { headers, timeoutMs: TIMEOUT_MS });
    } catch (error) {
      if (!(error instanceof ConnectError)) return { summary: 'client error', problems: [`the call failed outside gRPC: ${(error as Error).stack}`] };
      return grpcErrorOutcome(error);
    }
    const unknown = unknownFields(reflect(rpc.output, response as never));
    const problems = unknown.length ? [`the response is a ${rpc.output.typeName} with fields it does not declare at ${unknown.join(', ')}`] : [];
    try {
      problems.push(...leaksInJson(toJson(rpc.output, response, { registry: contract }), 'the response'));
    } catch (error) {
      problems.push(`the response does not convert to JSON: ${(error as Error).message}`);
    }
    return { summary: 'grpc 0', problems };
  }
}


function decodeStatusBin(value: string): { status?: Record<string, any>; problem?: string } {
  try {
    const bytes = Buffer.from(value, 'base64');
    const unknown = unknownFields(reflect(STATUS, fromBinary(STATUS, bytes)));
    if (unknown.length) return { problem: `grpc-status-details-bin has fields google.rpc.Status lacks at ${unknown.join(', ')}` };
    return { status: toJson(STATUS, fromBinary(STATUS, bytes), { registry: contract }) as Record<string, any> };
  } catch (error) {
    return { problem: `grpc-status-details-bin is not a google.rpc.Status: ${(error as Error).message}` };
  }
}

function grpcErrorOutcome(error: ConnectError): Outcome {
  const grpcStatus = error.metadata.get('grpc-status');
  if (grpcStatus === null) {
    return { summary: `client ${error.code}`, problems: [`no grpc-status from the gateway (the client says code ${error.code}: ${clip(error.rawMessage)})`] };
  }
  const problems = checkGrpcStatus(Number(grpcStatus), error.rawMessage, error.metadata.get('grpc-status-details-bin'));
  return { summary: `grpc ${grpcStatus}`, problems, requestId: error.metadata.get('x-request-id') ?? undefined };
}

function checkGrpcStatus(code: number, message: string, detailsBin: string | null | undefined): string[] {
  const problems = leaks(message, 'grpc-message');
  if (FORBIDDEN.has(code)) problems.push(`grpc-status ${code}: ${clip(message)}`);
  if (code === 0) return problems;
  if (!detailsBin) return [...problems, `grpc-status ${code} without grpc-status-details-bin (message: ${clip(message)})`];
  const { status, problem } = decodeStatusBin(detailsBin);
  if (problem) return [...problems, problem];
  if ((status!.code ?? 0) !== code) problems.push(`grpc-status ${code} but the google.rpc.Status says ${status!.code}`);
  return [...problems, ...statusProblems(status!, 'grpc-status-details-bin').filter((p) => !/code \d+ \(/.test(p) || !FORBIDDEN.has(code))];
}

// ---- raw gRPC over HTTP/2 -----------------------------------------------------------------

const GRPC_TYPES = new Set(['application/grpc', 'application/grpc+proto', 'application/grpc+json', 'application/grpc-web', 'application/grpc-web+proto', 'application/grpc-web+json']);

export class Http2Channel {
  readonly #url: string;
  #session: http2.ClientHttp2Session | undefined;

  constructor(url: string) {
    this.#url = url;
  }

  #connect(): http2.ClientHttp2Session {
    if (!this.#session || this.#session.closed || this.#session.destroyed) {
      const session = http2.connect(this.#url);
      session.on('error', () => {});
      // A server that sent GOAWAY takes no new streams on this session: the next request opens another.
      session.on('goaway', () => {
        if (this.#session === session) this.#session = undefined;
      });
      this.#session = session;
    }
    return this.#session;
  }

  close(): void {
    this.#session?.close();
  }

  /** A REST request over this HTTP/2 connection, judged as REST. */
  rest(request: RestRequest): Promise<Outcome> {
    return new Promise((resolve) => {
      let stream: http2.ClientHttp2Stream;
      try {
        // Node closes a GET's or HEAD's side at once unless told a body follows.
        stream = this.#connect().request({ ':method': request.method, ':path': request.target, ...request.headers }, { endStream: request.body === undefined });
      } catch {
        // Node refuses to send what HTTP/2 cannot carry (a method or path it rejects): nothing reached the gateway.
        resolve({ summary: 'not sent', problems: [] });
        return;
      }
      let headers: http2.IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), TIMEOUT_MS);
      stream.on('response', (h) => { headers = h; });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      let settled = false;
      const done = (failure?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (failure) return resolve({ summary: 'reset', problems: [failure] });
        const status = Number(headers[':status'] ?? 0);
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ summary: `HTTP/2 ${status}${codeOf(text)}`, problems: restProblems(request.method, request.target, { status, headers: headers as http.IncomingHttpHeaders, text }), requestId: String(headers['x-request-id'] ?? '') });
      };
      stream.on('end', () => done());
      // Node's HTTP/2 layer refuses a header block over 64 KiB before any handler sees it: RST_STREAM
      // REFUSED_STREAM is the only answer HTTP/2 leaves it (the README's known limits say so).
      const oversized = headerListSize(request) > 65_536;
      const reset = (why: string) => {
        if (!(oversized && stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM)) return done(why);
        if (!settled) resolve({ summary: 'refused (header block over 64 KiB)', problems: [] });
        settled = true;
        clearTimeout(timer);
      };
      stream.on('error', (error) => reset(`the stream failed: ${error.message}`));
      stream.on('close', () => (stream.rstCode && !headers[':status'] ? reset(`the stream was reset (code ${stream.rstCode}) without an answer`) : done()));
      if (request.body !== undefined) stream.end(request.body);
    });
  }

  send(request: GrpcRawRequest): Promise<Outcome> {
    return new Promise((resolve) => {
      let stream: http2.ClientHttp2Stream;
      try {
        stream = this.#connect().request({ ':method': 'POST', ':path': request.path, ...request.headers });
      } catch (error) {
        resolve({ summary: 'not sent', problems: [`the HTTP/2 request could not be made: ${(error as Error).message}`] });
        return;
      }
      let headers: http2.IncomingHttpHeaders = {};
      let trailers: http2.IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), TIMEOUT_MS);
      stream.on('response', (h) => { headers = h; });
      stream.on('trailers', (t) => { trailers = t; });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      const done = (failure?: string) => {
        clearTimeout(timer);
        if (failure) return resolve({ summary: 'reset', problems: [failure] });
        resolve(judgeGrpcRaw(request, headers, trailers, Buffer.concat(chunks)));
      };
      stream.on('end', () => done());
      stream.on('error', (error) => done(`the stream failed: ${error.message}`));
      stream.on('close', () => {
        if (stream.rstCode && stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR && !headers[':status']) done(`the stream was reset (code ${stream.rstCode}) without an answer`);
        else done();
      });
      stream.end(request.body);
    });
  }
}

function judgeGrpcRaw(request: GrpcRawRequest | GrpcWebRequest, headers: http2.IncomingHttpHeaders, trailers: http2.IncomingHttpHeaders, body: Buffer): Outcome {
  const status = Number(headers[':status'] ?? 0);
  const contentType = String(headers['content-type'] ?? '');
  const rawStatus = trailers['grpc-status'] ?? headers['grpc-status'];
  const requestId = String(headers['x-request-id'] ?? '') || undefined;
  if (rawStatus === undefined) {
    // Not answered as gRPC: the REST fallback (a path no RPC has), or 415 for a content type gRPC does not speak.
    if (status === 415 && !GRPC_TYPES.has(request.headers['content-type']!)) return { summary: 'HTTP 415', problems: [], requestId };
    if (contentType.startsWith('application/grpc')) return { summary: `HTTP ${status} no grpc-status`, problems: [`a gRPC answer (HTTP ${status}) without grpc-status`], requestId };
    return { summary: `HTTP ${status}`, problems: restProblems('POST', request.path, { status, headers: headers as http.IncomingHttpHeaders, text: body.toString('utf8') }), requestId };
  }
  const code = Number(rawStatus);
  const rawMessage = String(trailers['grpc-message'] ?? headers['grpc-message'] ?? '');
  let message = rawMessage;
  try { message = decodeURIComponent(rawMessage); } catch { /* shown as sent */ }
  const details = (trailers['grpc-status-details-bin'] ?? headers['grpc-status-details-bin']) as string | undefined;
  const problems = checkGrpcStatus(code, message, details);
  if (status !== 200) problems.push(`HTTP ${status} for a gRPC answer (gRPC answers are HTTP 200)`);
  if (code === 0) {
    const rpc = rpcByPath(request.path);
    if (!rpc) problems.push('grpc-status 0 for a path no RPC has');
    else if (body.length < 5 || body.readUInt32BE(1) !== body.length - 5) problems.push(`grpc-status 0 with a body that is not one message frame (${body.length} bytes)`);
    else if (contentType.endsWith('+json')) {
      try { problems.push(...strictJson(rpc.output, JSON.parse(body.subarray(5).toString('utf8')), 'the response')); } catch (error) { problems.push(`the +json response is not JSON: ${(error as Error).message}`); }
    } else problems.push(...strictBinary(rpc.output, body.subarray(5), 'the response'));
  }
  return { summary: `grpc ${code}`, problems, requestId };
}

/** A request's header list as HPACK counts it (RFC 7541 §4.1: name, value and 32 octets per field). */
function headerListSize(request: RestRequest): number {
  const fields: [string, string][] = [[':method', request.method], [':path', request.target], [':scheme', 'http'], [':authority', '127.0.0.1:65535'], ...Object.entries(request.headers)];
  return fields.reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value) + 32, 0);
}

// ---- gRPC-Web over HTTP/1.1 -------------------------------------------------------------------------

/** A gRPC-Web answer: its message frames, and the trailer frame's `name: value` lines (absent for trailers-only). */
function splitGrpcWeb(body: Buffer, encoding: string): { messages: Buffer; trailers: Record<string, string>; problem?: string } {
  let at = 0;
  while (at + 5 <= body.length) {
    const flags = body[at]!;
    const length = body.readUInt32BE(at + 1);
    if (at + 5 + length > body.length) return { messages: body, trailers: {}, problem: `a gRPC-Web frame promises ${length} bytes past the end of the body` };
    if (flags & 0x80) {
      if (at + 5 + length !== body.length) return { messages: body, trailers: {}, problem: 'bytes after the gRPC-Web trailer frame' };
      // A trailer frame is compressed like a message when the answer's grpc-encoding says so (flag bit 0).
      let raw = body.subarray(at + 5);
      if (flags & 1) {
        try {
          raw = encoding === 'br' ? brotliDecompressSync(raw) : gunzipSync(raw);
        } catch (error) {
          return { messages: body, trailers: {}, problem: `a compressed gRPC-Web trailer frame that does not decompress (${encoding}): ${(error as Error).message}` };
        }
      }
      const lines = raw.toString('latin1').split('\r\n').filter(Boolean);
      const trailers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      return { messages: body.subarray(0, at), trailers };
    }
    at += 5 + length;
  }
  return at === body.length ? { messages: body, trailers: {} } : { messages: body, trailers: {}, problem: `${body.length - at} bytes that are no gRPC-Web frame` };
}

export async function sendGrpcWeb(url: URL, request: GrpcWebRequest): Promise<Outcome> {
  let answer: HttpAnswer;
  try {
    answer = await httpRequest(url, 'POST', request.path, request.headers, request.body);
  } catch (error) {
    return { summary: 'no answer', problems: [`no HTTP answer: ${(error as Error).message}`] };
  }
  const { messages, trailers, problem } = splitGrpcWeb(answer.bytes!, String(answer.headers['grpc-encoding'] ?? ''));
  const outcome = judgeGrpcRaw(request, { ...answer.headers, ':status': String(answer.status) } as http2.IncomingHttpHeaders, trailers, messages);
  if (problem && String(answer.headers['content-type'] ?? '').startsWith('application/grpc-web')) outcome.problems.push(problem);
  return outcome;
}

// ---- the Connect protocol (JSON over HTTP/1.1) -----------------------------------------------

const CONNECT_STATUS: Record<string, number> = {
  canceled: 499, unknown: 500, invalid_argument: 400, deadline_exceeded: 504, not_found: 404, already_exists: 409,
  permission_denied: 403, resource_exhausted: 429, failed_precondition: 400, aborted: 409, out_of_range: 400,
  unimplemented: 501, internal: 500, unavailable: 503, data_loss: 500, unauthenticated: 401,
};

export async function sendConnect(url: URL, request: ConnectRequest): Promise<Outcome> {
  let answer: HttpAnswer;
  try {
    answer = await httpRequest(url, 'POST', request.path, request.headers, request.body);
  } catch (error) {
    return { summary: 'no answer', problems: [`no HTTP answer: ${(error as Error).message}`] };
  }
  const requestId = String(answer.headers['x-request-id'] ?? '') || undefined;
  const contentType = String(answer.headers['content-type'] ?? '');
  const rpc = rpcByPath(request.path)!;
  const problems = leaks(answer.text, 'the body');
  if (answer.status === 415 && !/^application\/(json|proto)(; ?charset=utf-8)?$/i.test(request.headers['content-type'] ?? '')) return { summary: 'HTTP 415', problems, requestId };
  if (answer.status === 200) {
    if (contentType.startsWith('application/proto')) problems.push(...strictBinary(rpc.output, answer.bytes!, 'the response'));
    else {
      try { problems.push(...strictJson(rpc.output, JSON.parse(answer.text), 'the response')); } catch { problems.push(`HTTP 200 with a body that is not JSON: ${clip(answer.text)}`); }
    }
    return { summary: 'connect ok', problems, requestId };
  }
  let error: { code?: string; message?: string; details?: { type?: string; value?: string }[] };
  try {
    error = JSON.parse(answer.text);
  } catch {
    return { summary: `HTTP ${answer.status}`, problems: [...problems, `HTTP ${answer.status} with a body that is not a Connect error: ${clip(answer.text)}`], requestId };
  }
  const code = String(error.code ?? '');
  problems.push(...leaksInJson(error, 'the Connect error'));
  if (!(code in CONNECT_STATUS)) problems.push(`Connect error code ${JSON.stringify(error.code)} is no Connect code: ${clip(answer.text)}`);
  else if (CONNECT_STATUS[code] !== answer.status) problems.push(`HTTP ${answer.status} for Connect code ${code} (the protocol says ${CONNECT_STATUS[code]})`);
  if (['internal', 'unknown', 'data_loss'].includes(code)) problems.push(`Connect code ${code}: ${clip(error.message ?? '')}`);
  const info = error.details?.find((d) => d.type === 'google.rpc.ErrorInfo');
  if (!info) problems.push(`Connect error ${code} without an ErrorInfo detail (message: ${clip(error.message ?? '')})`);
  else problems.push(...strictBinary(ERROR_INFO, Buffer.from(info.value ?? '', 'base64'), 'the ErrorInfo detail'));
  return { summary: `connect ${code}`, problems, requestId };
}

// ---- dispatch and description ----------------------------------------------------------------

export interface Channels {
  url: URL;
  grpc: GrpcChannel;
  http2: Http2Channel;
}

function dispatch(channels: Channels, request: FuzzRequest): Promise<Outcome> {
  switch (request.channel) {
    case 'rest': return request.http2 ? retryRefused(() => channels.http2.rest(request)) : sendRest(channels.url, request);
    case 'grpc': return channels.grpc.send(request);
    case 'grpc-raw': return retryRefused(() => channels.http2.send(request));
    case 'grpc-web': return sendGrpcWeb(channels.url, request);
    case 'connect': return sendConnect(channels.url, request);
  }
}

/**
 * RST_STREAM REFUSED_STREAM promises the stream was not processed, and clients retry it on a new
 * connection, as this does once. Node refuses the streams a session opened after its GOAWAY, which it
 * sends when another request on the same session broke a limit (a header block over 64 KiB).
 */
async function retryRefused(send: () => Promise<Outcome>): Promise<Outcome> {
  const first = await send();
  const refused = first.problems.length > 0 && first.problems.every((p) => p.includes(`code ${http2.constants.NGHTTP2_REFUSED_STREAM})`) || p.includes('NGHTTP2_REFUSED_STREAM'));
  return refused ? send() : first;
}

/** The code an outcome's summary names (`grpc 4`, `HTTP 504 code 4`, `connect deadline_exceeded`). */
function codeIn(summary: string): number | undefined {
  const numeric = /^grpc (\d+)$|code (\d+)$/.exec(summary);
  if (numeric) return Number(numeric[1] ?? numeric[2]);
  const named = /^connect (\w+)/.exec(summary)?.[1];
  return named === 'canceled' ? 1 : named === 'deadline_exceeded' ? 4 : undefined;
}

const GRPC_TIMEOUT_UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 1e-3, n: 1e-6 };

/** The deadline a raw request's `grpc-timeout` sets, when it is one the spec allows (1 to 8 digits and a unit). */
function grpcTimeoutMs(request: FuzzRequest): number | undefined {
  if (request.channel !== 'grpc-raw' && request.channel !== 'grpc-web') return undefined;
  const match = /^(\d{1,8})([HMSmun])$/.exec(request.headers['grpc-timeout'] ?? '');
  return match ? Number(match[1]) * GRPC_TIMEOUT_UNIT_MS[match[2]!]! : undefined;
}

/**
 * Sends a request and judges its answer; then the rules on time: the fuzzer never
 * cancels, so CANCELLED is never a right answer, and DEADLINE_EXCEEDED is not
 * either when it comes long before any deadline the request set (the gateway's
 * own are 10 s for v1 and 30 s in all).
 */
export async function send(channels: Channels, request: FuzzRequest): Promise<Outcome> {
  const started = performance.now();
  const outcome = await dispatch(channels, request);
  const elapsed = Math.round(performance.now() - started);
  const code = codeIn(outcome.summary);
  const deadline = grpcTimeoutMs(request);
  if (code === 1) outcome.problems.push(`CANCELLED after ${elapsed} ms, although the caller did not cancel${deadline === undefined ? '' : ` (grpc-timeout ${request.channel === 'grpc-raw' || request.channel === 'grpc-web' ? request.headers['grpc-timeout'] : ''} is ${deadline} ms)`}`);
  if (code === 4 && elapsed < 5_000 && (deadline === undefined || deadline >= 10_000)) {
    outcome.problems.push(`DEADLINE_EXCEEDED after ${elapsed} ms, with no deadline that short${deadline === undefined ? '' : ` (grpc-timeout is ${deadline} ms)`}`);
  }
  return outcome;
}

/** Strings past this many characters are shown as a repeat or a prefix; the full request is in the replay file. */
const SHOW = 400;

function shown(text: string): string {
  if (text.length <= SHOW) return text;
  const head = text.slice(0, 80);
  return `${head}…[${text.length} chars in all]`;
}

function showBody(body: string | Buffer | undefined): string | undefined {
  if (body === undefined) return undefined;
  if (Buffer.isBuffer(body)) return `hex:${clip(body.toString('hex'), SHOW)} (${body.length} bytes)`;
  return shown(body);
}

/** The request in words: enough to send it again by hand (long strings shortened). */
export function describe(request: FuzzRequest): string {
  const esc = (s: string) => JSON.stringify(s);
  switch (request.channel) {
    case 'rest':
      return [`REST${request.http2 ? ' (h2c)' : ''} ${request.method} ${esc(shown(request.target))}`, `headers ${shown(JSON.stringify(request.headers))}`, request.body === undefined ? 'no body' : `body ${esc(showBody(request.body)!)}`].join('\n  ');
    case 'grpc':
      return [`gRPC ${request.rpc}`, `authorization ${JSON.stringify(request.authorization)}`, `message (protojson, built with fromJson) ${shown(JSON.stringify(request.message))}`].join('\n  ');
    case 'grpc-web':
      return [`gRPC-Web (HTTP/1.1) POST ${request.path}`, `headers ${JSON.stringify(request.headers)}`, `body hex:${clip(request.body.toString('hex'), SHOW)} (${request.body.length} bytes)`].join('\n  ');
    case 'grpc-raw':
      return [`HTTP/2 POST ${request.path}`, `headers ${JSON.stringify(request.headers)}`, `body hex:${clip(request.body.toString('hex'), SHOW)} (${request.body.length} bytes)`].join('\n  ');
    case 'connect':
      return [`Connect POST ${request.path}`, `headers ${JSON.stringify(request.headers)}`, `body ${esc(showBody(request.body)!)}`].join('\n  ');
  }
}

/** The request as JSON, exactly (Buffers as hex), for the replay file. */
export function exact(request: FuzzRequest): string {
  return JSON.stringify(request, (_key, value) => {
    if (value && typeof value === 'object' && value.type === 'Buffer' && Array.isArray(value.data)) return { hex: Buffer.from(value.data).toString('hex') };
    return value;
  }, 2);
}

