/**
 * The admin listener (`--admin-port`): the probes and `/metrics` on a port of
 * their own, so neither they nor the API compete with the other for a port or
 * a policy. A transport like the API's: observability supplies the metrics.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { GatewayMetrics } from '../../observability/metrics.ts';
import { installErrorHandling } from './errors.ts';
import { registerHealth, type ReadinessCheck } from './health.ts';
import { metricsRoute } from './http-metrics.ts';

export function adminServer(options: { metrics: GatewayMetrics; ready: ReadinessCheck; backend: string; log: FastifyBaseLogger }): FastifyInstance {
  const admin = Fastify({ loggerInstance: options.log.child({ listener: 'admin' }), logController: new LogController({ disableRequestLogging: true }) });
  installErrorHandling(admin);
  registerHealth(admin, options.ready, options.backend);
  metricsRoute(admin, options.metrics);
  return admin;
}
