/**
 * The Node handler for gRPC, gRPC-Web and Connect. Unary gRPC calls to the
 * contract's RPCs, the real v2 clients' calls, take the gateway's own server
 * (unary-server.ts); every other call takes ConnectRPC, with what the gateway
 * adds around it for callers it would otherwise answer badly:
 *
 * - every call gets a request id, and errors ConnectRPC raises itself carry
 *   the gateway's details (request-gate.ts);
 * - a `grpc-timeout` longer than Node's longest timer (2^31-1 ms, ~24.8 days)
 *   is dropped before ConnectRPC arms a timer with it, which Node would fire
 *   after 1 ms; the gateway's own request deadline is far shorter anyway;
 * - a gRPC or gRPC-Web call to a method no service has answers UNIMPLEMENTED
 *   as gRPC, not with REST's 404; other requests go on to `fallback` (REST);
 * - `grpc-message` is encoded as the gRPC spec says (message-encoding.ts).
 *
 * ConnectRPC's Node adapter is loaded on the first call that needs it: loading it loads Node's own
 * bundled undici too (~4 MB of RSS for the life of the process), which a gateway asked only REST and
 * unary gRPC, as most are, never needs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { ConnectRouter } from '@connectrpc/connect';
import type { connectNodeAdapter } from '@connectrpc/connect-node';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../../aip/errors.ts';
import { Code } from '../../rpc-status.ts';
import { requestIdOf } from '../request-id.ts';
import { requestGate } from './request-gate.ts';
import type { GatewayMetrics } from '../../observability/metrics.ts';
import type { AccessLines } from '../../log.ts';
import type { Tracing } from '../../observability/tracing.ts';
import type { Handler, StreamHandler } from '../listener.ts';
import { grpcTimeoutMs } from './grpc-timeout.ts';
import { withSpecMessageEncoding } from './message-encoding.ts';
import { grpcRoutes, type UnaryMethod } from './service.ts';
import { unaryServer } from './unary-server.ts';
import { domainForService, grpcStatusHeaders } from './status.ts';

type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;
type ConnectFallback = NonNullable<Parameters<typeof connectNodeAdapter>[0]['fallback']>;

export interface GrpcAdapterOptions {
  /** The contract's RPCs: unary gRPC calls to them take the gateway's own server (unary-server.ts). */
  methods: readonly UnaryMethod[];
  /** Everything else ConnectRPC serves: health, reflection. */
  routes: (router: ConnectRouter) => void;
  /** Every request that is not a call of a served service. */
  fallback: Handler;
  /** The largest request message, in bytes. */
  readMaxBytes: number;
  /** The whole request's deadline; reading the message is part of it (unary-server.ts). */
  requestTimeoutMs: number;
  log: FastifyBaseLogger;
  /** Where access lines go (log.ts, accessLogger); `log` when not given. */
  accessLog?: FastifyBaseLogger;
  /** Writes the access lines on `accessLog` (log.ts, accessLines). */
  accessLines?: AccessLines;
  metrics?: GatewayMetrics;
  tracing?: Tracing;
  /** The refusal for a call arriving now when the gateway is overloaded (health is never asked). */
  shed?: () => ApiError | undefined;
}

/**
 * `streams` is offered each HTTP/2 stream first (listener.ts) and takes the unary gRPC calls it
 * answers itself; `handler` gets every other request.
 */
export function grpcAdapter(options: GrpcAdapterOptions): { handler: Handler; streams: StreamHandler } {
  const fallback: Handler = (req, res) => (isGrpc(req) ? unknownMethod(req, res) : options.fallback(req, res));
  let connect: Promise<Handler> | undefined;
  const viaConnect = withSpecMessageEncoding((req: Request, res: Response) => {
    dropUnarmableTimeout(req);
    authorityAsHost(req);
    // The request's body waits in its stream, unread, while the adapter loads.
    (connect ??= connectHandler(options, fallback)).then(
      (handler) => handler(req, res),
      (error: unknown) => {
        options.log.error({ err: error }, 'ConnectRPC could not be loaded');
        res.destroy();
      },
    );
  });
  const handler: Handler = (req, res) => {
    // REST, health, metrics and the pass-through (the most requests by far) go straight to Fastify:
    // ConnectRPC would only look their path up in its table of RPCs first.
    if (!isRpcPath(req.url)) options.fallback(req, res);
    else viaConnect(req, res);
  };
  return { handler, streams: unaryServer(options) };
}

/** ConnectRPC's handler for what the gateway's own unary server does not take. */
async function connectHandler(options: GrpcAdapterOptions, fallback: Handler): Promise<Handler> {
  const { connectNodeAdapter } = await import('@connectrpc/connect-node');
  return connectNodeAdapter({
    routes: (router) => {
      grpcRoutes(router, options.methods, options.log);
      options.routes(router);
    },
    readMaxBytes: options.readMaxBytes,
    // Connect's JSON (the real service does not speak it) names fields, so a key the message lacks is
    // a mistake to report, as grpcurl reports it: discarded, `{"group": {"parent": …}}` would create a root organisation.
    jsonOptions: { ignoreUnknownFields: false },
    requestGate: requestGate(options, options.shed),
    fallback: fallback as ConnectFallback,
  }) as Handler;
}

/**
 * A path an RPC can have: `/package.Service/…`, a dotted first segment, which no REST route, probe or
 * v1 path has. Anything else is no call of any service, whatever its content type.
 */
export function isRpcPath(url: string | undefined): boolean {
  return url !== undefined && RPC_PATH.test(url);
}

const RPC_PATH = /^\/[A-Za-z_]\w*(\.\w+)+\//;

/**
 * A gRPC or gRPC-Web call: its content type says so, and its path is `/package.Service/…` (no REST
 * path starts with a dotted name). Connect's JSON cannot be told from REST's and stays REST.
 */
function isGrpc(req: Request): boolean {
  return /^application\/grpc(-web)?([+;]|$)/.test(String(req.headers['content-type'] ?? '')) && isRpcPath(req.url);
}

/** Node's longest timer; a longer delay fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function dropUnarmableTimeout(req: Request): void {
  const ms = grpcTimeoutMs(String(req.headers['grpc-timeout'] ?? ''));
  if (ms !== null && ms > MAX_TIMER_MS) delete req.headers['grpc-timeout'];
}

/**
 * ConnectRPC hands a call's handler no HTTP/2 pseudo-header, so the host the caller named (`:authority`,
 * which HTTP/2 sends in place of `Host`, RFC 9113 §8.3.1) is given to it as `host`, as a proxy to HTTP/1.1 would.
 */
function authorityAsHost(req: Request): void {
  const authority = req.headers[':authority'];
  if (typeof authority === 'string') req.headers.host = authority;
}

/** A trailers-only gRPC answer: UNIMPLEMENTED, as gRPC servers answer a method they do not have. */
function unknownMethod(req: Request, res: Response): void {
  const path = String(req.url ?? '').split('?', 1)[0]!;
  const service = /^\/([^/]+)\//.exec(path)?.[1] ?? '';
  const requestId = requestIdOf(req.headers['x-request-id']);
  const error = new ApiError(Code.UNIMPLEMENTED, `no service of this gateway has the method ${path}`);
  (res as ServerResponse).writeHead(200, {
    'content-type': String(req.headers['content-type']),
    'x-request-id': requestId,
    ...grpcStatusHeaders(error, domainForService(service), requestId),
  });
  res.end();
  // The body is not read: drop it rather than keep the stream open.
  req.resume();
}
