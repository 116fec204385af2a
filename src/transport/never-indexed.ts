/**
 * HTTP/2 response headers whose value is new on almost every response: the
 * request id, and a failed gRPC call's message and details. HPACK (RFC 7541)
 * would add each one to the connection's dynamic table, where nothing ever
 * matches it again, while it pushes out entries that would match; keeping
 * that table up was nghttp2's largest cost in a GetGroup over gRPC (5% of the
 * gateway's CPU, ~17 µs a call under load). They go out as literals never
 * indexed (§6.2.3), which also tells a proxy re-encoding them not to index
 * them either.
 */
import http2, { type OutgoingHttpHeaders, type ServerHttp2Stream } from 'node:http2';

const NEVER_INDEXED: readonly string[] = ['x-request-id', 'grpc-message', 'grpc-status-details-bin'];

/** The same headers (an object, or Node's flat name-value array), marked so the encoder sends NEVER_INDEXED ones as literals; a mark already there is kept. */
export function neverIndexed<T extends OutgoingHttpHeaders | readonly string[]>(headers: T): T {
  (headers as { [http2.sensitiveHeaders]?: readonly string[] })[http2.sensitiveHeaders] ??= NEVER_INDEXED;
  return headers;
}

/**
 * Every response on the stream, written by Node's compatibility API (REST over HTTP/2 and ConnectRPC,
 * whose header objects are its own): the stream's respond and sendTrailers mark the headers on the way
 * out. The listener does this for every stream the unary gRPC server leaves to that API; that server
 * marks the headers it writes itself (neverIndexed), at no cost to its streams.
 */
export function markNeverIndexedOn(stream: ServerHttp2Stream): void {
  const respond = stream.respond;
  const sendTrailers = stream.sendTrailers;
  stream.respond = function (this: ServerHttp2Stream, headers, options) {
    return respond.call(this, neverIndexed(headers ?? {}), options);
  };
  stream.sendTrailers = function (this: ServerHttp2Stream, trailers) {
    return sendTrailers.call(this, neverIndexed(trailers));
  };
}
