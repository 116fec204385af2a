/**
 * One access line per HTTP request, written when the answer is complete:
 * what came in (method, URL, allowlisted headers, credentials censored) and
 * how it ended (status, time). Fastify's default is two lines per request
 * (incoming, completed), twice the bytes and the logging CPU on the hot path.
 * Routes that log at `warn` (health probes) write none.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { logMs } from '../../log.ts';

export class AccessLog extends LogController {
  /** Successful requests' lines: one logger made once, rather than the request's own child logger with full redaction. */
  readonly #lines: Logger;

  /** `lines`: the access logger (log.ts, accessLogger), made once for the whole gateway. */
  constructor(lines: Logger) {
    super();
    this.#lines = lines;
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) request.log.error({ req: request, res: reply, err: error, responseTime: logMs(reply.elapsedTime) }, 'request errored');
    // The request's own level decides (health probes log at warn, so write none).
    else if ((request.log as unknown as Logger).isLevelEnabled('info')) {
      this.#lines.info({ reqId: request.id, req: request, res: { statusCode: reply.statusCode }, responseTime: logMs(reply.elapsedTime) }, 'request');
    }
  }
}
