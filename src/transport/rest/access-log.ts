/**
 * One access line per HTTP request, written when the answer is complete:
 * what came in (method, URL, allowlisted headers, credentials censored) and
 * how it ended (status, time). Fastify's default is two lines per request
 * (incoming, completed), twice the bytes and the logging CPU on the hot path.
 * Routes that log at `warn` (health probes) write none.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) request.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request');
  }
}
