/**
 * Builds the gateway from a configuration: the only place where plugins,
 * hooks and adapters are wired together.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { PageTokenCodec, pageTokenKey } from './aip/page-token.ts';
import { ConfigError, storeLocation, tlsFiles, type Config } from './config.ts';
import type { BackendPort } from './port/backend.ts';
import { OperationRunner } from './operation/execute.ts';
import type { RequestContext } from './request/context.ts';
import { compose, type Interceptor } from './port/runner.ts';
import type { V1Caller } from './policy/v1-grants.ts';
import type { ConnectRouter } from '@connectrpc/connect';
import { bindContract, forMode, unservedMethods } from './contract/bindings.ts';
import { apiServices, contract } from './contract/registry.ts';
import { healthRoutes } from './transport/grpc/health.ts';
import { reflectionRoutes } from './transport/grpc/reflection.ts';
import { unaryMethods } from './transport/grpc/service.ts';
import { grpcAdapter } from './transport/grpc/adapter.ts';
import { requestIdOf } from './transport/request-id.ts';
import { createListener } from './transport/listener.ts';
import { MappingRegistry } from './port/registry.ts';
import { answerClientError, installErrorHandling, refuseUnroutedMethods, sendError } from './transport/rest/errors.ts';
import { cachedCheck, isOperational, registerHealth } from './transport/rest/health.ts';
import { registerDocs } from './transport/rest/docs.ts';
import { openApiDocument } from './contract/openapi.ts';
import { v2Routes } from './transport/rest/routes.ts';
import { accessLines, accessLogger, createLogger } from './log.ts';
import { AccessLog } from './transport/rest/access-log.ts';
import { lazyChildren } from './transport/rest/request-logger.ts';
import { GatewayMetrics } from './observability/metrics.ts';
import { LoadShedder } from './policy/load-shedding.ts';
import { policyStep } from './policy/policy.ts';
import { restRefusal, sidecarRefusal, type CallerHeaders } from './policy/sidecar-callers.ts';
import { Code } from './rpc-status.ts';
import { adminServer } from './transport/rest/admin-listener.ts';
import { metricsRoute, observeHttp } from './transport/rest/http-metrics.ts';
import { openStore } from './store/open.ts';
import type { Store } from './store/types.ts';
import { DB_SYSTEM_NAME } from './store/query-log.ts';
import { traceHttp } from './transport/rest/http-tracing.ts';
import { Tracing } from './observability/tracing.ts';
import { tracingSettings } from './observability/tracing-settings.ts';
import { ACCESS, MAPPINGS } from '../mappings/index.ts';
import { checkingSinks } from './events/sink-check.ts';
import { UNSERVED } from '../mappings/unserved.ts';

/** The GA twin is byte-identical to v2beta1 but for the version token, so one table serves both. */
export const API_VERSIONS = ['v2beta1', 'v2'] as const;

/** Served by the transport itself, beside the API's services. */
const GRPC_INFRASTRUCTURE = ['grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection'];

export interface GatewayOptions {
  /** Where log lines go (tests capture them); stdout by default. */
  logStream?: DestinationStream;
  /** Clock for page-token expiry (tests move it). */
  now?: () => number;
  /** A store the caller opened and will close (tests reach into it); otherwise the configured one is opened and closed with the app. */
  store?: Store;
  /** Where tracing reads its OTEL_* variables (tracing-settings.ts); process.env by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Native mode's events: a CA (PEM) event sinks may be signed by, and the first retry back-off (tests). */
  events?: { sinkCa?: string; backoffMs?: number };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The gateway's metrics registry. */
    metrics: GatewayMetrics;
    /** The admin listener's address once listening (with `--admin-port`), else undefined. */
    adminAddress: () => string | undefined;
    /** Where spans go, for the startup line: `off`, or the exporter, endpoint and sampler. */
    tracing: string;
  }
}

/** `v1Url` is required in translate mode only. */
export type GatewayConfig = Config & { v1Url?: string | undefined };

