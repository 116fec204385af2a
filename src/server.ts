/**
 * Builds the gateway from a configuration: the only place where plugins,
 * hooks and adapters are wired together.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { PageTokenCodec, pageTokenKey } from './aip/page-token.ts';
import type { Config } from './config.ts';
import { MappingRegistry } from './engine/registry.ts';
import { V1Backend } from './engine/v1-backend.ts';
import { installErrorHandling } from './http/errors.ts';
import { cachedCheck, registerHealth } from './http/health.ts';
import { v2Routes } from './http/routes.ts';
import { createLogger } from './log.ts';
import { v1PassThrough } from './passthrough/plugin.ts';
import { V1Client } from './v1/client.ts';
import { MAPPINGS } from '../mappings/index.ts';

/** The GA twin is byte-identical to v2beta1 but for the version token, so one table serves both. */
export const API_VERSIONS = ['v2beta1', 'v2'] as const;

export interface GatewayOptions {
  /** Where log lines go (tests capture them); stdout by default. */
  logStream?: DestinationStream;
  /** Clock for page-token expiry (tests move it). */
  now?: () => number;
}

export type GatewayConfig = Config & { v1Url: string };

export async function buildGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<FastifyInstance> {
  const v1 = new V1Client({ baseUrl: config.v1Url, timeoutMs: config.v1TimeoutMs });
  const registry = new MappingRegistry(MAPPINGS);
  const tokens = new PageTokenCodec(pageTokenKey(config.pageTokenKey), options.now ? { now: options.now } : {});
  const backend = new V1Backend({ v1, registry, tokens, maxFanOut: config.maxFanOut });

  const app = Fastify({
    loggerInstance: createLogger(config.logLevel, options.logStream) as FastifyBaseLogger,
    bodyLimit: config.bodyLimit,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
  });

  // grpc-gateway reads any body as JSON whatever its Content-Type; so does the gateway.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, text: string, done) => {
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // Responses finished after close() began must also end their keep-alive connection,
  // or an idle client socket holds the server open long after the last request.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', String(request.id));
    if (closing) reply.header('connection', 'close');
  });

  installErrorHandling(app);
  registerHealth(app, cachedCheck(() => v1.reachable(), 1000));
  await app.register(v2Routes, { mappings: registry.all(), backend, versions: API_VERSIONS, debugHeaders: config.debugHeaders });
  await app.register(v1PassThrough, { v1Url: config.v1Url, timeoutMs: config.v1TimeoutMs });
  app.addHook('onClose', () => v1.close());
  return app;
}
