/**
 * What issue 40 names as always on for every answer, done the least way a Node gateway can, for the floors
 * with the default duties (bench/duty-floor-process.ts over REST, bench/grpc-translation-floor-process.ts
 * `--duties` over gRPC):
 *
 * - one access line per answer, through pino, with the fields the gateway's access line carries, made and
 *   written by the gateway's own access logger (src/index.ts, accessLineWriter: the fields censored before,
 *   no path redaction, the line in one JSON.stringify) to the gateway's own destination (bufferedLog: one
 *   write a turn of the event loop), to `--log <file>` (`/dev/null` in the benchmark, as its gateways write);
 * - the request metrics the gateway keeps by default, in the gateway's own registry (prom-client, with its
 *   process metrics): REST's duration histogram by method, route and status (its `_count` the request
 *   count); gRPC's started and handled counters and handling-time histogram; exposed at METRICS_PATH;
 * - a deadline on the v1 call: the gateway's v1 timeout (`--v1-timeout-ms`, its default unless given), one
 *   timer a call that gives the call up when it fires;
 * - the caller's Authorization forwarded, and nothing else of its headers.
 *
 * Nothing the issue does not name: no request ids from the caller's header, active-request gauge, v1 call
 * metrics, tracing, input checks, authorization or error shapes.
 */
import type { Pool } from 'undici';
import { accessLineWriter, bufferedLog, gatewayMetrics, loadConfig } from '../../src/index.ts';
import { wholeBody } from './least-translation.ts';

/** The duties' flags (node:util parseArgs), beside the floor's own `--v1-url`. */
export const DUTY_OPTIONS = { log: { type: 'string' }, 'v1-timeout-ms': { type: 'string' } } as const;

/** Where a floor with the duties serves its metrics' exposition, as the gateway does. */
export const METRICS_PATH = '/metrics';

/** v1's answer, read whole. */
export interface V1Answer {
  statusCode: number;
  body: Buffer;
}

/** A request as the REST access line reads it (a Fastify request). */
export interface AnsweredRequest {
  id: string;
  method: string;
  url: string;
  headers: Record<string, unknown>;
  ip?: string;
}

export interface Duties {
  /** v1's answer to GET `path`, asked with the caller's Authorization alone and given up at the call's deadline. */
  call(v1: Pool, path: string, authorization: string | undefined): Promise<V1Answer>;
  /** A REST answer sent: its access line, and its observation in the duration histogram under `route`. */
  answered(request: AnsweredRequest, route: string, statusCode: number, elapsedMs: number): void;
  /** The duties of one RPC's calls: each counted as it starts, and its end counted, timed and logged. */
  rpc(service: string, method: string): RpcDuties;
  /** The metrics' exposition, as `/metrics` answers it. */
  exposition(): Promise<{ contentType: string; body: string }>;
}

export interface RpcDuties {
  /** A call came in: counted; answers its start time, which `ended` takes. */
  started(): number;
  /** The call ended with this gRPC status code: counted, timed, and its access line written. */
  ended(code: number, startedAt: number, userAgent: unknown): void;
}

/** The duties, as the floor's flags (`--log`, `--v1-timeout-ms`) and `--v1-url` say. */
export async function leastDuties(values: { log?: string | undefined; 'v1-timeout-ms'?: string | undefined; 'v1-url'?: string | undefined }): Promise<Duties> {
  if (!values.log) throw new Error('--log <file> is required with the duties: where the access lines go');
  // The gateway's own setting, read as the gateway reads it: its default deadline, or the one given.
  const config = await loadConfig(['--v1-url', values['v1-url'] ?? '', ...(values['v1-timeout-ms'] ? ['--v1-timeout-ms', values['v1-timeout-ms']] : [])], {});
  const timeoutMs = config.v1TimeoutMs;
  const lines = await accessLineWriter(await bufferedLog(values.log));
  const metrics = await gatewayMetrics();
  let calls = 0;
  return {
    async call(v1, path, authorization) {
      const deadline = new CallDeadline(timeoutMs);
      try {
        const answer = await v1.request({ method: 'GET', path, headers: authorization === undefined ? {} : { authorization }, signal: deadline.signal });
        return { statusCode: answer.statusCode, body: await wholeBody(answer.body) };
      } finally {
        deadline.end();
      }
    },
    answered(request, route, statusCode, elapsedMs) {
      metrics.httpServer(request.method, route, statusCode, elapsedMs / 1000);
      lines.write({ reqId: request.id, req: lines.requestSummary(request), res: { statusCode }, responseTime: lines.ms(elapsedMs) });
    },
    rpc(service, method) {
      const rpc = `${service}/${method}`;
      return {
        started() {
          metrics.grpcStarted(service, method);
          return performance.now();
        },
        ended(code, startedAt, userAgent) {
          const ms = performance.now() - startedAt;
          metrics.grpcHandled(service, method, code as Parameters<typeof metrics.grpcHandled>[2], ms / 1000);
          // The call's id, as the REST floor's (Fastify's): a count of the process's calls.
          lines.write({ reqId: `req-${(++calls).toString(36)}`, rpc, code, responseTime: lines.ms(ms), userAgent: typeof userAgent === 'string' ? userAgent : undefined });
        },
      };
    },
    exposition: () => metrics.exposition(),
  };
}

/** undici's `signal`: an AbortSignal, or an EventEmitter it listens to for 'abort'. */
type UndiciSignal = NonNullable<Parameters<Pool['request']>[0]['signal']>;

/**
 * One v1 call's deadline: a timer, and the call given up when it fires (with a TimeoutError, as
 * AbortSignal.timeout's). Handed to undici as the EventEmitter its `signal` may be (it listens with `once`
 * and stops with `removeListener`), so no AbortController, AbortSignal or event target is made per call;
 * `end` clears the timer once the answer is read.
 */
class CallDeadline {
  reason: Error | undefined;
  #listener: (() => void) | undefined;
  readonly #timer: NodeJS.Timeout;
  readonly #timeoutMs: number;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#timer = setTimeout(expire, timeoutMs, this);
  }

  get signal(): UndiciSignal {
    return this as unknown as UndiciSignal;
  }

  // undici checks for `on` (an EventEmitter) and listens with `once`.
  on(_event: 'abort', listener: () => void): this {
    this.#listener = listener;
    return this;
  }

  once(event: 'abort', listener: () => void): this {
    return this.on(event, listener);
  }

  removeListener(): this {
    this.#listener = undefined;
    return this;
  }

  expire(): void {
    this.reason = new DOMException(`no answer within ${this.#timeoutMs} ms`, 'TimeoutError');
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.();
  }

  end(): void {
    clearTimeout(this.#timer);
  }
}

function expire(deadline: CallDeadline): void {
  deadline.expire();
}
