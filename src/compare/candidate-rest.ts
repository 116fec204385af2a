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
import { follower } from './deadline-listeners.ts';
import { errorOutcome, SAME_AS_PRIMARY, type Outcome } from './outcome.ts';
import { exchange } from '../v1/exchange.ts';
import { parseJsonBytes } from '../v1/json-body.ts';

/** How an HTTP call of one method is made from its request message. */
export interface HttpCall {
  readonly verb: string;
  /** Path and query string. */
  readonly path: string;
  readonly body: Json | undefined;
}

/** A method's rule read once into what each call needs: the path's literal text and variables, the body field. */
interface CallPlan {
  readonly verb: string;
  /** The path pattern's pieces in order: literal text, or a variable (its proto name, the JSON names that lead to it). */
  readonly parts: ReadonlyArray<string | { readonly variable: string; readonly names: readonly string[] }>;
  /** Each variable's JSON names, in the path's order. */
  readonly variables: readonly (readonly string[])[];
  /** `*`: the whole request is the body; a JSON name: that field is; undefined: no body. */
  readonly body: string | undefined;
}

const VARIABLE = /\{([\w.]+)(?:=[^}]*)?\}/g;
/** Text encodeURIComponent leaves as it is, segment by segment (a UIDP is hex and `/`). */
const UNRESERVED = /^[\w\-~/]*$/;

/** Each method's rule, decoded from its options once; undefined when it has none. */
const plans = new WeakMap<DescMethod, CallPlan | null>();

function planOf(method: DescMethod): CallPlan | undefined {
  let plan = plans.get(method);
  if (plan === undefined) {
    const rule = httpRule(method);
    plan = rule ? readPlan(method, rule) : null;
    plans.set(method, plan);
  }
  return plan ?? undefined;
}

function readPlan(method: DescMethod, rule: HttpRuleView): CallPlan {
  const parts: Array<string | { variable: string; names: string[] }> = [];
  let at = 0;
  for (const match of rule.pattern.matchAll(VARIABLE)) {
    if (match.index > at) parts.push(rule.pattern.slice(at, match.index));
    parts.push({ variable: match[1]!, names: jsonPath(method.input, match[1]!).split('.') });
    at = match.index + match[0].length;
  }
  if (at < rule.pattern.length) parts.push(rule.pattern.slice(at));
  const body = rule.body === '*' ? '*' : rule.body ? jsonPath(method.input, rule.body) : undefined;
  return { verb: rule.verb.toUpperCase(), parts, variables: parts.flatMap((part) => (typeof part === 'string' ? [] : [part.names])), body };
}

export function httpCall(method: DescMethod, request: Json): HttpCall {
  const plan = planOf(method);
  if (!plan) throw new Error(`${method.parent.typeName}.${method.name} has no google.api.http rule`);
  // What the path does not carry; the objects on a variable's way are copied before it is taken out of them.
  const rest: Json = { ...request };
  let path = '';
  for (const part of plan.parts) {
    if (typeof part === 'string') {
      path += part;
      continue;
    }
    const value = String(take(rest, part.names) ?? '');
    if (dotSegments(value)) throw new Error(`${part.variable} holds a '.' or '..' path segment`);
    path += UNRESERVED.test(value) ? value : value.split('/').map(encodeURIComponent).join('/');
  }
  let body: Json | undefined;
  if (plan.body === '*') body = rest;
  else if (plan.body !== undefined) {
    body = isObject(rest[plan.body]) ? (rest[plan.body] as Json) : {};
    rest[plan.body] = undefined;
  }
  const pairs = plan.body === '*' ? [] : queryPairs(rest, '');
  return { verb: plan.verb, path: pairs.length > 0 ? `${path}?${new URLSearchParams(pairs).toString()}` : path, body };
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

/** Each variable of a method's path, as the JSON names that lead to it in the request. */
function pathVariables(method: DescMethod): readonly (readonly string[])[] {
  return planOf(method)?.variables ?? [];
}

function dotSegments(value: string): boolean {
  // No `.` and no `%` (nothing that decodes to one): no segment can be `.` or `..`, however many times it is decoded.
  if (!value.includes('.') && !value.includes('%')) return false;
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

/**
 * Reads and takes out a nested value (a path variable is not sent twice), copying each object on its way
 * first: the request is the caller's. Taken out as `undefined`, which neither the query nor a JSON body
 * sends, rather than deleted: a deleted key turns V8's object into a slower kind for every later read.
 */
function take(json: Json, names: readonly string[]): unknown {
  let node: Json = json;
  for (let i = 0; i < names.length - 1; i++) {
    const next = node[names[i]!];
    if (!isObject(next)) return undefined;
    node = node[names[i]!] = { ...(next as Json) };
  }
  const last = names.at(-1)!;
  const value = node[last];
  node[last] = undefined;
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

/**
 * The largest candidate answer read: past it the candidate counts as not having answered. Far above any
 * answer of the contract; it keeps one wrong answer from filling the primary's memory.
 */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export class RestCandidate implements Candidate {
  readonly url: string;
  /** The target's path prefix, if it is served below one. */
  readonly #base: string;
  // A pool, the part of undici the bundle keeps (scripts/undici-slim.cjs).
  readonly #pool: Pool;

  constructor(url: string) {
    const parsed = new URL(url);
    this.#base = parsed.pathname.replace(/\/$/, '');
    // No headers or body timeout of undici's own: the comparison's deadline (the signal each call is given) ends
    // every call sooner, and undici would arm and clear a timer of its own on each call for nothing.
    this.#pool = new Pool(parsed.origin, { connections: 32, keepAliveTimeout: 10_000, headersTimeout: 0, bodyTimeout: 0 });
    this.url = safeUrl(url);
  }

  async ask(method: DescMethod, request: Json, authorization: string, signal: AbortSignal, primaryBytes?: Uint8Array): Promise<Outcome> {
    let call: HttpCall;
    try {
      call = httpCall(method, request);
    } catch (error) {
      return { kind: 'unanswered', why: (error as Error).message };
    }
    try {
      // undici's dispatch (v1/exchange.ts), as the gateway calls v1: the answer gathered as bytes, with no
      // Readable stream and no listener on undici's side per call. The comparison's signal is its deadline,
      // followed through one listener for all the calls it is given to (deadline-listeners.ts).
      const reply = await exchange(this.#pool, {
        path: this.#base + call.path,
        method: call.verb as 'GET',
        headers: call.body ? { authorization, 'x-request-id': comparisonRequestId(), 'content-type': 'application/json' } : { authorization, 'x-request-id': comparisonRequestId() },
        ...(call.body ? { body: JSON.stringify(call.body) } : {}),
      }, { maxBytes: MAX_ANSWER_BYTES, timeoutMs: Number.POSITIVE_INFINITY }, { signal: follower(signal), likely: primaryBytes });
      if (!reply.body) return { kind: 'unanswered', why: `an answer larger than ${MAX_ANSWER_BYTES} bytes` };
      // The primary's very bytes (gathered against them, answer-bytes.ts): the same answer, with nothing to parse.
      if (primaryBytes && reply.statusCode >= 200 && reply.statusCode < 300 && reply.body.equals(primaryBytes)) return SAME_AS_PRIMARY;
      let body: unknown;
      try {
        body = reply.body.length > 0 ? parseJsonBytes(reply.body.bytes()) : {};
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
