/**
 * Builds the gateway from a configuration: the only place where plugins,
 * hooks and adapters are wired together.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { PageTokenCodec, pageTokenKey } from './aip/page-token.ts';
import { storeLocation, type Config } from './config.ts';
import type { BackendPort } from './engine/backend.ts';
import { OperationRunner } from './operation/execute.ts';
import { MappingRegistry } from './engine/registry.ts';
import { HydrationCache } from './engine/hydration-cache.ts';
import { V1Backend } from './engine/v1-backend.ts';
import { installErrorHandling, sendError } from './http/errors.ts';
import { cachedCheck, registerHealth } from './http/health.ts';
import { v2Routes } from './http/routes.ts';
import { createLogger } from './log.ts';
import { NativeBackend } from './native/native-backend.ts';
import { v1PassThrough } from './passthrough/plugin.ts';
import { openStore } from './store/open.ts';
import type { Store } from './store/types.ts';
import { V1Client } from './v1/client.ts';
import { MAPPINGS } from '../mappings/index.ts';

/** The GA twin is byte-identical to v2beta1 but for the version token, so one table serves both. */
export const API_VERSIONS = ['v2beta1', 'v2'] as const;

/** Time one v2 request may take in all, whatever number of v1 calls it makes. */
const REQUEST_BUDGET_MS = 30_000;

export interface GatewayOptions {
  /** Where log lines go (tests capture them); stdout by default. */
  logStream?: DestinationStream;
  /** Clock for page-token expiry (tests move it). */
  now?: () => number;
  /** A store the caller opened and will close (tests reach into it); otherwise the configured one is opened and closed with the app. */
  store?: Store;
}

/** `v1Url` is required in translate mode only. */
export type GatewayConfig = Config & { v1Url?: string | undefined };

/** What serves the v2 routes, and how to tell it is ready. */
interface Serving {
  backend: BackendPort;
  ready: () => Promise<boolean>;
  close: () => Promise<void>;
}

export async function buildGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<FastifyInstance> {
  const registry = new MappingRegistry(MAPPINGS);
  const tokens = new PageTokenCodec(pageTokenKey(config.pageTokenKey), options.now ? { now: options.now } : {});
  // Both modes keep a store: native mode serves from it; translate mode keeps there the times v1 omits.
  const store = options.store ?? (await openStore(storeLocation(config)));
  const closeStore = options.store ? async () => {} : () => store.close();
  let serving: Serving;
  try {
    serving = await serve(config, registry, tokens, store);
  } catch (error) {
    await closeStore();
    throw error;
  }
  const runner = new OperationRunner(serving.backend, tokens);

  const app = Fastify({
    loggerInstance: createLogger(config.logLevel, options.logStream) as FastifyBaseLogger,
    bodyLimit: config.bodyLimit,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    // Errors Fastify raises before routing (a malformed %-escape in the URL) leave as AIP-193 too.
    frameworkErrors: (error, request, reply) => sendError(reply, request, error),
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
  registerHealth(app, cachedCheck(serving.ready, 1000), config.mode === 'native' ? 'the store' : 'the v1 backend');
  await app.register(v2Routes, { mappings: registry.all(), runner, budgetMs: REQUEST_BUDGET_MS, versions: API_VERSIONS, debugHeaders: config.debugHeaders });
  if (config.mode === 'translate') await app.register(v1PassThrough, { v1Url: config.v1Url!, timeoutMs: config.v1TimeoutMs });
  app.addHook('onClose', async () => {
    await serving.close();
    await closeStore();
  });
  return app;
}

async function serve(config: GatewayConfig, registry: MappingRegistry, tokens: PageTokenCodec, store: Store): Promise<Serving> {
  if (config.mode === 'native') {
    const native = new NativeBackend({ store, registry, tokens });
    await native.seed();
    return { backend: native, ready: () => native.reachable(), close: async () => {} };
  }
  if (!config.v1Url) throw new Error('translate mode needs the v1 backend\'s URL');
  const v1 = new V1Client({ baseUrl: config.v1Url, timeoutMs: config.v1TimeoutMs });
  const cache = new HydrationCache({ ttlMs: config.hydrationCacheMs });
  const backend = new V1Backend({ v1, registry, tokens, maxFanOut: config.maxFanOut, cache, times: store.timestamps });
  return { backend, ready: () => v1.reachable(), close: () => v1.close() };
}
