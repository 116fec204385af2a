/**
 * The pass-through's one deadline: v1's response headers must arrive within
 * `timeoutMs` of the request having been received whole from the client (at
 * once for a request without a body). A timer of the gateway's own, not
 * undici's: undici checks its connect and headers timeouts on a coarse clock
 * (ticks of about half a second) and per phase, so a 1 s deadline used to end
 * after about 1.5 s. The time a client spends uploading does not count: a
 * streamed upload is bounded by the listener's request timeout instead.
 */
import type { Dispatcher } from 'undici';

/** What the pass-through says when the deadline passes; named like the DOMException AbortSignal.timeout raises. */
export class HeadersDeadlineError extends Error {
  constructor(timeoutMs: number) {
    super(`v1 sent no response headers within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

type Callback = (error: Error | null, data: Dispatcher.ResponseData) => void;

/** The part of undici's Dispatcher that the pass-through calls. */
export interface Requester {
  request(options: Dispatcher.RequestOptions, callback: Callback): void;
}

interface Upload {
  complete?: boolean;
  readableEnded?: boolean;
  once(event: 'end', listener: () => void): unknown;
  off(event: 'end', listener: () => void): unknown;
}

function isUpload(body: unknown): body is Upload {
  return !!body && typeof (body as Upload).once === 'function' && typeof (body as Upload).off === 'function';
}

/** `dispatcher` with the headers deadline on every request; everything else about the request is left as it is. */
export function withHeadersDeadline(dispatcher: Pick<Dispatcher, 'request'>, timeoutMs: number): Requester {
  return {
    request(options, callback) {
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const arm = (): void => {
        timer ??= setTimeout(() => controller.abort(new HeadersDeadlineError(timeoutMs)), timeoutMs);
      };
      const body = options.body;
      const uploading = isUpload(body) && !body.complete && !body.readableEnded;
      if (uploading) body.once('end', arm);
      else arm();
      dispatcher.request({ ...options, signal: controller.signal }, (error, data) => {
        clearTimeout(timer);
        if (uploading) body.off('end', arm);
        callback(error, data);
      });
    },
  };
}
