/**
 * The REST transport: routes from the contract's `google.api.http` rules,
 * each request turned into an operation (request.ts) and run by the one
 * operation runner (behind the policy step, which judges the bearer token).
 * A Fastify plugin, so the request context applies to the v2 routes only. Matching is the contract's own
 * (path-template.ts): Fastify hands every request under a service's version
 * prefix to this plugin.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound, unimplemented } from '../../aip/errors.ts';
import type { RawQuery } from '../../aip/list-request.ts';
import type { DescMethod } from '@bufbuild/protobuf';
import type { Binding } from '../../contract/bindings.ts';
import { httpRule } from '../../contract/registry.ts';
import { callerGone, finish, requestContext, sentAs, type RequestContext } from '../../request/context.ts';
import type { Runner } from '../../port/runner.ts';
import { callerContext } from '../../observability/tracing.ts';
import { byRank, compileTemplate, withoutTrailingSlashes, type PathTemplate } from './path-template.ts';
import { restOperation } from './request.ts';

export interface RouteOptions {
  bindings: readonly Binding[];
  /** RPCs of the contract that are not served: their routes answer UNIMPLEMENTED. */
  unserved: readonly DescMethod[];
  /** Why, by `package.Service.Method`. */
  unservedReasons?: Readonly<Record<string, string>>;
  /** The policy step in front of the operation runner (policy/guard.ts). */
  runner: Runner;
  /** Time one request may take in all. */
  budgetMs: number;
  /** API version path segments served by the same table, e.g. `v2beta1` and the GA `v2`. */
  versions: readonly string[];
  /** Adds `x-v2gw-v1-calls` to responses. */
  debugHeaders: boolean;
  /**
   * Keep each answer's JSON text on its request's context (RequestContext.sentText): a comparing gateway
   * hands that text to its comparison (compare/tap.ts).
   */
  keepSentText?: boolean | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    v2gw: RequestContext;
  }
}

export interface Route {
  template: PathTemplate;
  /** Absent for an RPC the gateway does not serve. */
  binding: Binding | undefined;
  method: DescMethod;
}

/** Routes by HTTP method, most specific first: every RPC of the contract, served or not. */
export function routeTable(bindings: readonly Binding[], unserved: readonly DescMethod[], versions: readonly string[]): Map<string, Route[]> {
  const table = new Map<string, Route[]>();
  const add = (method: DescMethod, binding: Binding | undefined, rules: readonly { verb: string; pattern: string }[]) => {
    for (const rule of rules) {
      const verb = rule.verb.toUpperCase();
      const routes = table.get(verb) ?? [];
      routes.push({ template: compileTemplate(rule.pattern, versions), binding, method });
      table.set(verb, routes);
    }
  };
  for (const binding of bindings) add(binding.method, binding, binding.rules);
  for (const method of unserved) {
    const rule = httpRule(method);
    if (rule) add(method, undefined, [rule, ...rule.additional]);
  }
  for (const routes of table.values()) routes.sort((a, b) => byRank(a.template, b.template));
  return table;
}

/**
 * The segment after the version that a template requires (`groups` for
 * `/iam/v2beta1/groups/{uid=**}` and `/iam/v2beta1/groups:lookupGroup`), `''` for one that ends
 * before it, or undefined when a variable may stand there or before it.
 */
function collectionOf(template: PathTemplate): string | undefined {
  const segments = template.source.split('/');
  if (segments.slice(0, 4).some((segment) => segment.startsWith('{'))) return undefined;
  return collectionSegment(template.source);
}

/** A path's segment after the version, without a verb: `groups` for `/iam/v2/groups/<uid>` and `/iam/v2/groups:lookupGroup`. */
function collectionSegment(path: string): string {
  // The fourth `/`-separated piece, found by position: no array of pieces made on every request.
  let start = 0;
  for (let slash = 0; slash < 3; slash++) {
    const at = path.indexOf('/', start);
    if (at < 0) return '';
    start = at + 1;
  }
  const slash = path.indexOf('/', start);
  const colon = path.indexOf(':', start);
  const end = colon >= 0 && (slash < 0 || colon < slash) ? colon : slash < 0 ? path.length : slash;
  return path.slice(start, end);
}

/**
 * The route table indexed by method and collection segment: a request tries only the
 * templates that can match its collection (each list still in rank order, with the
 * templates that have a variable there), not every template of its method in turn.
 */