/** What serves the v2 routes, and how to tell it is ready. */
interface Serving {
  /** The port the operations run over: the store's in native mode, v1's in translate mode. */
  backend: BackendPort;
  /** Translate mode: the step that sends what v1 lacks to a runner over the store's port, given how to make one (operation/two-systems.ts). */
  systems?: (over: (backend: BackendPort) => OperationRunner) => Interceptor;
  /** Why the backend cannot serve now, or undefined when it can. */
  unreadyBecause: () => Promise<string | undefined>;
  close: () => Promise<void>;
  /** Translate mode: the v1 client, which the policy step asks who a token is and what it may do. */
  v1?: V1Caller;
}

export async function buildGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<FastifyInstance> {
  // The HTTP/1 listener's limits on receiving a request (Node refuses a headers timeout past the request's).
  const limits = { headersTimeoutMs: config.headersTimeoutMs, requestTimeoutMs: config.requestReceiveTimeoutMs };
  if (limits.requestTimeoutMs > 0 && limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError('--headers-timeout-ms / V2GW_HEADERS_TIMEOUT_MS cannot be longer than --request-receive-timeout-ms / V2GW_REQUEST_RECEIVE_TIMEOUT_MS');
  }
  const registry = new MappingRegistry(MAPPINGS);
  const tokens = new PageTokenCodec(pageTokenKey(config.pageTokenKey), options.now ? { now: options.now } : {});
  const logger = createLogger(config.logLevel, options.logStream);
  const log = logger as FastifyBaseLogger;
  // Read before anything opens: a bad OTEL_* value is a configuration error, like a bad flag.
  const tracing = await Tracing.start(tracingSettings(options.env ?? process.env), log);
  // Both modes keep a store: native mode serves from it; translate mode keeps there the times v1 omits.
  const store = options.store ?? (await openStore(storeLocation(config)));
  const closeStore = options.store ? async () => {} : () => store.close();
  const metrics = new GatewayMetrics();
  const dbSystem = DB_SYSTEM_NAME[store.engine];
  const stopObservingStore = store.queries.subscribe((query) => {
    metrics.storeQuery(dbSystem, query);
    tracing.storeQuery(dbSystem, query);
  });
  const shedder = new LoadShedder({ maxEventLoopDelayMs: config.shedEventLoopDelayMs, maxRssBytes: config.shedMaxRssBytes });
  // Every API call, REST or gRPC, asks here first; the refusal is counted once, where it is made.
  const shed = () => {
    const refusal = shedder.refusal();
    if (refusal) metrics.refusedIfLimited(Code.UNAVAILABLE);
    return refusal;
  };
  let serving: Serving;
  try {
    serving = await serve(config, registry, store, metrics);
  } catch (error) {
    stopObservingStore();
    await closeStore();
    await tracing.shutdown().catch(() => {});
    throw error;
  }
  // Native mode's writes record their events, delivered to the subscriptions' sinks (src/events, docs/events.md).
  const events = config.mode === 'native' ? await (await import('./events/plugin.ts')).startEvents(config, { store, mappings: registry.all(), metrics: metrics.registry, log, ...options.events }) : undefined;
  const over = (backend: BackendPort) => new OperationRunner(backend, tokens, (v1Calls) => metrics.v1CallsPerRequest(v1Calls));
  // One logger for every access line, REST's and gRPC's (log.ts: no path redaction, the fields censored before), written by accessLines.
  const accessLog = accessLogger(logger);
  const lines = accessLines(accessLog);
  const services = apiServices();
  // What this mode serves; the rest answers UNIMPLEMENTED with the reason declared for it.
  const { served: bindings, reasons } = forMode(bindContract(services, registry.all()), config.mode);
  const unserved = unservedMethods(services, bindings);
  const unservedReasons = { ...UNSERVED, ...reasons };
  // Authentication and authorization, between the transports and the runner: one step both protocols pass through.
  const policy = await policyStep(config, bindings, store, ACCESS, { assumed: await assumedIdentity(config, log), v1: serving.v1 });
  // Side-by-side comparison and capture (src/compare), loaded only when asked for.
  const shadowing = config.compareWith || config.capture
    ? await (await import('./compare/shadowing.ts')).Shadowing.start(config, metrics.registry, store.comparisons, { warn: (message) => log.warn(message), info: (message) => log.info(message) })
    : undefined;
  // The request's chain, in the order a request meets it (docs/design.md, "The chain"): the comparison tap
  // first, so a call the policy refuses is compared too (one side denying what the other serves is a
  // difference of access) and the primary is asked again through the policy, as its caller; it reads the
  // caller's credentials only once the answer is settled, as the policy step left them (the sidecar's
  // assumed identity included). Then the policy; then a subscription's sink is checked (only an authorized
  // caller learns what the check says) and, in native mode, a write is recorded with its events in one
  // transaction; then (translate mode) the two systems of record, then the runner over the port.
  const sinks: Interceptor = (next) => checkingSinks(next, config.eventsAllowPrivateSinks);
  const api = compose(over(serving.backend), shadowing?.tap(bindings, config.requestTimeoutMs), policy, sinks, events && ((next) => events.wrap(next)), serving.systems?.(over));
  const ready = cachedCheck(loggedReadiness(serving.unreadyBecause, log, backendName(config)), 1000);
  let closing = false;
  const rpcServices = () => [...services.map((s) => s.typeName), ...GRPC_INFRASTRUCTURE];
  // gRPC, gRPC-Web and Connect calls are answered by the gRPC adapter; everything else falls through to Fastify (REST, health, pass-through).
  // A sidecar lending its workload identity serves its own pod only, on every protocol (policy/sidecar-callers.ts).
  const sidecar = config.identity ? { remoteAllowed: config.identityAllowRemote } : undefined;
  const admit = sidecar && ((headers: CallerHeaders) => sidecarRefusal(headers, sidecar));
  const rpcMethods = unaryMethods({ bindings, unserved, unservedReasons, runner: api, budgetMs: config.requestTimeoutMs, debugHeaders: config.debugHeaders, admit });
  const rpcRoutes = (router: ConnectRouter) => {
    // A draining gateway reports NOT_SERVING, so a client's health watch moves it elsewhere before GOAWAY.
    healthRoutes(router, { registry: contract, ready: async () => !closing && (await ready()), services: rpcServices });
    reflectionRoutes(router, { registry: contract, services: rpcServices });
  };

  // The methods Fastify routes, known once it exists (the listener is made inside its constructor).
  let routedMethods: readonly string[] = [];
  const app = Fastify({
    loggerInstance: log,
    serverFactory: (restHandler) => {
      const grpc = grpcAdapter({ methods: rpcMethods, routes: rpcRoutes, accessLog: accessLog as FastifyBaseLogger, accessLines: lines, fallback: refuseUnroutedMethods(restHandler, () => routedMethods, log), readMaxBytes: config.bodyLimit, requestTimeoutMs: config.requestTimeoutMs, log, metrics, tracing, shed });
      return createListener(grpc.handler, { tls: tlsFiles(config), ...limits }, grpc.streams);
    },
    // Requests the HTTP/1 parser refuses, or that arrive too slowly, never reach a route: answered in AIP-193 form on the socket.
    clientErrorHandler: (error, socket) => answerClientError(error, socket, log, limits),
    bodyLimit: config.bodyLimit,
    // The caller's x-request-id when it is usable (request-id.ts), the same rule as gRPC's.
    requestIdHeader: false,
    genReqId: (request) => requestIdOf(request.headers['x-request-id']),
    return503OnClosing: true,
    // Errors Fastify raises before routing (a malformed %-escape in the URL) leave as AIP-193 too.
    frameworkErrors: (error, request, reply) => sendError(reply, request, error),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    logController: new AccessLog(lines),
  });
  // request.log is made when a request first logs through it: one that succeeds never does.
  lazyChildren(app.log);

  routedMethods = app.supportedMethods;

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
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Hooks on every request take a callback rather than return a promise: one promise fewer each.
  app.addHook('onSend', (request, reply, _payload, done) => {
    reply.header('x-request-id', String(request.id));
    // HTTP/2 has no `connection` header: GOAWAY (the listener's close) ends those sessions instead.
    if (closing && request.raw.httpVersionMajor !== 2) reply.header('connection', 'close');
    done();
  });

  installErrorHandling(app);
  // The span first (tracing on), so a request the load shedding refuses is traced too.
  traceHttp(app, tracing);
  // Probes and metrics answer whatever the load (they log at warn); every other request may be shed.
  observeHttp(app, metrics, (request) => (isOperational(request) ? undefined : shed()));
  // Before the body is read: a refused write writes nothing.
  if (sidecar) app.addHook('onRequest', (request, _reply, done) => done(restRefusal(request.method, request.headers, sidecar)));
  registerHealth(app, ready, backendName(config));
  registerDocs(app, { document: () => openApiDocument(bindings, { title: 'v2gw: the v2beta1 Identity and Registry Management API', version: API_VERSIONS[0], aliases: API_VERSIONS.slice(1) }), page: config.docs });
  metricsRoute(app, metrics);
  events?.register(app);
  if (shadowing) (await import('./compare/routes.ts')).compareRoutes(app, shadowing);
  app.decorate('metrics', metrics);
  let admin: FastifyInstance | undefined;
  let adminAddress: string | undefined;
  app.decorate('adminAddress', () => adminAddress);
  app.decorate('tracing', tracing.description);
  if (config.adminPort !== undefined) {
    admin = adminServer({ metrics, ready, backend: backendName(config), log });
    // The admin listener starts with the API (when it is ready, on the same host) and closes with it.
    app.addHook('onReady', async () => {
      adminAddress = await admin!.listen({ port: config.adminPort!, host: config.adminHost ?? config.host });
    });
  }
  // Comparing, the answers' JSON text is kept on each request's context for the tap (compare/tap.ts).
  await app.register(v2Routes, { bindings, unserved, unservedReasons, runner: api, budgetMs: config.requestTimeoutMs, versions: API_VERSIONS, debugHeaders: config.debugHeaders, keepSentText: shadowing?.comparing });
  if (config.mode === 'translate') {
    const { v1PassThrough } = await import('./passthrough/plugin.ts');
    await app.register(v1PassThrough, { v1Url: config.v1Url!, timeoutMs: config.v1TimeoutMs });
  }
  app.addHook('onClose', async () => {
    shedder.close();
    await admin?.close();
    await shadowing?.close();
    await serving.close();
    stopObservingStore();
    await closeStore();
    // Last, so the spans of the requests drained above are exported too; a collector that is gone must not fail the close.
    await tracing.shutdown().catch((error: unknown) => log.warn({ err: error }, 'tracing: the last spans could not be exported'));
  });
  return app;
}

