/**
 * The gateway's Prometheus metrics, one registry per gateway (prom-client).
 *
 * Names follow the conventions dashboards already know:
 * - HTTP, as OpenTelemetry's semantic conventions name them in Prometheus
 *   (`http.server.request.duration` → `http_server_request_duration_seconds`,
 *   with `http_request_method`, `http_route`, `http_response_status_code`, and
 *   the same for `http.client.request.duration`, the calls to v1), with the
 *   buckets OpenTelemetry recommends for them;
 * - gRPC, as the Go services of the real platform export them
 *   (go-grpc-middleware's prometheus provider): `grpc_server_started_total`,
 *   `grpc_server_handled_total` and `grpc_server_handling_seconds`, labelled
 *   `grpc_type`, `grpc_service`, `grpc_method`, `grpc_code`;
 * - store queries, as OpenTelemetry's database conventions name them
 *   (`db.client.operation.duration` → `db_client_operation_duration_seconds`,
 *   by `db_system_name`, `db_operation_name`, `db_collection_name`, and
 *   `error_type` when it failed), with the buckets they advise;
 * - the gateway's own, under `v2gw_`.
 *
 * Labels are bounded: a route template from the contract, never a raw path
 * or a uid; an RPC of the contract, never a caller's string. The labelled
 * ones are keyed-metrics.ts's (label values in declared order, no label work
 * per observation), registered beside prom-client's own.
 */
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { codeName, type CodeNumber } from '../rpc-status.ts';
import type { StoreQuery } from './store-query.ts';
import { KeyedCounter, KeyedHistogram } from './keyed-metrics.ts';

/** OpenTelemetry's advised buckets for HTTP durations, in seconds. */
const OTEL_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** OpenTelemetry's advised buckets for database operation durations, in seconds: most are sub-millisecond to a few ms. */
const OTEL_DB_DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];

export class GatewayMetrics {
  readonly registry = new Registry();

  readonly #httpServer = new KeyedHistogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests (REST, the v1 pass-through, probes), by route template.',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'] as const,
    buckets: OTEL_DURATION_BUCKETS,
    registers: [this.registry],
  });

  readonly #httpActive = new Gauge({
    name: 'http_server_active_requests',
    help: 'HTTP requests in flight (REST, pass-through, probes): what a drain still waits for.',
    registers: [this.registry],
  });

  readonly #grpcStarted = new KeyedCounter({
    name: 'grpc_server_started_total',
    help: 'RPCs started on the server (gRPC, gRPC-Web and Connect).',
    labelNames: ['grpc_type', 'grpc_service', 'grpc_method'] as const,
    registers: [this.registry],
  });

  readonly #grpcHandled = new KeyedCounter({
    name: 'grpc_server_handled_total',
    help: 'RPCs completed on the server, by status code.',
    labelNames: ['grpc_type', 'grpc_service', 'grpc_method', 'grpc_code'] as const,
    registers: [this.registry],
  });

  readonly #grpcHandling = new KeyedHistogram({
    name: 'grpc_server_handling_seconds',
    help: 'Time from the start of an RPC to its status, in seconds.',
    labelNames: ['grpc_type', 'grpc_service', 'grpc_method'] as const,
    buckets: OTEL_DURATION_BUCKETS,
    registers: [this.registry],
  });

  readonly #v1Client = new KeyedHistogram({
    name: 'http_client_request_duration_seconds',
    help: 'Duration of the calls the gateway makes to v1 on v2 routes; status 0 when no answer came (refused, reset, timed out).',
    labelNames: ['http_request_method', 'http_response_status_code'] as const,
    buckets: OTEL_DURATION_BUCKETS,
    registers: [this.registry],
  });

  readonly #v1CallsPerRequest = new KeyedHistogram({
    name: 'v2gw_v1_calls_per_request',
    help: 'v1 calls one v2 request made (a Get is 1; a hydrated page more; native mode 0).',
    buckets: [0, 1, 2, 3, 5, 8, 13, 21],
    registers: [this.registry],
  });

  readonly #cache = new KeyedCounter({
    name: 'v2gw_cache_lookups_total',
    help: 'Lookups in the gateway\'s caches: hydration (v1 rows behind references), kept_times (times v1 omits), walk (the order of a list walk, for its later pages) and list_scan (v1 lists answered with bytes already read).',
    labelNames: ['cache', 'result'] as const,
    registers: [this.registry],
  });

  readonly #storeQuery = new KeyedHistogram({
    name: 'db_client_operation_duration_seconds',
    help: 'Duration of the store\'s queries (native mode\'s resources; in translate mode the times v1 omits), by SQL operation and table.',
    labelNames: ['db_system_name', 'db_operation_name', 'db_collection_name', 'error_type'] as const,
    buckets: OTEL_DB_DURATION_BUCKETS,
    registers: [this.registry],
  });

  readonly #refused = new KeyedCounter({
    name: 'v2gw_requests_refused_total',
    help: 'v2 requests refused for a limit rather than for what they asked: RESOURCE_EXHAUSTED (fan-out, size) and UNAVAILABLE (shed, backend down), by code.',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  httpServer(method: string, route: string, status: number, seconds: number): void {
    this.#httpServer.observe(seconds, method, route, status);
  }

  /** A request came in; the function it answers ends it, once however often it is called. */
  httpStarted(): () => void {
    this.#httpActive.inc();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#httpActive.dec();
    };
  }

  grpcStarted(service: string, method: string): void {
    this.#grpcStarted.inc(1, 'unary', service, method);
  }

  grpcHandled(service: string, method: string, code: CodeNumber, seconds: number): void {
    this.#grpcHandled.inc(1, 'unary', service, method, grpcCodeLabel(code));
    this.#grpcHandling.observe(seconds, 'unary', service, method);
    this.refusedIfLimited(code);
  }

  v1Call(method: string, status: number, seconds: number): void {
    this.#v1Client.observe(seconds, method, status);
  }

  v1CallsPerRequest(calls: number): void {
    this.#v1CallsPerRequest.observe(calls);
  }

  cacheLookup(cache: 'hydration' | 'kept_times' | 'walk' | 'list_scan', hits: number, misses: number): void {
    if (hits) this.#cache.inc(hits, cache, 'hit');
    if (misses) this.#cache.inc(misses, cache, 'miss');
  }

  /** `system` is OpenTelemetry's name for the engine: `sqlite` or `postgresql`. */
  storeQuery(system: string, query: StoreQuery): void {
    this.#storeQuery.observe(query.durationMs / 1000, system, query.operation, query.table ?? '', query.error || undefined);
  }

  /** Counts a v2 answer refused for a limit (by its code); other codes are not refusals. */
  refusedIfLimited(code: CodeNumber): void {
    if (code === 8 || code === 14) this.#refused.inc(1, codeName(code));
  }

  /** The exposition text and its content type, for `/metrics`. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** grpc-go's names for the status codes (its `codes.Code.String()`), as its prometheus provider labels them. */
const GRPC_GO_CODE_NAMES = [
  'OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied',
  'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable',
  'DataLoss', 'Unauthenticated',
] as const;

function grpcCodeLabel(code: CodeNumber): string {
  return GRPC_GO_CODE_NAMES[code] ?? 'Unknown';
}
