/** `GET /_gateway/compare/report` (JSON for a rollout tool) and `GET /_gateway/compare` (the same, for a person). */
import type { FastifyInstance } from 'fastify';
import { comparePage } from './page.ts';
import type { Shadowing } from './shadowing.ts';

export const REPORT_PATH = '/_gateway/compare/report';
export const PAGE_PATH = '/_gateway/compare';

export function compareRoutes(app: FastifyInstance, shadowing: Shadowing): void {
  // Counts, field paths and verdicts are anyone's who reaches the port; samples (callers' data) only a bearer of the samples secret's.
  app.get(REPORT_PATH, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return shadowing.report(shadowing.maySeeSamples(request.headers.authorization));
  });
  app.get(PAGE_PATH, async (_request, reply) => {
    reply.header('cache-control', 'no-store').type('text/html; charset=utf-8');
    return comparePage();
  });
}
