/**
 * A candidate spoken to over REST, as any client of the v2 API would: the
 * method's google.api.http rule gives the verb and path (its variables filled
 * from the request), the body field, and, for the rest of the message, the
 * query string (nested fields dotted, repeated ones repeated).
 */
import type { DescMethod } from '@bufbuild/protobuf';
import { Pool } from 'undici';
import { jsonPath } from '../contract/bindings.ts';
import { httpRule, type HttpRuleView } from '../contract/registry.ts';
import { isObject, type Json } from '../vocabulary/json.ts';
import { comparisonRequestId, safeUrl, UNANSWERED, type Candidate } from './candidate.ts';
import { errorOutcome, type Outcome } from './outcome.ts';

/** How an HTTP call of one method is made from its request message. */
export interface HttpCall {
  readonly verb: string;
  /** Path and query string. */
  readonly path: string;
  readonly body: Json | undefined;
}

/** Each method's rule, decoded from its options once. */
const rules = new WeakMap<DescMethod, HttpRuleView | undefined>();

export function httpCall(method: DescMethod, request: Json): HttpCall {
  if (!rules.has(method)) rules.set(method, httpRule(method));
  const rule = rules.get(method);
  if (!rule) throw new Error(`${method.parent.typeName}.${method.name} has no google.api.http rule`);
  const rest: Json = structuredClone(request);
  const path = rule.pattern.replace(/\{([\w.]+)(?:=[^}]*)?\}/g, (_all, variable: string) => {
    const names = jsonPath(method.input, variable).split('.');
    const value = String(take(rest, names) ?? '');
    if (dotSegments(value)) throw new Error(`${variable} holds a '.' or '..' path segment`);
    return value.split('/').map(encodeURIComponent).join('/');
  });
  let body: Json | undefined;
  if (rule.body === '*') body = rest;
  else if (rule.body) {
    const name = jsonPath(method.input, rule.body);
    body = isObject(rest[name]) ? (rest[name] as Json) : {};
    delete rest[name];
  }
  const query = rule.body === '*' ? '' : new URLSearchParams(queryPairs(rest, '')).toString();
  return { verb: rule.verb.toUpperCase(), path: query ? `${path}?${query}` : path, body };
}

/**
 * Whether a request would put a `.` or `..` segment in the path of the
 * method's HTTP rule: sent on, it would climb out of the route the caller
 * asked for (`groups/..%2F..%2Finternal` became `groups/../../internal`).
 * Read through any number of percent-encodings, with `\\` as a separator
 * too, as some servers read it.
 */
export function climbsPath(method: DescMethod, request: Json): boolean {
  for (const names of pathVariables(method)) {
    let node: unknown = request;
    for (const name of names) node = isObject(node) ? node[name] : undefined;
    if (typeof node === 'string' && dotSegments(node)) return true;
  }
  return false;
}

/** Each variable of a method's path, as the JSON names that lead to it in the request; read from the rule once. */
const variables = new WeakMap<DescMethod, readonly string[][]>();

function pathVariables(method: DescMethod): readonly string[][] {
  let known = variables.get(method);
  if (!known) {
    if (!rules.has(method)) rules.set(method, httpRule(method));
    const pattern = rules.get(method)?.pattern ?? '';
    known = [...pattern.matchAll(/\{([\w.]+)(?:=[^}]*)?\}/g)].map(([, variable]) => jsonPath(method.input, variable!).split('.'));
    variables.set(method, known);
  }
  return known;
}

function dotSegments(value: string): boolean {
  let text = value;
  for (let i = 0; i < 4; i++) {
    if (text.split(/[/\\]/).some((segment) => segment === '.' || segment === '..')) return true;
    let decoded: string;
    try {
      decoded = decodeURIComponent(text);
    } catch {
      return true;
    }
    if (decoded === text) return false;
    text = decoded;
  }
  return true;
}

/** Reads and removes a nested value (a path variable is not sent twice). */
function take(json: Json, names: string[]): unknown {
  let node: Json = json;
  for (const name of names.slice(0, -1)) {
    if (!isObject(node[name])) return undefined;
    node = node[name] as Json;
  }
  const last = names.at(-1)!;
  const value = node[last];
  delete node[last];
  return value;
}

function queryPairs(json: Json, prefix: string): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(json)) {
    if (value === undefined || value === null) continue;
    if (isObject(value)) out.push(...queryPairs(value, `${prefix}${key}.`));
    else if (Array.isArray(value)) for (const item of value) out.push([prefix + key, String(item)]);
    else out.push([prefix + key, String(value)]);
  }
  return out;
}

export class RestCandidate implements Candidate {
  readonly url: string;
  /** The target's path prefix, if it is served below one. */
  readonly #base: string;
  // A pool, the part of undici the bundle keeps (scripts/undici-slim.cjs).
  readonly #pool: Pool;

  constructor(url: string) {
    const parsed = new URL(url);
    this.#base = parsed.pathname.replace(/\/$/, '');
    this.#pool = new Pool(parsed.origin, { connections: 32, keepAliveTimeout: 10_000 });
    this.url = safeUrl(url);
  }

  async ask(method: DescMethod, request: Json, authorization: string, signal: AbortSignal): Promise<Outcome> {
    let call: HttpCall;
    try {
      call = httpCall(method, request);
    } catch (error) {
      return { kind: 'unanswered', why: (error as Error).message };
    }
    try {
      const reply = await this.#pool.request({
        path: this.#base + call.path,
        method: call.verb as 'GET',
        headers: { authorization, 'x-request-id': comparisonRequestId(), ...(call.body ? { 'content-type': 'application/json' } : {}) },
        body: call.body ? JSON.stringify(call.body) : undefined,
        signal,
      });
      const text = await reply.body.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        return { kind: 'unanswered', why: `HTTP ${reply.statusCode} with a body that is not JSON` };
      }
      if (reply.statusCode >= 200 && reply.statusCode < 300) return { kind: 'answer', message: isObject(body) ? body : {} };
      const code = isObject(body) && typeof body.code === 'number' ? body.code : undefined;
      if (code === undefined) return { kind: 'unanswered', why: `HTTP ${reply.statusCode} without an AIP-193 body` };
      if (UNANSWERED.has(code)) return { kind: 'unanswered', why: `HTTP ${reply.statusCode}` };
      return errorOutcome(code, isObject(body) && Array.isArray(body.details) ? body.details : []);
    } catch (error) {
      return { kind: 'unanswered', why: signal.aborted ? 'the comparison\'s deadline passed' : (error as Error).message };
    }
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
}
