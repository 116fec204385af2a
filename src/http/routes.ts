/**
 * The v2 routes, generated from the mappings: for each resource and API
 * version, List and Create on the collection, Get/Update/Delete/Create-under
 * on `<collection>/<uidp>` (the wildcard keeps the UIDP's slashes, as
 * `{uid=**}` does). A Fastify plugin, so the bearer check applies to these
 * routes only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidField, notFound } from '../aip/errors.ts';
import type { RawQuery } from '../aip/list-request.ts';
import { singleParam } from '../aip/list-request.ts';
import type { ResourceMapping } from '../engine/mapping.ts';
import { finish, requestContext, type RequestContext } from '../operation/context.ts';
import type { OperationRunner } from '../operation/execute.ts';
import type { Operation } from '../operation/operation.ts';
import { isObject, type Json } from '../engine/shape.ts';
import { requireBearer } from './auth.ts';

export interface RouteOptions {
  mappings: readonly ResourceMapping[];
  runner: OperationRunner;
  /** Time one request may take in all. */
  budgetMs: number;
  /** API version path segments served by the same table, e.g. `v2beta1` and the GA `v2`. */
  versions: readonly string[];
  /** Adds `x-v2gw-v1-calls` to responses. */
  debugHeaders: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    v2gw: RequestContext;
  }
}

function wildcard(request: FastifyRequest): string {
  const rest = (request.params as { '*'?: string })['*'] ?? '';
  // `:verb` custom methods are routes of their own; one that reached here is not served.
  if (rest.includes(':')) throw notFound('route', `${request.method} ${request.url.split('?')[0]}`);
  return rest.replace(/\/+$/, '');
}

function body(request: FastifyRequest): Json {
  if (request.body === undefined || request.body === null || request.body === '') return {};
  if (!isObject(request.body)) throw invalidField('body', 'must be a JSON object');
  return request.body;
}

export async function v2Routes(app: FastifyInstance, options: RouteOptions): Promise<void> {
  const { runner, budgetMs } = options;

  app.decorateRequest('v2gw', null as unknown as RequestContext);
  app.addHook('onRequest', async (request, reply) => {
    const authorization = requireBearer(request);
    // A response closed before it finished means the caller went away: cancel what the request still has under way.
    const caller = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) caller.abort();
    });
    request.v2gw = requestContext({ authorization, requestId: String(request.id), budgetMs, callerSignal: caller.signal });
  });
  app.addHook('onResponse', async (request) => {
    if (request.v2gw) finish(request.v2gw);
  });
  const run = (request: FastifyRequest, op: Operation) => runner.execute(op, request.v2gw);
  if (options.debugHeaders) {
    app.addHook('onSend', async (request, reply: FastifyReply) => {
      if (request.v2gw) reply.header('x-v2gw-v1-calls', String(request.v2gw.counter.v1Calls));
    });
  }

  for (const mapping of options.mappings) {
    const ops = new Set(mapping.operations);
    for (const version of options.versions) {
      const base = `/${mapping.service}/${version}/${mapping.collection}`;
      if (ops.has('list')) {
        app.get(base, (req) => run(req, { kind: 'list', mapping, query: req.query as RawQuery }));
      }
      if (ops.has('get')) {
        app.get(`${base}/*`, (req) => run(req, { kind: 'get', mapping, uid: wildcard(req) }));
      }
      if (ops.has('create')) {
        app.post(base, (req) => run(req, { kind: 'create', mapping, parent: '', body: body(req) }));
        app.post(`${base}/*`, (req) => run(req, { kind: 'create', mapping, parent: wildcard(req), body: body(req) }));
      }
      if (ops.has('update')) {
        app.patch(`${base}/*`, (req) => {
          const mask = singleParam(req.query as RawQuery, ['updateMask', 'update_mask']);
          return run(req, { kind: 'update', mapping, uid: wildcard(req), body: body(req), mask });
        });
      }
      if (ops.has('delete')) {
        app.delete(`${base}/*`, (req) => run(req, { kind: 'delete', mapping, uid: wildcard(req) }));
      }
      // `::` is Fastify's literal colon: `roleBindings:batchCreate` is a route of its own, never a uid.
      const { batchCreate, lookup } = mapping.methods ?? {};
      if (batchCreate) {
        app.post(`${base}::${batchCreate.verb}`, (req) => run(req, { kind: 'batchCreate', mapping, body: body(req) }));
      }
      if (lookup) {
        app.get(`${base}::${lookup.verb}`, (req) => run(req, { kind: 'lookup', mapping, query: req.query as RawQuery }));
      }
    }
  }
}
