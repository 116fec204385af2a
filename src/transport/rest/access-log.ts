/**
 * One access line per HTTP request, written when the answer is complete:
 * what came in (method, URL, allowlisted headers, credentials censored) and
 * how it ended (status, time). Fastify's default is two lines per request
 * (incoming, completed), twice the bytes and the logging CPU on the hot path.
 * Routes that log at `warn` (health probes) write none.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { logMs, requestSummary, type AccessLines } from '../../log.ts';

export class AccessLog extends LogController {
  /** Successful requests' lines, on the access logger (log.ts, accessLines), not the request's own child logger with full redaction. */
  readonly #lines: AccessLines;

  /** `lines`: the access lines (log.ts), made once for the whole gateway. */
  constructor(lines: AccessLines) {
    super();
    this.#lines = lines;
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) request.log.error({ req: request, res: reply, err: error, responseTime: logMs(reply.elapsedTime) }, 'request errored');
    // The request's own level decides (health probes log at warn, so write none).
    else if ((request.log as unknown as Logger).isLevelEnabled('info')) {
      this.#lines({ reqId: request.id, req: requestSummary(request), res: { statusCode: reply.statusCode }, responseTime: logMs(reply.elapsedTime) });
    }
  }
}
