/**
 * The single exit for failures: whatever was thrown — an ApiError, a Fastify
 * parsing or limit error, or a bug — leaves as an AIP-193 body with the HTTP
 * status that matches its code. Internal details stay in the log.
 */
import { randomUUID } from 'node:crypto';
import { http } from '../../node-http.ts';
import type { Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, deadlineExceeded, domainForPath, internal, invalidField, notFound, retryDelayOf, toAipBody } from '../../aip/errors.ts';
import { Code } from '../../rpc-status.ts';
import type { Handler } from '../listener.ts';
import { requestIdOf } from '../request-id.ts';

function toApiError(error: unknown, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  const e = error as Partial<FastifyError> & { statusCode?: number };
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return invalidField('body', `the request body exceeds the limit of ${request.routeOptions.bodyLimit ?? 'configured'} bytes`);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalidField('body', e.message ?? 'the request body is not valid JSON');
  }
  if (error instanceof SyntaxError) return invalidField('body', `the request body is not valid JSON: ${error.message}`);
  if (e.statusCode === 400 && e.message) return invalidField('request', e.message);
  return internal();
}

export function sendError(reply: FastifyReply, request: FastifyRequest, error: unknown): FastifyReply {
  const apiError = toApiError(error, request);
  if (apiError.code === Code.INTERNAL && !(error instanceof ApiError)) {
    request.log.error({ err: error }, 'unhandled error');
  } else if (apiError.httpStatus >= 500) {
    request.log.warn({ code: apiError.code, message: apiError.message }, 'request failed');
  }
  const body = toAipBody(apiError, domainForPath(request.url), String(request.id));
  // RFC 6750 §3.1: a token that was presented and refused is an invalid_token; none presented gets the bare challenge.
  if (apiError.code === Code.UNAUTHENTICATED) reply.header('www-authenticate', /^Bearer\s+\S/i.test(request.headers.authorization ?? '') ? 'Bearer error="invalid_token"' : 'Bearer');
  // RetryInfo's delay for HTTP clients that read the header rather than the body (RFC 9110 §10.2.3: whole seconds).
  const retryDelay = retryDelayOf(apiError.details);
  if (retryDelay !== undefined) reply.header('retry-after', String(Math.ceil(retryDelay)));
  return reply.code(apiError.httpStatus).type('application/json').send(body);
}

/** What the HTTP/1 listener enforces before any request reaches Fastify, for the messages. */
export interface ClientErrorLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/** An error Node's HTTP/1 server reports for a connection (its parser's, or its request timeouts). */
type ClientError = Error & { code?: string; reason?: string; rawPacket?: unknown };

/** The response Node attached to an HTTP/1 socket for the request in progress (null between requests). */
function responseInProgress(socket: Socket): { headersSent?: boolean } | undefined {
  return (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage ?? undefined;
}

/** The method, and the path when it is short enough to show, of the request line the refused bytes start with. */
function requestLine(raw: unknown): { method: string; path: string | undefined } | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) (?:(\/[^ \r\n]{0,2048}) )?/.exec(raw.subarray(0, 2100).toString('latin1'));
  return match ? { method: match[1]!, path: match[2] } : undefined;
}

/** The ApiError for a connection the HTTP/1 parser or its timeouts refused; undefined when it gets no answer at all. */
function clientApiError(error: ClientError, socket: Socket, limits: ClientErrorLimits): ApiError | undefined {
  const code = error.code ?? '';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // Node creates the response once a request's headers are in: with one, it was the body that was late.
    return responseInProgress(socket)
      ? deadlineExceeded(`the request was not received whole within ${limits.requestTimeoutMs} ms`)
      : deadlineExceeded(`the request's headers were not received within ${limits.headersTimeoutMs} ms`);
  }
  // Anything but the parser's own errors (a TLS handshake failure, a reset) is no HTTP exchange to answer.
  if (!code.startsWith('HPE_')) return undefined;
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return invalidField('headers', `the request's headers exceed ${http.maxHeaderSize} bytes`);
    case 'HPE_INVALID_METHOD':
    case 'HPE_UNKNOWN_METHOD':
      return methodNotServed(requestLine(error.rawPacket)?.method);
    default:
      return invalidField('request', `the request is not valid HTTP/1.1 (${error.reason ?? code})`);
  }
}

function methodNotServed(method: string | undefined): ApiError {
  return new ApiError(Code.UNIMPLEMENTED, method ? `the HTTP method ${method} is not served` : 'the HTTP method is not served');
}

/**
 * A request whose method no route has: HTTP/2 carries any method token, where HTTP/1's parser refuses
 * unknown ones (above). Answered 501 as the parser's refusals are, before Fastify, whose fallback for
 * such a method answers 500 and writes its whole router into the log.
 */
export function refuseUnroutedMethods(handler: Handler, supported: () => readonly string[], log: FastifyBaseLogger): Handler {
  return (req, res) => {
    const method = req.method ?? '';
    if (supported().includes(method)) return handler(req, res);
    const requestId = requestIdOf(req.headers['x-request-id']);
    const body = JSON.stringify(toAipBody(methodNotServed(method), domainForPath(String(req.url ?? '/')), requestId));
    log.info({ reqId: requestId, method: method.slice(0, 64), remoteAddress: req.socket?.remoteAddress }, 'request refused before routing');
    (res as ServerResponse).writeHead(501, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-request-id': requestId });
    res.end(body);
    req.resume();
  };
}

/** Sockets already answered: after an error the parser may report the next bytes too. */
const answered = new WeakSet<Socket>();

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP/1 parser refused (an unknown method, headers
 * over the size limit, a malformed request) or one not received within the header or request
 * timeout. No Fastify request exists, so the answer is written on the socket: AIP-193, the status
 * that matches its code, a fresh `x-request-id` (also in ErrorInfo and the log); then the connection
 * closes. A connection whose response has already started, or that is not an HTTP exchange (TLS
 * failures, resets), is only closed.
 */
export function answerClientError(error: ClientError, socket: Socket, log: FastifyBaseLogger, limits: ClientErrorLimits): void {
  if (answered.has(socket) || socket.destroyed) {
    socket.destroy();
    return;
  }
  answered.add(socket);
  const apiError = clientApiError(error, socket, limits);
  if (!apiError || !socket.writable || responseInProgress(socket)?.headersSent) {
    if (error.code !== 'ECONNRESET') log.debug({ err: error, code: error.code }, 'connection dropped on a client error');
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  const line = requestLine(error.rawPacket);
  const body = toAipBody(apiError, domainForPath(line?.path ?? '/'), requestId);
  const payload = JSON.stringify(body);
  const status = apiError.httpStatus;
  // The answer to a HEAD has no body (RFC 9110 §9.3.2): the client would read it as the next response.
  const head = line?.method === 'HEAD';
  log.info({ reqId: requestId, code: apiError.code, parserError: error.code, remoteAddress: socket.remoteAddress, message: apiError.message }, 'request refused before routing');
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\n` +
      `content-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(payload)}\r\n` +
      `x-request-id: ${requestId}\r\n` +
      `connection: close\r\n\r\n` +
      (head ? '' : payload),
    // Once it is flushed: a client that never closes its side must not hold the socket.
    () => socket.destroy(),
  );
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendError(reply, request, error));
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, request, notFound('route', `${request.method} ${request.url.split('?')[0]}`)));
}
