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
  const started = performance.now();
  observers.metrics?.grpcStarted(service, method);
  const requestId = requestIdOf(header('x-request-id') as string | string[] | null | undefined);
  const rpc = `${service}/${method}`;
  // Health checks are probes: never traced.
  const span = service === HEALTH ? undefined : observers.tracing?.server(rpc, header, () => rpcAttributes(protocol, service, method));
  let ended = false;
  return {
    requestId,
    rpc,
    span,
    end(code) {
      if (ended) return;
      ended = true;
      const ms = performance.now() - started;
      observers.metrics?.grpcHandled(service, method, code, ms / 1000);
      if (span) {
        span.set(statusAttributes(protocol, code));
        span.end(rpcServerErrorType(code));
      }
      const userAgent = header('user-agent');
      const fields = { reqId: requestId, rpc, code, responseTime: logMs(ms), userAgent: typeof userAgent === 'string' ? userAgent : undefined };
      if (observers.accessLines) observers.accessLines(fields);
      else (observers.accessLog ?? observers.log).info(fields, 'request');
    },
  };
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
