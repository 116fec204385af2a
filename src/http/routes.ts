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
import type { Backend, RequestContext } from '../engine/backend.ts';
import type { ResourceMapping } from '../engine/mapping.ts';
import { isObject, type Json } from '../engine/shape.ts';
import { requireBearer } from './auth.ts';

export interface RouteOptions {
  mappings: readonly ResourceMapping[];
  backend: Backend;
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
  const { backend } = options;

  app.decorateRequest('v2gw', null as unknown as RequestContext);
  app.addHook('onRequest', async (request) => {
    request.v2gw = { authorization: requireBearer(request), counter: { v1Calls: 0 } };
  });
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
        app.get(base, (req) => backend.list(mapping, req.query as RawQuery, req.v2gw));
      }
      if (ops.has('get')) {
        app.get(`${base}/*`, (req) => backend.get(mapping, wildcard(req), req.v2gw));
      }
      if (ops.has('create')) {
        app.post(base, (req) => backend.create(mapping, '', body(req), req.v2gw));
        app.post(`${base}/*`, (req) => backend.create(mapping, wildcard(req), body(req), req.v2gw));
      }
      if (ops.has('update')) {
        app.patch(`${base}/*`, (req) => {
          const mask = singleParam(req.query as RawQuery, ['updateMask', 'update_mask']);
          return backend.update(mapping, wildcard(req), body(req), mask, req.v2gw);
        });
      }
      if (ops.has('delete')) {
        app.delete(`${base}/*`, (req) => backend.delete(mapping, wildcard(req), req.v2gw));
      }
      // `::` is Fastify's literal colon: `roleBindings:batchCreate` is a route of its own, never a uid.
      const { batchCreate, lookup } = mapping.methods ?? {};
      if (batchCreate) {
        app.post(`${base}::${batchCreate.verb}`, (req) => backend.batchCreate(mapping, body(req), req.v2gw));
      }
      if (lookup) {
        app.get(`${base}::${lookup.verb}`, (req) => backend.lookup(mapping, req.query as RawQuery, req.v2gw));
      }
    }
  }
}