/**
 * Each mode's backend is imported only in that mode: what the other needs stays unloaded, memory
 * included (translate mode's v1 client and caches, the pass-through and undici never load in native
 * mode; the native backend never loads in translate mode).
 */
async function serve(config: GatewayConfig, registry: MappingRegistry, store: Store, metrics: GatewayMetrics): Promise<Serving> {
  if (config.mode === 'native') {
    const { NativeBackend } = await import('./native/native-backend.ts');
    const native = new NativeBackend({ store, registry });
    await native.seed();
    return { backend: native, unreadyBecause: async () => ((await native.reachable()) ? undefined : 'the store does not answer'), close: async () => {} };
  }
  if (!config.v1Url) throw new Error('translate mode needs the v1 backend\'s URL');
  const [{ V1Client }, { HydrationCache }, { WalkCache }, { ListScanMemo }, { V1Backend }] = await Promise.all([
    import('./v1/client.ts'),
    import('./translate/hydration-cache.ts'),
    import('./translate/walk-cache.ts'),
    import('./v1/list-scan-memo.ts'),
    import('./translate/v1-backend.ts'),
  ]);
  const v1 = new V1Client({
    baseUrl: config.v1Url,
    timeoutMs: config.v1TimeoutMs,
    maxBodyBytes: config.v1MaxBodyBytes,
    observe: (method, status, seconds) => metrics.v1Call(method, status, seconds),
  });
  const cache = new HydrationCache({ ttlMs: config.hydrationCacheMs, onLookup: (hit) => metrics.cacheLookup('hydration', hit ? 1 : 0, hit ? 0 : 1) });
  const walks = new WalkCache({ ttlMs: config.walkCacheMs, maxBytes: config.walkCacheBytes, onLookup: (hit) => metrics.cacheLookup('walk', hit ? 1 : 0, hit ? 0 : 1) });
  const v1Backend = new V1Backend({
    v1,
    registry,
    maxFanOut: config.maxFanOut,
    cache,
    walks,
    scans: new ListScanMemo({ maxBytes: config.listScanCacheBytes, onLookup: (hit) => metrics.cacheLookup('list_scan', hit ? 1 : 0, hit ? 0 : 1) }),
    times: store.timestamps,
    onKeptTimesLookup: (hits, misses) => metrics.cacheLookup('kept_times', hits, misses),
  });
  // What v1 has no equivalent of lives in the store, served by the runner native mode uses, made when first asked for.
  const { TwoSystems } = await import('./operation/two-systems.ts');
  const systems = (over: (backend: BackendPort) => OperationRunner): Interceptor => (v1Runner) => {
    const storeRunner = async (): Promise<OperationRunner> => {
      const { NativeBackend } = await import('./native/native-backend.ts');
      const foreign = { keeps: (kind: string) => registry.keptByV1(kind), get: (kind: string, uid: string, ctx: RequestContext) => v1Runner.execute({ kind: 'get', mapping: registry.get(kind), uid }, ctx) };
      const native = new NativeBackend({ store, registry, foreign });
      await native.seed();
      return over(native);
    };
    let storeSide: Promise<OperationRunner> | undefined;
    return new TwoSystems({
      v1: v1Runner,
      // A failed start is not kept: the next call tries again.
      store: () => (storeSide ??= storeRunner().catch((error: unknown) => {
        storeSide = undefined;
        throw error;
      })),
      rows: store,
      registry,
    });
  };
  return { backend: v1Backend, systems, unreadyBecause: () => v1.unreachableBecause(), close: () => v1.close(), v1 };
}

