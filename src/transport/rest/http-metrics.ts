/**
 * Where HTTP meets the metrics: the route label of each request, its RED
 * observation, and the `/metrics` endpoint (on the API port, and on the admin
 * listener when there is one). The metrics themselves are observability's;
 * the hooks that feed them are the REST transport's.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GatewayMetrics } from '../../observability/metrics.ts';
import { Code } from '../../rpc-status.ts';
import { OPERATIONAL } from './health.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The contract's path template that matched (`/iam/v2beta1/groups/{uid=**}`), set by the v2 routes. */
    routeTemplate?: string;
    /** Ends this request's count among the active ones. */
    endActive?: () => void;
  }
}

/** A bounded route label: the contract's template, else Fastify's route (`/iam/v1/*`, `/healthz`), else `unmatched`. */
export function routeLabel(request: FastifyRequest): string {
  return request.routeTemplate ?? request.routeOptions.url ?? 'unmatched';
}

/**
 * Observes every HTTP request Fastify answers (gRPC calls are counted by the gRPC request gate).
 * `admit`: the refusal of a request as it arrives (load shedding), asked in the same hook, so a
 * request runs one onRequest hook fewer; undefined admits it.
 */
export function observeHttp(app: FastifyInstance, metrics: GatewayMetrics, admit?: (request: FastifyRequest) => Error | undefined): void {
  app.decorateRequest('routeTemplate', undefined);
  app.decorateRequest('endActive', undefined);
  // Callback hooks, not async ones: no promise per hook on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    request.endActive = metrics.httpStarted();
    done(admit?.(request));
  });
  // A caller that leaves before its answer ends the request too.
  app.addHook('onRequestAbort', (request, done) => {
    request.endActive?.();
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    request.endActive?.();
    metrics.httpServer(request.method, routeLabel(request), reply.statusCode, reply.elapsedTime / 1000);
    if (request.routeTemplate) {
      if (reply.statusCode === 429) metrics.refusedIfLimited(Code.RESOURCE_EXHAUSTED);
      else if (reply.statusCode === 503) metrics.refusedIfLimited(Code.UNAVAILABLE);
    }
    done();
  });
}

export function metricsRoute(app: FastifyInstance, metrics: GatewayMetrics): void {
  // Scraped every few seconds: logged at warn only, like the probes.
  app.get('/metrics', OPERATIONAL, async (_request, reply) => {
    const { contentType, body } = await metrics.exposition();
    return reply.type(contentType).send(body);
  });
}
