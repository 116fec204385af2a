/**
 * Probes for orchestrators: /healthz is liveness (the process answers);
 * /readyz is readiness (the backend answers too). Neither needs a token.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unavailable } from '../../aip/errors.ts';

export interface ReadinessCheck {
  (): Promise<boolean>;
}

/**
 * Probes and the metrics scrape: routes that log at `warn` only. They answer
 * whatever the load, and are neither shed nor traced (one every few seconds
 * per prober would drown the traces that matter).
 */
export const OPERATIONAL = { logLevel: 'warn' } as const;

export function isOperational(request: FastifyRequest): boolean {
  return request.routeOptions.logLevel === OPERATIONAL.logLevel;
}

/** Caches the backend probe briefly so a busy prober cannot turn into load on v1. */
export function cachedCheck(check: ReadinessCheck, ttlMs: number): ReadinessCheck {
  let last: { at: number; ok: Promise<boolean> } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at > ttlMs) last = { at: now, ok: check() };
    return last.ok;
  };
}

/** `backend` names what readiness depends on, for the 503's message (`the v1 backend`, `the store`). */
export function registerHealth(app: FastifyInstance, ready: ReadinessCheck, backend = 'the v1 backend'): void {
  app.get('/healthz', OPERATIONAL, async () => ({ status: 'ok' }));
  app.get('/readyz', OPERATIONAL, async () => {
    if (!(await ready())) throw unavailable(`${backend} is not reachable`);
    return { status: 'ready' };
  });
}
