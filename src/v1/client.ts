/**
 * The one way the gateway talks to v1: an undici pool with a deadline per call
 * and retries for safe reads (read-retry.ts), answering parsed JSON or throwing the ApiError
 * that describes what went wrong (see errors.ts). An answer is read under a
 * size cap, counted as it arrives: past it the v1 request is aborted, so the
 * gateway never holds more of one answer than the cap.
 */
import { Pool } from 'undici';
import { withReadRetries } from './read-retry.ts';
import { ApiError } from '../aip/errors.ts';
import { jsonKind } from './answer-fields.ts';
import { fromTransportError, fromV1Response, notJson, tooLarge, unreadable } from './errors.ts';
import { httpClientAttributes, httpClientErrorType, type TraceSpan } from '../observability/tracing.ts';
import type { AnswerBody } from './answer-body.ts';
import { exchange, type Answer, type ExchangeLimits } from './exchange.ts';
import { parseJsonBytes } from './json-body.ts';
import { withQuery, type QueryValue } from './query-string.ts';
import type { CancelSignal } from '../cancellation.ts';
import type { ListRead, ListRow } from './list-stream.ts';

/**
 * Reads a successful answer itself, for a caller that wants more of v1's bytes than their JSON value (a
 * List's scanner): `body` is undefined when v1 sent none (or a BOM alone); `status` names the answer in
 * the errors it throws, which the call throws as they are.
 */
export type ReadSuccess<T> = (body: AnswerBody | undefined, status: number) => T;

export interface V1Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path segments after the host, joined with `/`; each is escaped except the `/` inside UIDPs. */
  path: string;
  query?: Readonly<Record<string, QueryValue>>;
  body?: unknown;
  /** The caller's own Authorization header, forwarded as is. */
  authorization: string;
  /**
   * The bytes v1 is likely to answer (its last answer to this same call, kept by the caller): the
   * answer is compared with them as it arrives, and none of it is held while it matches (answer-bytes.ts).
   */
  likely?: Uint8Array | undefined;
}

/** The part of a request's context a v1 call honours: its counter, its signal (deadline, cancellation), and its trace. */
export interface CallScope {
  readonly counter: { v1Calls: number };
  readonly signal?: CancelSignal;
  /** The span the call is a child of; its context goes to v1 in `traceparent`. */
  readonly trace?: TraceSpan | undefined;
}

export interface V1ClientOptions {
  baseUrl: string;
  timeoutMs: number;
  /** Largest v1 answer read, in bytes; a larger one fails the call (INTERNAL) once this much has arrived. */
  maxBodyBytes?: number;
  connections?: number;
  /** Told of every v1 call as it ends: its method, v1's HTTP status (0: no answer), and its duration. */
  observe?: (method: string, status: number, seconds: number) => void;
}

/** The default cap on one v1 answer (the configuration's default too). */
export const DEFAULT_V1_MAX_BODY_BYTES = 32 * 1024 * 1024;

export class V1Client {
  readonly baseUrl: string;
  readonly #origin: URL;
  readonly #pool: Pool;
  readonly #limits: ExchangeLimits;
  readonly #observe: V1ClientOptions['observe'];

