/**
 * Tracing as the rest of the gateway sees it: a small interface, the W3C
 * context a request carries, and the rules for what a span says. The
 * OpenTelemetry SDK stays behind it (otel.ts), imported only when tracing is
 * on: a sidecar with tracing off never loads it, makes no span object, and
 * pays one header lookup per request.
 *
 * With tracing off the gateway is not a hop of the trace: a caller's valid
 * `traceparent` (and `tracestate`) goes on to v1 unchanged, so an outer trace
 * still joins up across a sidecar that records nothing.
 *
 * What a span may carry: names from the contract or a route template (never
 * a uid), and attributes in OpenTelemetry's semantic-convention names. Never a
 * header value, a token, a query string, a request body or an error message
 * (any of them may carry a secret or a caller's value): failures are told by
 * `error.type` — a status code, a gRPC code name, an error code or class.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ApiError } from '../aip/errors.ts';
import { codeName, type CodeNumber } from '../rpc-status.ts';
import { failureType } from './error-type.ts';
import type { ExportLog } from './export-failures.ts';
import type { SpanAttributes, SpanFactory, TraceSpan } from './span.ts';
import type { StoreQuery } from './store-query.ts';
import { parseTraceparent, propagationHeaders, usableTracestate, TRACEPARENT_HEADER, TRACESTATE_HEADER } from './trace-context.ts';
import { describeTracing, type TracingSettings } from './tracing-settings.ts';

export type { SpanAttributes, TraceSpan } from './span.ts';

/** A header of the incoming request (REST's headers object or gRPC metadata alike). */
export type HeaderReader = (name: string) => string | readonly string[] | null | undefined;

/** The caller's context with tracing off: handed on unchanged, nothing recorded. */
class CallerContext implements TraceSpan {
  readonly recording = false;
  readonly propagation: Readonly<Record<string, string>>;
  constructor(propagation: Readonly<Record<string, string>>) {
    this.propagation = propagation;
  }
  child(): TraceSpan {
    return this;
  }
  ranChild(): void {}
  set(): void {}
  rename(): void {}
  end(): void {}
}

/** With tracing off: the caller's context to hand on to v1 unchanged, if it sent a valid one. */
export function callerContext(traceparent: string | readonly string[] | null | undefined, tracestate: string | readonly string[] | null | undefined): TraceSpan | undefined {
  if (traceparent == null || !parseTraceparent(traceparent)) return undefined;
  return new CallerContext(propagationHeaders((traceparent as string).trim(), usableTracestate(tracestate)));
}

/** The span a step below the transport runs in, for code that is handed no request context (the store). */
const ambient = new AsyncLocalStorage<TraceSpan>();

export class Tracing {
  /** What the startup line says: `off`, or where spans go. */
  readonly description: string;
  readonly #factory: SpanFactory | undefined;

  private constructor(factory: SpanFactory | undefined, description: string) {
    this.#factory = factory;
    this.description = description;
  }

  static readonly off = new Tracing(undefined, 'off');

  /**
   * Starts tracing as the settings say; the SDK is loaded here, and only when they turn it on.
   * `log` hears of exports that fail, and of the first that works after them.
   */
  static async start(settings: TracingSettings, log: ExportLog): Promise<Tracing> {
    if (!settings.enabled) return Tracing.off;
    const { startOtel } = await import('./otel.ts');
    return new Tracing(await startOtel(settings, log), describeTracing(settings));
  }

  get enabled(): boolean {
    return this.#factory !== undefined;
  }

  /**
   * The server span of a request arriving, continuing the caller's context if
   * it sent a valid one. Tracing off: the caller's context to hand on, or
   * undefined when it sent none (the common case costs one header lookup).
   */
  server(name: string, header: HeaderReader, attributes: () => SpanAttributes): TraceSpan | undefined {
    // (REST's v2 routes ask callerContext directly when tracing is off: no hook runs for them then.)
    const traceparent = header(TRACEPARENT_HEADER);
    if (!this.#factory) return traceparent == null ? undefined : callerContext(traceparent, header(TRACESTATE_HEADER));
    const parent = parseTraceparent(traceparent);
    return this.#factory.server(name, parent && { ...parent, tracestate: usableTracestate(header(TRACESTATE_HEADER)) }, attributes());
  }

  /** A store query, as a span of the request it ran for (if that request is recorded). */
  storeQuery(system: string, query: StoreQuery): void {
    const parent = this.#factory ? ambient.getStore() : undefined;
    if (!parent) return;
    const summary = query.table ? `${query.operation} ${query.table}` : query.operation;
    const attributes = { 'db.system.name': system, 'db.operation.name': query.operation, 'db.collection.name': query.table, 'db.query.summary': summary };
    parent.ranChild(summary, 'client', attributes, query.endedAt - query.durationMs, query.endedAt, query.error);
  }

  async shutdown(): Promise<void> {
    await this.#factory?.shutdown();
  }
}

/** Runs `work` with `span` as the ambient span of what it starts (store queries), when that span is recorded. */
export function within<T>(span: TraceSpan | undefined, work: () => T): T {
  return span?.recording ? ambient.run(span, work) : work();
}

/** The ambient span: the recorded span of the step this code runs under, if any. */
export function currentSpan(): TraceSpan | undefined {
  return ambient.getStore();
}

/**
 * Runs `work` in an internal child span of `parent` (a step: hydration), which
 * it is handed to pass on; with nothing recorded, `work` gets `parent` itself.
 */
export async function inChildSpan<T>(parent: TraceSpan | undefined, name: string, attributes: SpanAttributes, work: (span: TraceSpan | undefined) => Promise<T>): Promise<T> {
  if (!parent?.recording) return work(parent);
  const span = parent.child(name, 'internal', attributes);
  try {
    const result = await ambient.run(span, () => work(span));
    span.end();
    return result;
  } catch (error) {
    span.end(errorType(error));
    throw error;
  }
}

// ---- what a span says -------------------------------------------------------

/** `error.type` of a failure: the gRPC code name of an ApiError, else the error's code, else its class; never its message. */
export function errorType(error: unknown): string {
  return error instanceof ApiError ? codeName(error.code) : failureType(error);
}

/** An HTTP server span fails on a 5xx only: a 4xx is the caller's, not the server's. */
export function httpServerErrorType(status: number): string | undefined {
  return status >= 500 ? String(status) : undefined;
}

/** An HTTP client span fails when no answer came, or on any 4xx or 5xx. */
export function httpClientErrorType(status: number, failure: unknown): string | undefined {
  if (status >= 400) return String(status);
  return failure === undefined ? undefined : errorType(failure);
}

/** The gRPC codes that mark a server span failed (OpenTelemetry's RPC conventions); the others are the caller's outcome. */
const SERVER_FAULTS = new Set<number>([2, 4, 12, 13, 14, 15]);

export function rpcServerErrorType(code: CodeNumber): string | undefined {
  return SERVER_FAULTS.has(code) ? codeName(code) : undefined;
}

/** The attributes of an HTTP client span to `url` (its query string left out: it may carry a caller's values). */
export function httpClientAttributes(method: string, origin: URL, path: string): SpanAttributes {
  const cut = path.indexOf('?');
  return {
    'http.request.method': method,
    'server.address': origin.hostname,
    'server.port': Number(origin.port) || (origin.protocol === 'https:' ? 443 : 80),
    'url.full': `${origin.origin}${cut < 0 ? path : path.slice(0, cut)}`,
  };
}
