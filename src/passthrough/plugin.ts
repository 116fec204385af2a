/**
 * The v1 pass-through: `/iam/v1/…`, `/registry/v1/…`, `/vulnerabilities/v1/…`
 * and `/advisory/v1/…` go to the v1 backend as sent, streamed both ways, so
 * one sidecar carries a client's v1 and v2 traffic side by side.
 *
 * An encapsulated Fastify plugin, so that what it changes stays here: its
 * content-type parser hands the raw request stream on (the gateway's own one
 * reads and JSON-parses the body, under bodyLimit), and the v2 routes' bearer
 * check does not apply (v1 judges the Authorization header itself).
 * Each request is one `request` on an undici pool of its own, its body and
 * v1's answer handed on as streams: no proxy library, whose own copy of undici
 * would be memory held for the life of the process.
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Pool, type Dispatcher } from 'undici';
import { invalidField } from '../aip/errors.ts';
import { withHeadersDeadline } from './deadline.ts';
import { passThroughFailure } from './failures.ts';
import { requestHeadersForV1, responseHeadersForClient } from './headers.ts';
import { rawPath, unforwardablePath, V1_SERVICES } from './path.ts';
import { httpClientAttributes, httpClientErrorType, type TraceSpan } from '../observability/tracing.ts';

export interface PassThroughOptions {
  v1Url: string;
  /**
   * Longest wait for v1's response headers once the request has been received whole (one deadline,
   * exact: deadline.ts), and for each chunk of v1's body after them.
   */
  timeoutMs: number;
}

/** Methods Fastify never hands a body to a parser for, so none can be forwarded. */
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The client span of one forwarded call, a child of the request's server
 * span; it ends when the answer has streamed to the client (or failed), so
 * it covers v1's whole answer. Undefined when the gateway makes no span.
 */
function traceV1Call(request: FastifyRequest, reply: FastifyReply, origin: URL, path: string): { span: TraceSpan; failed: (error: unknown) => void } | undefined {
  const parent = request.traceSpan;
  const span = parent?.child(request.method, 'client', httpClientAttributes(request.method, origin, path));
  // With tracing off the child is the caller's context itself: nothing to end, and its headers go through untouched.
  if (!span || span === parent) return undefined;
  let failure: unknown;
  reply.raw.once('close', () => {
    const status = failure === undefined ? reply.statusCode : 0;
    if (status) span.set({ 'http.response.status_code': status });
    span.end(httpClientErrorType(status, failure));
  });
  return { span, failed: (error) => (failure = error) };
}

export async function v1PassThrough(app: FastifyInstance, options: PassThroughOptions): Promise<void> {
  const originUrl = new URL(options.v1Url);
  const origin = originUrl.origin;
  // Not the v2 engine's pool: a long streamed upload holds its connection for as long as it
  // lasts and must not queue v2 calls behind it, and that pool retries reads, which a
  // pass-through must not do (the client decides; a request body can be sent only once).
  const pool = new Pool(origin, {
    connections: 128,
    keepAliveTimeout: 10_000,
    // A backstop while a client is still uploading; once it has sent everything, withHeadersDeadline's timer rules.
    connectTimeout: options.timeoutMs,
    // Off: the response headers' deadline is withHeadersDeadline's, exact and once for the whole exchange.
    headersTimeout: 0,
    bodyTimeout: options.timeoutMs,
  });
  app.addHook('onClose', () => pool.close());

  const v1 = withHeadersDeadline(pool, options.timeoutMs);
  const call = (request: Dispatcher.RequestOptions) =>
    new Promise<Dispatcher.ResponseData>((resolve, reject) => v1.request(request, (error, data) => (error ? reject(error) : resolve(data))));

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    const target = request.raw.url ?? '/';
    const path = rawPath(target);
    const problem = unforwardablePath(path);
    if (problem) throw invalidField('path', `${problem}; it cannot be forwarded to v1 unchanged`);
    if (BODYLESS.has(request.method) && hasBody(request)) {
      throw invalidField('body', `a ${request.method} request cannot carry a body through the v1 pass-through`);
    }
    const v1Call = traceV1Call(request, reply, originUrl, path);
    let answer: Dispatcher.ResponseData;
    try {
      answer = await call({
        method: request.method as Dispatcher.HttpMethod,
        // Path and query exactly as the client sent them.
        path: target,
        headers: requestHeadersForV1(request.headers, v1Call?.span.propagation),
        // The content-type parser above handed the request stream on unread; sent as it arrives.
        body: hasBody(request) ? (request.body as Readable) : null,
      });
    } catch (error) {
      v1Call?.failed(error);
      throw passThroughFailure(error as Error, request, options.timeoutMs);
    }
    // v1's answer is the client's, whatever its status: never retried, streamed as it arrives.
    return reply.code(answer.statusCode).headers(responseHeadersForClient(answer.headers)).send(answer.body);
  };
  for (const service of V1_SERVICES) app.all(`/${service}/v1/*`, forward);
}