  constructor(options: V1ClientOptions) {
    this.#observe = options.observe;
    const url = new URL(options.baseUrl);
    this.baseUrl = url.origin;
    this.#origin = url;
    this.#limits = { timeoutMs: options.timeoutMs, maxBytes: options.maxBodyBytes ?? DEFAULT_V1_MAX_BODY_BYTES };
    this.#pool = new Pool(url.origin, {
      connections: options.connections ?? 64,
      keepAliveTimeout: 10_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  /** v1's answer to the call as its JSON message (an object); a failure thrown as the ApiError that describes it. */
  call<T = unknown>(call: V1Call, scope?: CallScope): Promise<T> {
    return this.callReading(call, scope, v1Message<T>);
  }

  /**
   * `call` with its successful answer read by `read` (ReadSuccess), its failures thrown as `call` throws them.
   * One async function for the call and its observation (metrics, the client span): each async layer a
   * call passes through is a promise and a suspended frame more, allocated on every Get.
   */
  async callReading<T>(call: V1Call, scope: CallScope | undefined, read: ReadSuccess<T>): Promise<T> {
    if (scope) scope.counter.v1Calls++;
    // One client span per call (its retries included), whose context v1 gets as the parent of its own work.
    const span = scope?.trace?.child(call.method, 'client', httpClientAttributes(call.method, this.#origin, call.path));
    const observe = this.#observe;
    const started = observe || span ? performance.now() : 0;
    let status = 0;
    let failed: unknown;
    try {
      // A literal of one shape when there is no trace context to pass on (tracing off): no object spread per call.
      const headers: Record<string, string> = span
        ? { ...span.propagation, authorization: call.authorization, accept: 'application/json' }
        : { authorization: call.authorization, accept: 'application/json' };
      let body: string | undefined;
      if (call.body !== undefined) {
        body = JSON.stringify(call.body);
        headers['content-type'] = 'application/json';
      }
      let answer: Answer;
      try {
        const request = { origin: this.baseUrl, method: call.method, path: withQuery(call.path, call.query), headers, body };
        const answered = observe || span ? (s: number) => (status = s) : undefined;
        // Reads are safe to repeat (read-retry.ts says when, and how long v1's Retry-After lets it wait); the
        // last answer is handed through, so v1's own error body still reaches the client. The request's signal
        // ends the call when the caller goes away or the whole request's deadline passes.
        answer = await withReadRetries(call.method, this.#limits.timeoutMs, scope?.signal, (timeoutMs) =>
          // The first try has the whole timeout: the limits as they are, no copy made for it.
          exchange(this.#pool, request, timeoutMs === this.#limits.timeoutMs ? this.#limits : { ...this.#limits, timeoutMs }, { signal: scope?.signal, answered, likely: call.likely }),
        );
      } catch (error) {
        throw failure(error, scope, this.#limits.timeoutMs);
      }
      const { statusCode, body: bytes } = answer;
      if (bytes === undefined) throw tooLarge(statusCode, this.#limits.maxBytes);
      if (statusCode >= 200 && statusCode < 300) return read(isEmpty(bytes) ? undefined : bytes, statusCode);
      throw fromV1Response(statusCode, textOf(bytes.bytes()), { 'retry-after': answer.headers['retry-after'] });
    } catch (error) {
      failed = error;
      throw error;
    } finally {
      observe?.(call.method, status, (performance.now() - started) / 1000);
      if (span) {
        if (status) span.set({ 'http.response.status_code': status });
        span.end(httpClientErrorType(status, failed));
      }
    }
  }

  /**
   * A list's rows as v1 sends them, a batch at a time, never its whole answer (list-stream.ts): for a
   * reader of whole collections (the import). Its deadline is the client's, for the headers and for
   * each gap between chunks, not for the whole answer; its size cap is the caller's (`list.maxBytes`).
   * Each GET it makes is observed as the client's other calls are.
   */
  async *listRows(list: ListRead): AsyncGenerator<ListRow[]> {
    const send = (path: string, authorization: string) =>
      this.#pool.request({ origin: this.baseUrl, method: 'GET', path, headers: { authorization, accept: 'application/json' } });
    // Loaded when first used: the gateway itself never streams a list, so it never loads the streaming parser.
    const { listRows } = await import('./list-stream.ts');
    yield* listRows(send, list, this.#limits.timeoutMs, this.#observe);
  }

  /** Readiness: v1 answers HTTP at all (any status, even 401, means it is up). */
  async reachable(timeoutMs = 2000): Promise<boolean> {
    return (await this.unreachableBecause(timeoutMs)) === undefined;
  }

  /**
   * Why v1 does not answer (`ECONNREFUSED: connect ECONNREFUSED 10.0.0.7:8081`), or undefined
   * when it does: an SRE reading the log needs the cause and the address, not just "down".
   */
  async unreachableBecause(timeoutMs = 2000): Promise<string | undefined> {
    try {
      const response = await this.#pool.request({ method: 'GET', path: '/', signal: AbortSignal.timeout(timeoutMs) });
      await response.body.dump();
      return undefined;
    } catch (error) {
      return describeFailure(error, timeoutMs);
    }
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

/**
 * A successful answer as v1's message, read by `read` (JSON.parse's value, or one of the same members
 * read otherwise: v1/list-body.ts): none is `{}`, a body not JSON or not an object is refused.
 */
export function v1Message<T>(body: AnswerBody | undefined, status: number, read: (body: AnswerBody) => unknown = parseBody): T {
  if (body === undefined) return {} as T;
  let parsed: unknown;
  try {
    parsed = read(body);
  } catch {
    throw notJson(status);
  }
  // Every v1 answer is a message, so a JSON object; anything else is no answer the gateway can trust.
  if (jsonKind(parsed) !== 'object') throw unreadable(status, `a JSON ${jsonKind(parsed)} where an object was expected`);
  return parsed as T;
}

const parseBody = (body: AnswerBody): unknown => parseJsonBytes(body.bytes());

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** An answer with nothing in it but, perhaps, a BOM. */
function isEmpty(body: AnswerBody): boolean {
  return body.length === 0 || (body.length === BOM.length && body.equals(BOM));
}

/** An (error) answer as text; a leading BOM is dropped, as undici's own text() drops it. */
function textOf(bytes: Buffer): string {
  return bytes.toString('utf8', bytes.subarray(0, BOM.length).equals(BOM) ? BOM.length : 0);
}

/** A transport failure, or the request's own abort (its reason says which: deadline or cancellation). */
function failure(error: unknown, scope: CallScope | undefined, timeoutMs: number): unknown {
  if (scope?.signal?.aborted && scope.signal.reason instanceof ApiError) return scope.signal.reason;
  return fromTransportError(error, timeoutMs);
}

/** A connection failure in one line: its code (or name) and message, and the cause it wraps. */
function describeFailure(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; code?: string; message?: string; cause?: unknown };
  if (e?.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const own = [e?.code ?? e?.name, e?.message].filter(Boolean).join(': ');
  const cause = e?.cause && e.cause !== error ? describeFailure(e.cause, timeoutMs) : '';
  return [own, cause].filter(Boolean).join(' <- ') || String(error);
}
