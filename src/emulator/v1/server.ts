/**
 * The HTTP face of the emulator: fastify carries bytes, everything else
 * follows grpc-gateway in front of a gRPC server. The order of checks mirrors
 * that split — routing (404/405) and body/query decoding (INVALID_ARGUMENT)
 * happen in the gateway before the call reaches the server, which then
 * authenticates (UNAUTHENTICATED, except for the methods the contract marks
 * `disabled`) and runs the method.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Code } from './status-codes.ts';
import { unauthenticated, V1Error, wireError, type WireError } from './errors.ts';
import { ProtoJsonError } from './protojson.ts';
import { matchRoute, type Route } from './router.ts';

export interface ServerOptions {
  routes: readonly Route[];
  latencyMs?: number;
  acceptToken?: (token: string) => boolean;
  logger?: boolean;
}

/** grpc-gateway's default limit is the gRPC server's 4 MiB receive size. */
const BODY_LIMIT = 4 * 1024 * 1024;

/** A Buffer keeps fastify from appending `; charset=utf-8`, which grpc-gateway does not send. */
function sendJson(reply: FastifyReply, status: number, body: unknown, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(status).headers(headers).header('content-type', 'application/json').send(Buffer.from(JSON.stringify(body)));
}

function send(reply: FastifyReply, { status, body, headers }: WireError): FastifyReply {
  return sendJson(reply, status, body, headers);
}

function authenticate(header: string | undefined, acceptToken: (token: string) => boolean): string {
  const token = /^Bearer\s+(\S.*)$/i.exec(header ?? '')?.[1]?.trim();
  if (!token) throw unauthenticated('missing or empty bearer token');
  if (!acceptToken(token)) throw unauthenticated('invalid bearer token');
  return token;
}

function toWireError(err: unknown, request: FastifyRequest): WireError {
  if (err instanceof V1Error) return wireError(err.code, err.message, undefined, err.details);
  if (err instanceof ProtoJsonError) return wireError(Code.INVALID_ARGUMENT, err.message);
  // Anything else is a bug in the emulator: log it, never show it.
  request.log.error({ err }, 'v1 emulator internal error');
  return wireError(Code.INTERNAL, 'internal error');
}

export function buildServer(options: ServerOptions): FastifyInstance {
  const { routes, latencyMs = 0, acceptToken = () => true } = options;
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT,
    exposeHeadRoutes: false,
    frameworkErrors: (_err, _request, reply) => send(reply, wireError(Code.INVALID_ARGUMENT, 'malformed request')),
  });

  // grpc-gateway reads any body as JSON whatever its Content-Type; decoding is ours.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  if (latencyMs > 0) app.addHook('onRequest', async () => sleep(latencyMs));

  app.setErrorHandler((err: { statusCode?: number }, request, reply) => {
    if (err.statusCode === 413) return send(reply, wireError(Code.RESOURCE_EXHAUSTED, 'request body too large'));
    if (err.statusCode !== undefined && err.statusCode < 500) return send(reply, wireError(Code.INVALID_ARGUMENT, 'malformed request'));
    return send(reply, toWireError(err, request));
  });

  app.route({
    method: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'],
    url: '/*',
    handler: async (request, reply) => {
      const cut = request.url.indexOf('?');
      const path = cut < 0 ? request.url : request.url.slice(0, cut);
      const match = matchRoute(routes, request.method, path);
      if (match === 'not-found') return send(reply, wireError(Code.NOT_FOUND, 'Not Found'));
      // grpc-gateway's routing error handler: HTTP 405 carrying gRPC code 12.
      if (match === 'method-not-allowed') return send(reply, wireError(Code.UNIMPLEMENTED, 'Method Not Allowed', 405));
      try {
        const input = match.route.decode({
          capture: match.capture,
          body: typeof request.body === 'string' ? request.body : '',
          query: new URLSearchParams(cut < 0 ? '' : request.url.slice(cut + 1)),
        });
        // A method v1 marks `disabled` needs no authentication: a token sent with it is not even read.
        const token = match.route.public ? '' : authenticate(request.headers.authorization, acceptToken);
        const output = match.route.run(input, { token });
        return sendJson(reply, 200, output);
      } catch (err) {
        return send(reply, toWireError(err, request));
      }
    },
  });
  return app;
}
