/**
 * One RPC's bookkeeping, whichever server reads the call (the gateway's own
 * unary gRPC server, or ConnectRPC for everything else): its request id, its
 * server span, and when it ends, the access line and the RPC metrics, once.
 */
import type { FastifyBaseLogger } from 'fastify';
import { logMs, type AccessLines } from '../../log.ts';
import { requestIdOf } from '../request-id.ts';
import { Code, codeName, type CodeNumber } from '../../rpc-status.ts';
import type { GatewayMetrics } from '../../observability/metrics.ts';
import { rpcServerErrorType, type HeaderReader, type TraceSpan, type Tracing } from '../../observability/tracing.ts';

export interface CallObservers {
  log: FastifyBaseLogger;
  /**
   * Where the access line goes: a logger without path redaction (log.ts, accessLogger), as REST's. The
   * line holds no header, and the full redaction's wildcards cloned every line: 7% of what a gRPC
   * Get allocated. Defaults to `log`.
   */
  accessLog?: FastifyBaseLogger | undefined;
  /** Writes the access line as `accessLog` would, for less (log.ts, accessLines); unset: `accessLog` writes it. */
  accessLines?: AccessLines | undefined;
  metrics?: GatewayMetrics | undefined;
  tracing?: Tracing | undefined;
}

/** The wire protocol, as ConnectRPC names it. */
export type RpcProtocol = 'grpc' | 'grpc_web' | 'connect' | (string & {});

export interface CallRecord {
  readonly requestId: string;
  readonly rpc: string;
  /** The server span (tracing on), or the caller's context to hand on (off); undefined when neither. */
  readonly span: TraceSpan | undefined;
  /** Records the call's end with its status code; later calls are ignored. */
  end(code: CodeNumber): void;
}

const HEALTH = 'grpc.health.v1.Health';

export function startCall(observers: CallObservers, service: string, method: string, protocol: RpcProtocol, header: HeaderReader): CallRecord {
  return new Call(observers, service, method, protocol, header);
}

/** A call's record: one object, not a closure over the call's values with an object around it. */
class Call implements CallRecord {
  readonly requestId: string;
  readonly rpc: string;
  readonly span: TraceSpan | undefined;
  readonly #observers: CallObservers;
  readonly #service: string;
  readonly #method: string;
  readonly #protocol: RpcProtocol;
  readonly #header: HeaderReader;
  readonly #started = performance.now();
  #ended = false;

  constructor(observers: CallObservers, service: string, method: string, protocol: RpcProtocol, header: HeaderReader) {
    this.#observers = observers;
    this.#service = service;
    this.#method = method;
    this.#protocol = protocol;
    this.#header = header;
    observers.metrics?.grpcStarted(service, method);
    this.requestId = requestIdOf(header('x-request-id') as string | string[] | null | undefined);
    this.rpc = `${service}/${method}`;
    const tracing = observers.tracing;
    // Health checks are probes: never traced. The span's attributes are made only when there is a span to hold them.
    this.span = service === HEALTH || !tracing ? undefined : tracing.server(this.rpc, header, tracing.enabled ? () => rpcAttributes(protocol, service, method) : noAttributes);
  }

  end(code: CodeNumber): void {
    if (this.#ended) return;
    this.#ended = true;
    const observers = this.#observers;
    const ms = performance.now() - this.#started;
    observers.metrics?.grpcHandled(this.#service, this.#method, code, ms / 1000);
    const span = this.span;
    if (span) {
      span.set(statusAttributes(this.#protocol, code));
      span.end(rpcServerErrorType(code));
    }
    const userAgent = this.#header('user-agent');
    const fields = { reqId: this.requestId, rpc: this.rpc, code, responseTime: logMs(ms), userAgent: typeof userAgent === 'string' ? userAgent : undefined };
    if (observers.accessLines) observers.accessLines(fields);
    else (observers.accessLog ?? observers.log).info(fields, 'request');
  }
}

/** Tracing off asks for no attributes (Tracing.server): one function for every call. */
function noAttributes(): Record<string, string> {
  return {};
}

/** Whether the call is a health probe (never shed, never traced). */
export function isHealthCheck(service: string): boolean {
  return service === HEALTH;
}

/** OpenTelemetry's RPC attributes: Connect is its own `rpc.system`; gRPC-Web is gRPC's. */
function rpcAttributes(protocol: RpcProtocol, service: string, method: string): Record<string, string> {
  return { 'rpc.system': protocol === 'connect' ? 'connect_rpc' : 'grpc', 'rpc.service': service, 'rpc.method': method };
}

/** gRPC's numeric status code; Connect's error code by its name (`not_found`), on errors only. */
function statusAttributes(protocol: RpcProtocol, code: CodeNumber): Record<string, string | number | undefined> {
  if (protocol !== 'connect') return { 'rpc.grpc.status_code': code };
  return { 'rpc.connect_rpc.error_code': code === Code.OK ? undefined : codeName(code).toLowerCase().replace('cancelled', 'canceled') };
}