export function routeIndex(table: Map<string, Route[]>): (method: string, path: string) => readonly Route[] {
  const index = new Map<string, { byCollection: Map<string, Route[]>; anyCollection: Route[] }>();
  for (const [verb, routes] of table) {
    const keyed = routes.map((route) => ({ route, collection: collectionOf(route.template) }));
    const byCollection = new Map<string, Route[]>();
    for (const { collection } of keyed) {
      if (collection === undefined || byCollection.has(collection)) continue;
      byCollection.set(collection, keyed.filter((k) => k.collection === undefined || k.collection === collection).map((k) => k.route));
    }
    index.set(verb, { byCollection, anyCollection: keyed.filter((k) => k.collection === undefined).map((k) => k.route) });
  }
  return (method, path) => {
    const entry = index.get(method);
    if (!entry) return [];
    return entry.byCollection.get(collectionSegment(path)) ?? entry.anyCollection;
  };
}

/** `/iam/v2beta1`, `/iam/v2`, …: the prefixes the contract's routes live under, in every served version. */
function prefixes(table: Map<string, Route[]>, versions: readonly string[]): string[] {
  const services = new Set([...table.values()].flat().map((route) => route.template.source.split('/')[1]!));
  return [...services].flatMap((service) => versions.map((version) => `/${service}/${version}`));
}

/** The content type Fastify gives a JSON answer it serializes itself. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A reply's serializer while the answers' text is kept: Fastify's JSON, kept on the request's context
 * when it is the answer (an error's body is not). Fastify calls a reply's own serializer as the reply's
 * method, so one function serves every request, and the text needs no table keyed by its document (a
 * WeakMap's entries are ephemerons, which every scavenge must walk). Fastify sets the JSON content type
 * only for its own serializer: it is set here as Fastify sets it.
 */
function keepingSentText(this: FastifyReply, payload: unknown): string {
  const text = JSON.stringify(payload);
  this.type(JSON_TYPE);
  if (this.raw.statusCode < 300) sentAs(this.request.v2gw, text);
  return text;
}

export async function v2Routes(app: FastifyInstance, options: RouteOptions): Promise<void> {
  const { runner, budgetMs } = options;
  const table = routeTable(options.bindings, options.unserved, options.versions);
  const candidates = routeIndex(table);

  app.decorateRequest('v2gw', null as unknown as RequestContext);
  const keepSentText = options.keepSentText === true;
  // Callback hooks (a throw is the request's error): no promise per hook on every request.
  app.addHook('onRequest', (request, reply, done) => {
    const authorization = request.headers.authorization ?? '';
    const ctx = requestContext({ authorization, requestId: String(request.id), budgetMs, protocol: 'rest', trace: request.traceSpan ?? callerContext(request.headers.traceparent, request.headers.tracestate) });
    // A response closed before it finished means the caller went away: cancel what the request still has under way.
    // Closed either way, the request is over: its deadline's timer goes (here, not in an onResponse hook: one hook fewer a request).
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) callerGone(ctx);
      finish(ctx);
    });
    request.v2gw = ctx;
    done();
  });
  if (options.debugHeaders) {
    app.addHook('onSend', (request, reply: FastifyReply, _payload, done) => {
      if (request.v2gw) reply.header('x-v2gw-v1-calls', String(request.v2gw.counter.v1Calls));
      done();
    });
  }

  const handle = (request: FastifyRequest, reply: FastifyReply) => {
    const url = request.url;
    const query = url.indexOf('?');
    const path = withoutTrailingSlashes(query < 0 ? url : url.slice(0, query));
    for (const route of candidates(request.method === 'HEAD' ? 'GET' : request.method, path)) {
      const variables = route.template.match(path);
      if (!variables) continue;
      request.routeTemplate = route.template.source;
      if (!route.binding) {
        const rpc = `${route.method.parent.typeName}.${route.method.name}`;
        throw unimplemented(rpc, options.unservedReasons?.[rpc]);
      }
      const op = restOperation(route.binding, { variables, query: request.query as RawQuery, body: request.body });
      if (keepSentText) reply.serializer(keepingSentText);
      return runner.execute(op, request.v2gw);
    }
    throw notFound('route', `${request.method} ${path}`);
  };
  for (const prefix of prefixes(table, options.versions)) {
    app.route({ method: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'], url: prefix, handler: handle });
    app.route({ method: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'], url: `${prefix}/*`, handler: handle });
  }
}
