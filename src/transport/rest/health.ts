/**
 * Probes for orchestrators: /healthz is liveness (the process answers);
 * /readyz is readiness (the backend answers too). Neither needs a token.
 */
import type { FastifyInstance } from 'fastify';
import { unavailable } from '../../aip/errors.ts';

export interface ReadinessCheck {
  (): Promise<boolean>;
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
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async () => {
    if (!(await ready())) throw unavailable(`${backend} is not reachable`);
    return { status: 'ready' };
  });
}
