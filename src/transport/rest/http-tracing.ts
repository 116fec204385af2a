/**
 * Where HTTP meets tracing: a server span for every request Fastify answers
 * (REST, the v1 pass-through, the API document), named by its route template
 * once routed (`GET /iam/v2beta1/groups/{uid=**}`, never a uid). Probes and
 * the metrics scrape are not traced. gRPC calls get theirs in the request gate.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { httpServerErrorType, type TraceSpan, type Tracing } from '../../observability/tracing.ts';
import { isOperational } from './health.ts';
import { routeLabel } from './http-metrics.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span, or the caller's trace context to hand on (tracing off); undefined when neither. */
    traceSpan?: TraceSpan | undefined;
  }
}

export function traceHttp(app: FastifyInstance, tracing: Tracing): void {
  app.decorateRequest('traceSpan', undefined);
  // Off: no hook at all. The v2 routes hand a caller's context on by themselves; the pass-through forwards it as any header.
  if (!tracing.enabled) return;
  app.addHook('onRequest', async (request) => {
    if (isOperational(request)) return;
    request.traceSpan = tracing.server(request.method, (name) => request.headers[name], () => ({
      'http.request.method': request.method,
      'url.scheme': request.protocol,
      'url.path': request.url.split('?', 1)[0],
      'server.address': request.hostname,
      'server.port': request.port ?? undefined,
      'network.protocol.version': request.raw.httpVersion,
    }));
  });
  app.addHook('onResponse', async (request, reply) => finish(request, reply.statusCode));
  // A caller that leaves before its answer ends the span too, with no status.
  app.addHook('onRequestAbort', async (request) => finish(request, undefined));
}

function finish(request: FastifyRequest, status: number | undefined): void {
  const span = request.traceSpan;
  if (!span?.recording) return;
  const route = routeLabel(request);
  if (route !== 'unmatched') {
    span.rename(`${request.method} ${route}`);
    span.set({ 'http.route': route });
  }
  if (status === undefined) return span.end();
  span.set({ 'http.response.status_code': status });
  span.end(httpServerErrorType(status));
}