/** The workload identity the sidecar assumes (--identity), loaded only when one is configured. */
async function assumedIdentity(config: GatewayConfig, log: FastifyBaseLogger) {
  if (!config.identity || !config.identityTokenFile || !config.issuerUrl || !config.v1Url) return undefined;
  const { IdentityToken } = await import('./identity/identity-token.ts');
  return new IdentityToken({
    identity: config.identity,
    tokenFile: config.identityTokenFile,
    issuerUrl: config.issuerUrl,
    audience: config.v1Url,
    onFailure: (message) => log.warn({ identity: config.identity }, `identity token: ${message}`),
  });
}

function backendName(config: GatewayConfig): string {
  return config.mode === 'native' ? 'the store' : 'the v1 backend';
}

/**
 * Readiness that logs when it changes, with the cause: a probe answering 503 says only
 * "not reachable"; the log says why (`ECONNREFUSED … 10.0.0.7:8081`), once, not per probe.
 */
function loggedReadiness(check: () => Promise<string | undefined>, log: FastifyBaseLogger, backend: string): () => Promise<boolean> {
  let wasReady: boolean | undefined;
  return async () => {
    const cause = await check();
    const ready = cause === undefined;
    if (ready !== wasReady) {
      if (ready) log.info(`${backend} is reachable`);
      else log.warn({ cause }, `${backend} is not reachable`);
      wasReady = ready;
    }
    return ready;
  };
}
