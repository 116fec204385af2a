/**
 * One exchange with v1 over undici's dispatch API: the request sent, v1's
 * answer (status, headers, bytes) collected as it arrives under a size cap,
 * and the call's deadline (call-deadline.ts) aborting undici's own request.
 *
 * Dispatch rather than undici's `request()`: that wraps every answer in a
 * Readable stream and follows an AbortSignal, and a Get paid for both (the
 * stream's chunk and end-of-stream machinery, an AbortController per call, a
 * listener added and removed on each side): ~10% of the bytes a Get allocated
 * in a sampling allocation profile. The handler below gathers the chunks it is
 * given (answer-bytes.ts), which is all the gateway ever did with the stream.
 */
import type { Dispatcher } from 'undici';
import type { AnswerBody } from './answer-body.ts';
import { AnswerBytes } from './answer-bytes.ts';
import { callDeadline, type Release } from './call-deadline.ts';
import type { CancelSignal } from '../cancellation.ts';

export interface Answer {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The whole body, or undefined when it was larger than the cap (the exchange was cut off there). */
  readonly body: AnswerBody | undefined;
}

export interface ExchangeLimits {
  /** Largest answer read, in bytes: a declared length over it is refused before reading, an undeclared one counted as it arrives. */
  readonly maxBytes: number;
  /** The call's own deadline. */
  readonly timeoutMs: number;
}

export interface ExchangeOptions {
  /** The request's signal: the caller gone, or the whole request's deadline past. */
  signal?: CancelSignal | undefined;
  /** Told v1's status as soon as its headers arrive, before the body. */
  answered?: ((status: number) => void) | undefined;
  /** The bytes the answer is likely to be (v1's last answer to the same request): see answer-bytes.ts. */
  likely?: Uint8Array | undefined;
}

/**
 * Sends `request` and answers v1's whole answer, or rejects with the transport's error or the
 * abort's reason (the deadline's TimeoutError, or the request signal's reason).
 */
export function exchange(dispatcher: Dispatcher, request: Dispatcher.DispatchOptions, limits: ExchangeLimits, options: ExchangeOptions = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const reader = new AnswerReader(limits.maxBytes, resolve, reject, options.answered, options.likely);
    reader.release = callDeadline(limits.timeoutMs, options.signal, (reason) => reader.abort(reason));
    if (reader.settled) return;
    try {
      dispatcher.dispatch(request, reader);
    } catch (error) {
      reader.onResponseError(undefined, error as Error);
    }
  });
}

/** The answer cut off at the cap: aborted with this, whose message says why if undici ever reports it. */
function tooLargeAbort(maxBytes: number): Error {
  return Object.assign(new Error(`the v1 answer is larger than ${maxBytes} bytes`), { code: 'V2GW_V1_ANSWER_TOO_LARGE' });
}

/**
 * undici's handler for one exchange. It settles once: on the answer's end, on an error, on the
 * deadline, or on passing the cap; whatever undici reports afterwards (the error of the abort it was
 * asked for) is not heard. An abort that comes before undici has a connection for the request is
 * answered at once, and the request is aborted as soon as undici starts it.
 */
class AnswerReader implements Dispatcher.DispatchHandler {
  release: Release = () => {};
  settled = false;
  readonly #maxBytes: number;
  readonly #resolve: (answer: Answer) => void;
  readonly #reject: (error: unknown) => void;
  readonly #answered: ((status: number) => void) | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #abortReason: Error | undefined;
  readonly #likely: Uint8Array | undefined;
  #statusCode = 0;
  #headers: Answer['headers'] = {};
  #bytes: AnswerBytes | undefined;

  constructor(maxBytes: number, resolve: (answer: Answer) => void, reject: (error: unknown) => void, answered?: (status: number) => void, likely?: Uint8Array) {
    this.#maxBytes = maxBytes;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#answered = answered;
    this.#likely = likely;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortReason) controller.abort(this.#abortReason);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Answer['headers']): void {
    if (this.settled) return;
    this.#statusCode = statusCode;
    this.#headers = headers;
    this.#answered?.(statusCode);
    const length = headers['content-length'];
    const declared = typeof length === 'string' && length !== '' ? Number(length) : undefined;
    if (declared !== undefined && declared > this.#maxBytes) this.#cutOff(controller);
    // Only a successful answer is likely to be the last one; an error's body is small and read once.
    else this.#bytes = new AnswerBytes({ likely: statusCode >= 200 && statusCode < 300 ? this.#likely : undefined, declared });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    const bytes = (this.#bytes ??= new AnswerBytes());
    if (bytes.length + chunk.length > this.#maxBytes) this.#cutOff(controller);
    else bytes.add(chunk);
  }

  onResponseEnd(): void {
    if (this.#settle()) this.#resolve({ statusCode: this.#statusCode, headers: this.#headers, body: (this.#bytes ?? new AnswerBytes()).body() });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.#settle()) this.#reject(error);
  }

  /** Ends the exchange with `reason` (the deadline's or the request's). */
  abort(reason: unknown): void {
    if (!this.#settle()) return;
    // undici's controller takes an Error; a reason that is not one still reaches the caller as it was.
    this.#abortReason = reason instanceof Error ? reason : Object.assign(new Error('the v1 call was aborted'), { cause: reason });
    this.#controller?.abort(this.#abortReason);
    this.#reject(reason);
  }

  /** Past the cap: the answer is given up (body undefined) and the request aborted, which drops its connection, so the rest never arrives. */
  #cutOff(controller: Dispatcher.DispatchController): void {
    this.#settle();
    this.#bytes?.discard();
    this.#resolve({ statusCode: this.#statusCode, headers: this.#headers, body: undefined });
    controller.abort(tooLargeAbort(this.#maxBytes));
  }

  /** Marks the exchange settled, the first time only (true then), and releases its deadline. */
  #settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.release();
    return true;
  }
}
