/**
 * Every operation served in translate mode, against a v1 that misbehaves in
 * every way an SRE has seen: down, slow, failing (5xx, 429 with Retry-After),
 * lying (a 200 that is not JSON, or JSON of the wrong shape, or far too much
 * of it) and resetting connections. The operations come from the served
 * route table (bindContract), so a method added to a mapping is covered here
 * without touching this file.
 *
 * A proxy sits between the gateway and the v1 emulator. Healthy, it forwards;
 * so each operation first gets a request that the real emulator answers (the
 * fuzzer's well-formed messages, over the fuzzer's world of real resources).
 * Then, fault by fault, the proxy answers every v1 call itself, and every
 * operation is called at once, over gRPC and over REST (the same message
 * mapped by its HTTP rule, as grpc-gateway maps it). Each answer must carry the code the
 * fault calls for, with the gateway's google.rpc.Status (ErrorInfo first,
 * with the request id) and the retry advice v1 gave, within the request's
 * deadline; no answer may read as the gateway's own bug (an "unhandled
 * error" in the log); a body past --v1-max-body-bytes must be cut off, not
 * read; and once it is all over, the heap must be back near where it began.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fromBinary, fromJson, toJson, type DescField, type DescMessage, type DescMethod, type JsonValue } from '@bufbuild/protobuf';
import { Code as ConnectCode, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindContract, forMode, type Binding } from '../../../src/contract/bindings.ts';
import type { Json } from '../../../src/vocabulary/json.ts';
import { httpStatusFor, isCode } from '../../../src/rpc-status.ts';
import { asQuery } from '../../../src/aip/list-request.ts';
import { apiServices, contract } from '../../../src/contract/registry.ts';
import { MAPPINGS } from '../../../mappings/index.ts';
import { grpcMessage } from '../../fuzz/generators.ts';
import { Rand, streamSeed } from '../../fuzz/random.ts';
import { buildWorld } from '../../fuzz/world.ts';
import { collectedHeapMb } from '../../support/memory.ts';
import { startMode, type ModeStack } from '../../support/modes.ts';
import { TOKEN } from '../../support/stack.ts';

const MiB = 1024 * 1024;
/** Long enough for 84 calls at once on two busy cores; the silent faults take this long each. */
const V1_TIMEOUT_MS = 3_000;
const REQUEST_TIMEOUT_MS = 5_000;
/** Small, so 84 calls each reading up to it at once stay well inside their deadline on a busy machine. */
const V1_MAX_BODY = 256 * 1024;
/** What a busy two-core machine may add to a deadline before the answer is on the wire. */
const LATENESS_MS = 1_500;
const HEAP_SLACK_MB = 32;
/** Attempts at a request the healthy emulator answers, per operation. */
const PROBES = 16;

/** What translate mode serves over v1: not what its store keeps because v1 has no equivalent (overlays, identity metadata). */
const BINDINGS = forMode(bindContract(apiServices(), MAPPINGS), 'translate').served
  .filter((b) => b.mapping.keptInStore === undefined && !(b.custom && !b.custom.translate));
const OPERATIONS: DescMethod[] = BINDINGS.map((b) => b.method);
const KIND = new Map(BINDINGS.map((b) => [b.method, b.kind]));
/**
 * A delete reads nothing of v1's answer, and a custom method whose response has no sub-message
 * (`{}`, `{eligible}`, `{architectures: [string]}`) can be read from any JSON object (protojson discards unknown keys; an absent
 * scalar is its zero): on a lying 200 of the right kind these may succeed. Everything else must refuse it.
 */
const readsNoMessage = (method: DescMethod) =>
  KIND.get(method) === 'delete' || (KIND.get(method) === 'custom' && method.output.fields.every((f) => f.fieldKind === 'scalar' || f.fieldKind === 'enum' || (f.fieldKind === 'list' && f.listKind !== 'message')));
const BINDING = new Map(BINDINGS.map((b) => [b.method, b]));

// ---- the proxy ------------------------------------------------------------------------------

type FaultHandler = (req: http.IncomingMessage, res: http.ServerResponse, proxy: FaultyV1) => void;

/** Forwards to the emulator, or answers every call with the fault it is given. */
class FaultyV1 {
  readonly server = http.createServer((req, res) => {
    this.hits++;
    if (this.fault) this.fault(req, res, this);
    else this.#forward(req, res);
  });
  readonly #sockets = new Set<Socket>();
  target = '';
  fault: FaultHandler | undefined;
  hits = 0;
  /** Body bytes written by the faults that stream (huge answers), per request. */
  written: number[] = [];
  port = 0;

  async start(): Promise<string> {
    this.server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
    return `http://127.0.0.1:${this.port}`;
  }

  /** Stops listening and drops every connection: v1 is down (connection refused). */
  async stop(): Promise<void> {
    this.dropConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  dropConnections(): void {
    for (const socket of this.#sockets) socket.destroy();
  }

  #forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const upstream = http.request(new URL(req.url!, this.target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }
}

const json = (status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): FaultHandler => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body));
};

/** `total` bytes of a JSON list, generated as they are sent, respecting backpressure; what was written is recorded. */
const huge = (total: number, declareLength: boolean): FaultHandler => (_req, res, proxy) => {
  const filler = Buffer.alloc(64 * 1024, 0x20);
  res.writeHead(200, { 'content-type': 'application/json', ...(declareLength ? { 'content-length': String(total) } : {}) });
  res.write('{"items":[');
  let sent = 10;
  let stopped = false;
  res.once('close', () => {
    stopped = true;
    proxy.written.push(sent);
  });
  const pump = (): void => {
    while (!stopped && sent < total - 2) {
      const n = Math.min(filler.length, total - 2 - sent);
      sent += n;
      if (!res.write(filler.subarray(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    if (!stopped) res.end(']}');
  };
  pump();
};

// ---- the faults --------------------------------------------------------------------------------

interface Expectation {
  code: number;
  /** A Delete reads nothing of v1's answer but that it succeeded, so a lie inside it may be a success too. */
  deleteMaySucceed?: boolean;
  /** The message, exactly or by pattern. */
  message?: string | RegExp;
  /** RetryInfo's delay. */
  retryDelay?: string;
  quotaFailure?: boolean;
}

interface Fault {
  name: string;
  handle?: FaultHandler;
  /** v1 is not listening at all. */
  down?: boolean;
  expect: Expectation;
}

/** Far past the cap, so that what loopback buffers take after the gateway stops reading stays well under half of it. */
const HUGE = 32 * V1_MAX_BODY;

const FAULTS: Fault[] = [
  { name: 'v1 down (connection refused)', down: true, expect: { code: 14, message: 'Unavailable: the v1 backend cannot be reached', retryDelay: '1s' } },
  { name: 'v1 never answers', handle: () => {}, expect: { code: 4, message: /^Deadline exceeded: the (v1 backend did not answer within 3000 ms|request did not complete within its deadline of \d+ ms)$/ } },
  {
    name: 'v1 sends headers, then its body slower than the timeout',
    handle: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":[');
    },
    expect: { code: 4 },
  },
  { name: "v1's own 500", handle: json(500, { code: 13, message: 'v1 fell over', details: [] }), expect: { code: 13, message: 'v1 fell over' } },
  { name: 'a 502 with no body', handle: (_req, res) => res.writeHead(502).end(), expect: { code: 14, message: 'Unavailable: v1 answered HTTP 502' } },
  { name: '503 with Retry-After', handle: json(503, { code: 14, message: 'v1 is draining', details: [] }, { 'retry-after': '2' }), expect: { code: 14, message: 'v1 is draining', retryDelay: '2s' } },
  { name: '429 with Retry-After', handle: json(429, { code: 8, message: 'slow down', details: [] }, { 'retry-after': '3' }), expect: { code: 8, message: 'slow down', retryDelay: '3s', quotaFailure: true } },
  { name: 'a 200 that is not JSON', handle: json(200, '{"items": [{"id": '), expect: { code: 13, message: 'Internal error: the v1 backend answered 200 with a body that is not JSON' } },
  { name: 'a 200 of HTML', handle: (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>'), expect: { code: 13, message: /the v1 backend answered 200 with a body that is not JSON/ } },
  { name: 'a 200 that is a JSON string', handle: json(200, '"ok"'), expect: { code: 13, message: /the v1 backend answered 200 with a body the gateway cannot read/ } },
  { name: 'a 200 that is a JSON array', handle: json(200, [1, 2, 3]), expect: { code: 13, message: /the v1 backend answered 200 with a body the gateway cannot read/ } },
  // An object of the wrong shape: a list or a row without its id is refused.
  { name: 'a 200 whose list is not a list', handle: json(200, { items: 'none', id: 7, name: ['x'], nextPageToken: 5 }), expect: { code: 13, deleteMaySucceed: true, message: /the v1 backend answered 200 with a body the gateway cannot read/ } },
  { name: 'a 200 whose rows are not objects', handle: json(200, { items: [1, 'two', null] }), expect: { code: 13, deleteMaySucceed: true, message: /the v1 backend answered 200 with a body the gateway cannot read/ } },
  { name: `a 200 of ${HUGE / MiB} MiB, undeclared`, handle: huge(HUGE, false), expect: { code: 13, message: `Internal error: the v1 backend answered more than ${V1_MAX_BODY} bytes, the most the gateway reads (--v1-max-body-bytes)` } },
  { name: `a 200 of ${HUGE / MiB} MiB, declared`, handle: huge(HUGE, true), expect: { code: 13, message: new RegExp(`answered more than ${V1_MAX_BODY} bytes`) } },
  { name: 'a reset before any answer', handle: (req) => req.socket.resetAndDestroy(), expect: { code: 14, message: 'Unavailable: the v1 backend closed the connection before its answer was complete', retryDelay: '1s' } },
  {
    name: 'a reset in the middle of the body',
    handle: (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":[{"id":"');
      setTimeout(() => req.socket.resetAndDestroy(), 5);
    },
    expect: { code: 14, message: 'Unavailable: the v1 backend closed the connection before its answer was complete' },
  },
];

// ---- calls ------------------------------------------------------------------------------------

interface Answer {
  code: number;
  message: string;
  details: Record<string, any>[];
  requestId: string | null;
  elapsedMs: number;
}

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

interface RestRequest {
  method: string;
  path: string;
  body: string | undefined;
}

/** A request field path of the rule (`group.uid`, proto names) as the message's JSON path. */
function jsonPathOf(desc: DescMessage, protoPath: string): string[] {
  const out: string[] = [];
  let current: DescMessage | undefined = desc;
  for (const name of protoPath.split('.')) {
    const field: DescField | undefined = current?.fields.find((f) => f.name === name);
    out.push(field?.jsonName ?? name);
    current = field?.message;
  }
  return out;
}

/**
 * The REST request grpc-gateway maps a message to by the operation's HTTP rule: path variables from
 * their fields, the body from the rule's body field (or all of it), every other field as the query.
 */
function restFor(binding: Binding, message: JsonValue): RestRequest {
  const rule = binding.rules[0]!;
  const json = message as Record<string, any>;
  const used = new Set<string>();
  const path = rule.pattern.replace(/\{([^}=]+)(?:=[^}]*)?\}/g, (_m, field: string) => {
    const at = jsonPathOf(binding.method.input, field);
    used.add(at[0]!);
    return String(at.reduce<any>((v, k) => v?.[k], json) ?? '');
  });
  let body: string | undefined;
  let rest: Record<string, any> = Object.fromEntries(Object.entries(json).filter(([k]) => !used.has(k)));
  if (rule.body === '*') {
    body = JSON.stringify(rest);
    rest = {};
  } else if (rule.body) {
    const [key] = jsonPathOf(binding.method.input, rule.body);
    body = JSON.stringify(json[key!] ?? {});
    delete rest[key!];
  }
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(asQuery(rest as Json))) for (const v of [value ?? []].flat()) query.append(key, v);
  return { method: rule.verb.toUpperCase(), path: `${path}${query.size ? `?${query}` : ''}`, body };
}

async function callRest(url: string, request: RestRequest): Promise<Answer & { status: number; retryAfter: string | null }> {
  const started = performance.now();
  const response = await fetch(new URL(request.path, url), {
    method: request.method,
    headers: { authorization: TOKEN, ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: request.body,
  });
  const text = await response.text();
  const elapsedMs = performance.now() - started;
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = { message: `not JSON: ${text.slice(0, 200)}` };
  }
  const common = { status: response.status, retryAfter: response.headers.get('retry-after'), requestId: response.headers.get('x-request-id'), elapsedMs };
  if (response.ok) return { code: 0, message: '', details: [], ...common };
  return { code: typeof body.code === 'number' ? body.code : -1, message: String(body.message), details: Array.isArray(body.details) ? body.details : [], ...common };
}

async function call(client: Client<any>, method: DescMethod, message: JsonValue): Promise<Answer> {
  const started = performance.now();
  try {
    await (client as Record<string, Function>)[method.localName]!(fromJson(method.input, message, { registry: contract }), { headers: { authorization: TOKEN }, timeoutMs: 30_000 });
    return { code: 0, message: '', details: [], requestId: null, elapsedMs: performance.now() - started };
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    const details = error.details.map((d) => {
      const type = 'desc' in d ? d.desc.typeName : d.type;
      const desc = contract.getMessage(type);
      const fields = desc && !('desc' in d) ? toJson(desc, fromBinary(desc, d.value), { registry: contract }) as object : {};
      return { '@type': `type.googleapis.com/${type}`, ...fields };
    });
    return { code: error.code as number, message: error.rawMessage, details, requestId: error.metadata.get('x-request-id'), elapsedMs: performance.now() - started };
  }
}

/** What is wrong with an answer, in words; empty when it is what the fault calls for. */
function judge(method: DescMethod, answer: Answer, expected: Expectation): string[] {
  const problems: string[] = [];
  if (answer.code === 0 && expected.deleteMaySucceed && readsNoMessage(method)) return [];
  if (answer.code !== expected.code) problems.push(`code ${ConnectCode[answer.code]} (${answer.code}), expected ${expected.code}: ${answer.message}`);
  const { message } = expected;
  if (typeof message === 'string' && answer.message !== message) problems.push(`message ${JSON.stringify(answer.message)}`);
  if (message instanceof RegExp && !message.test(answer.message)) problems.push(`message ${JSON.stringify(answer.message)} does not match ${message}`);
  const info = answer.details[0];
  if (info?.['@type'] !== ERROR_INFO) problems.push(`details[0] is not ErrorInfo: ${JSON.stringify(answer.details)}`);
  else if (!answer.requestId || info.metadata?.requestId !== answer.requestId) problems.push(`ErrorInfo's requestId ${info.metadata?.requestId} is not the x-request-id ${answer.requestId}`);
  const byType = Object.fromEntries(answer.details.map((d) => [String(d['@type']).split('.').pop(), d]));
  if (expected.retryDelay && byType.RetryInfo?.retryDelay !== expected.retryDelay) problems.push(`RetryInfo ${JSON.stringify(byType.RetryInfo)}, expected a delay of ${expected.retryDelay}`);
  if (expected.quotaFailure && !byType.QuotaFailure) problems.push('no QuotaFailure');
  if (answer.elapsedMs > REQUEST_TIMEOUT_MS + LATENESS_MS) problems.push(`answered after ${Math.round(answer.elapsedMs)} ms, past the ${REQUEST_TIMEOUT_MS} ms deadline`);
  return problems;
}

/** The REST answer's own rules on top: the HTTP status its code pairs with, and retry advice as a header too. */
function judgeRest(method: DescMethod, answer: Answer & { status: number; retryAfter: string | null }, expected: Expectation): string[] {
  const problems = judge(method, answer, expected);
  if (answer.code === 0) return problems;
  if (!isCode(answer.code) || httpStatusFor(answer.code) !== answer.status) problems.push(`HTTP ${answer.status} for code ${answer.code}`);
  if (expected.retryDelay && `${answer.retryAfter}s` !== expected.retryDelay) problems.push(`Retry-After ${answer.retryAfter}, expected ${expected.retryDelay}`);
  return problems;
}

// ---- the suite -------------------------------------------------------------------------------------

describe('every served operation against a failing v1', () => {
  const proxy = new FaultyV1();
  let stack: ModeStack;
  const requests = new Map<DescMethod, JsonValue>();
  const clients = new Map<string, Client<any>>();
  let heapAtStart = 0;

  const clientFor = (method: DescMethod): Client<any> => {
    let client = clients.get(method.parent.typeName);
    if (!client) {
      client = createClient(method.parent, createGrpcTransport({ baseUrl: stack.url }));
      clients.set(method.parent.typeName, client);
    }
    return client;
  };
  const unhandled = () => stack.logs.filter((line) => /"level":(50|60)/.test(line));

  beforeAll(async () => {
    const proxyUrl = await proxy.start();
    stack = await startMode('translate', {
      v1Url: proxyUrl,
      flags: ['--v1-timeout-ms', String(V1_TIMEOUT_MS), '--request-timeout-ms', String(REQUEST_TIMEOUT_MS), '--v1-max-body-bytes', String(V1_MAX_BODY), '--hydration-cache-ms', '0'],
    });
    proxy.target = stack.emulatorUrl!;
    const world = await buildWorld(stack);

    // A request per operation that reaches v1 and that the emulator answers; deletes last, as they use up their resource.
    const order = [...OPERATIONS].sort((a, b) => Number(a.name.startsWith('Delete')) - Number(b.name.startsWith('Delete')));
    const missing: string[] = [];
    for (const method of order) {
      let reached: JsonValue | undefined;
      for (let attempt = 0; attempt < PROBES && !requests.has(method); attempt++) {
        const message = grpcMessage(method, new Rand(streamSeed(attempt, OPERATIONS.indexOf(method))), world, false);
        const hits = proxy.hits;
        const answer = await call(clientFor(method), method, message);
        if (proxy.hits === hits) continue;
        reached ??= message;
        if (answer.code === 0) requests.set(method, message);
      }
      if (!requests.has(method) && reached !== undefined) requests.set(method, reached);
      if (!requests.has(method)) missing.push(`${method.parent.typeName}/${method.name}`);
    }
    // A served method whose every generated request stops before v1 is not tested here: make it reachable (generators.ts baseMessage).
    expect(missing, 'operations with no request that reaches v1').toEqual([]);
    heapAtStart = collectedHeapMb();
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    await proxy.stop().catch(() => {});
  });

  it('covers every operation of the served route table', () => {
    expect(requests.size).toBe(OPERATIONS.length);
    expect(OPERATIONS.length).toBeGreaterThanOrEqual(42);
  });

  for (const fault of FAULTS) {
    it(`${fault.name}: every operation answers ${fault.expect.code} by the rules, within its deadline`, async () => {
      const logsBefore = unhandled().length;
      proxy.written = [];
      if (fault.down) await proxy.stop();
      else proxy.fault = fault.handle;
      const hitsBefore = proxy.hits;
      let problems: string[];
      try {
        const judged = await Promise.all([...requests].flatMap(([method, message]) => [
          call(clientFor(method), method, message).then((answer) => judge(method, answer, fault.expect).map((p) => `gRPC ${method.parent.name}/${method.name}: ${p}`)),
          callRest(stack.url, restFor(BINDING.get(method)!, message)).then((answer) => judgeRest(method, answer, fault.expect).map((p) => `REST ${method.parent.name}/${method.name}: ${p}`)),
        ]));
        problems = judged.flat();
      } finally {
        proxy.fault = undefined;
        proxy.dropConnections();
        if (fault.down) await proxy.start();
      }
      expect(problems).toEqual([]);
      // The faults were met, not skipped. Not every call need get there: against a silent v1 the gateway's 64 v1
      // connections are all held, and the calls queued behind them reach their deadline first.
      if (!fault.down) expect(proxy.hits - hitsBefore).toBeGreaterThanOrEqual(requests.size);
      // Far more than the cap was on offer; the gateway stopped reading once past it.
      for (const sent of proxy.written) expect(sent).toBeLessThan(HUGE / 2);
      expect(unhandled().slice(logsBefore)).toEqual([]);
    }, 60_000);
  }

  it('gives back its memory once v1 recovers, and answers again', async () => {
    for (const [method, message] of requests) {
      // Lists (the probes' deletes may have removed what a Get names).
      if (method.name.startsWith('List')) expect((await call(clientFor(method), method, message)).code, method.name).toBe(0);
    }
    const heap = collectedHeapMb();
    expect(heap - heapAtStart, `heap ${heapAtStart.toFixed(1)} → ${heap.toFixed(1)} MB`).toBeLessThan(HEAP_SLACK_MB);
  });
});
