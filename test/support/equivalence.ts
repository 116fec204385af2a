/**
 * The gRPC/REST equivalence suites (test/gateway/grpc/equivalence-*.test.ts): for
 * every RPC a mode serves, the answer over gRPC and the answer over REST to
 * the same operation are the same message, or the same error (code, message
 * and details). Both are read as protobuf (a REST body strictly, through the
 * contract's JSON mapping) and compared field by field.
 *
 * Each suite covers one area of services. It records every RPC it calls over
 * gRPC, and its last test fails when an RPC the gateway serves in that mode
 * (as the mappings bind the contract: `bindContract`, `forMode`) was never
 * called: a newly served RPC cannot go without a case. The areas together
 * must hold every service of the contract, each once, each with its file.
 */
import { existsSync } from 'node:fs';
import { create, equals, fromJson, toJson, type DescMessage, type DescMethod, type JsonValue, type Message } from '@bufbuild/protobuf';
import { AnySchema } from '@bufbuild/protobuf/wkt';
import { ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { beforeAll, expect, it } from 'vitest';
import { bindContract, forMode } from '../../src/contract/bindings.ts';
import { apiServices, contract } from '../../src/contract/registry.ts';
import type { Mode } from '../../src/vocabulary/custom-method.ts';
import { MAPPINGS } from '../../mappings/index.ts';
import { rpcOfRoute } from './contract.ts';
import { describeModes, type ModeName, type ModeStack } from './modes.ts';
import { TOKEN, type Client, type Reply } from './stack.ts';

/** The services each equivalence file covers, by the file's area name (`equivalence-<area>.test.ts`). */
export const AREAS: Readonly<Record<string, readonly string[]>> = {
  iam: ['GroupsService', 'IdentitiesService', 'RolesService', 'RoleBindingsService', 'GroupInvitesService', 'TermsService'],
  providers: ['IdentityProvidersService', 'ExternalGroupRoleMappingsService', 'AccountAssociationsService'],
  registry: ['ReposService', 'TagsService', 'ImagesService', 'OverlaysService', 'OverlayBindingsService'],
  vulnerabilities: ['AdvisoriesService', 'SecurityAdvisoryService'],
  events: ['SubscriptionsService'],
};

/** An RPC of the contract by `Service.Method` (service names are unique across the contract's packages). */
export function rpc(name: string): DescMethod {
  const [service, method] = name.split('.');
  const found = apiServices().filter((s) => s.name === service).flatMap((s) => s.methods.filter((m) => m.name === method));
  if (found.length !== 1) throw new Error(`${found.length} RPCs named ${name} in the contract`);
  return found[0]!;
}

const nameOf = (method: DescMethod): string => `${method.parent.name}.${method.name}`;
const asJson = (message: unknown): string => JSON.stringify(message, (_k, v) => (typeof v === 'bigint' ? String(v) : v));

/** `grpcAnswer` and `restBody` as one message of `schema`, page tokens compared for presence (each is sealed with a fresh nonce). */
export function expectSameMessage(schema: DescMessage, grpcAnswer: Message, restBody: unknown): void {
  const rest = fromJson(schema, restBody as JsonValue, { registry: contract, ignoreUnknownFields: false });
  const grpc = { ...grpcAnswer } as Message;
  const tokens = [grpc, rest].map((m) => (m as Record<string, unknown>).nextPageToken);
  expect(Boolean(tokens[0])).toBe(Boolean(tokens[1]));
  for (const m of [grpc, rest]) if ('nextPageToken' in m) (m as Record<string, unknown>).nextPageToken = '';
  if (!equals(schema, grpc, rest)) expect(asJson(grpc)).toBe(asJson(rest));
}

const STATUS = contract.getMessage('google.rpc.Status')!;
/** An error detail as a client reads it off the wire (connect does not export the type). */
type IncomingDetail = { type: string; value: Uint8Array };

/**
 * A gRPC failure and a REST error body as one google.rpc.Status: code, message
 * and every detail. The request id an ErrorInfo carries names each request, so
 * it is compared for presence.
 */
export function expectSameError(grpcError: ConnectError, restBody: unknown): void {
  const grpc = create(STATUS, {
    code: grpcError.code,
    message: grpcError.rawMessage,
    // A client only ever holds details as they came off the wire: a type name and its bytes.
    details: grpcError.details.map((d) => create(AnySchema, { typeUrl: `type.googleapis.com/${(d as IncomingDetail).type}`, value: (d as IncomingDetail).value })),
  });
  const rest = fromJson(STATUS, restBody as JsonValue, { registry: contract, ignoreUnknownFields: false });
  const [a, b] = [grpc, rest].map((status) => {
    const json = toJson(STATUS, status, { registry: contract }) as { details?: { metadata?: Record<string, string> }[] };
    for (const detail of json.details ?? []) if (detail.metadata?.requestId) detail.metadata.requestId = 'present';
    return json;
  });
  expect(a).toEqual(b);
}

export interface As {
  /** The caller's Authorization header, on both protocols; the suites' token by default. */
  authorization?: string;
}

export interface Equivalence {
  mode: Mode;
  stack(): ModeStack;
  rest(): Client;
  /** `rpc` over gRPC, recorded as compared; rejects with a ConnectError. */
  call<T extends object = Record<string, any>>(rpc: string, request: JsonValue, as?: As): Promise<Message & T>;
  /** `rpc` over gRPC and `rest()` over REST both succeed with the same message; answers the gRPC one. */
  same<T extends object = Record<string, any>>(rpc: string, request: JsonValue, rest: () => Promise<Reply>, as?: As): Promise<Message & T>;
  /** `rpc` over gRPC fails with `code`, and `rest()` with the same status. */
  sameError(rpc: string, request: JsonValue, code: number, rest: () => Promise<Reply>, as?: As): Promise<void>;
  /** A REST create that must succeed: the new resource's uid. */
  made(path: string, body: unknown): Promise<string>;
}

/**
 * `describeModes` for one area's equivalence cases; after them, the check
 * that every RPC the area's services serve in the mode was called here.
 */
export function describeEquivalence(area: keyof typeof AREAS & string, body: (eq: Equivalence, mode: Mode) => void): void {
  const services = AREAS[area];
  if (!services) throw new Error(`no equivalence area ${area}`);
  describeModes(`gRPC and REST answer the same message: ${area}`, (stack, modeName) => {
    const mode = modeOf(modeName);
    const called = new Set<string>();
    let transport: Transport;
    const clients = new Map<string, Record<string, (request: Message, options: object) => Promise<Message>>>();
    beforeAll(() => {
      transport = createGrpcTransport({ baseUrl: stack().url });
    });

    const call: Equivalence['call'] = async (name, request, as = {}) => {
      const method = rpc(name);
      called.add(nameOf(method));
      if (!clients.has(method.parent.typeName)) clients.set(method.parent.typeName, createClient(method.parent, transport) as never);
      const client = clients.get(method.parent.typeName)!;
      const headers = { authorization: as.authorization ?? TOKEN };
      return client[method.localName]!(fromJson(method.input, request, { registry: contract }), { headers }) as never;
    };
    const eq: Equivalence = {
      mode,
      stack,
      rest: () => stack().client,
      call,
      async same(name, request, rest, as) {
        const answer = await call(name, request, as);
        const reply = await sameRoute(name, rest());
        expect(reply.status, reply.text).toBe(200);
        expectSameMessage(rpc(name).output, answer, reply.body);
        return answer as never;
      },
      async sameError(name, request, code, rest, as) {
        const failure = await call(name, request, as).then(
          (answer) => { throw new Error(`${name} succeeded over gRPC: ${asJson(answer)}`); },
          (error: unknown) => ConnectError.from(error),
        );
        expect(failure.code, failure.message).toBe(code);
        const reply = await sameRoute(name, rest());
        expect(reply.status).toBeGreaterThanOrEqual(400);
        expectSameError(failure, reply.body);
      },
      async made(path, json) {
        const reply = await stack().client.post(path, json);
        if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${reply.text}`);
        return reply.body.uid as string;
      },
    };
    body(eq, mode);

    it(`every RPC of ${services.join(', ')} served in ${mode} mode has a case here`, () => {
      expect(areaProblems()).toEqual([]);
      const missing = servedIn(mode).filter((name) => services.includes(name.split('.')[0]!) && !called.has(name));
      expect(missing, 'served RPCs no case called over gRPC').toEqual([]);
    });
  });
}

/** `reply`, once its request is known to be REST's route of the RPC `name`: the same operation, not another one. */
async function sameRoute(name: string, reply: Promise<Reply>): Promise<Reply> {
  const { method, path } = (await reply).request;
  const reached = rpcOfRoute(method, path);
  expect(reached && nameOf(reached), `the RPC ${method} ${path} reaches`).toBe(name);
  return reply;
}

function modeOf(name: ModeName): Mode {
  return name === 'translate' ? 'translate' : 'native';
}

/** Every RPC the gateway serves in `mode`, as `Service.Method`, from the contract and the mappings. */
export function servedIn(mode: Mode): string[] {
  return forMode(bindContract(apiServices(), MAPPINGS), mode).served.map((binding) => nameOf(binding.method));
}

/** What keeps the areas from covering the contract: a service in none or in two, an area without its file. */
function areaProblems(): string[] {
  const problems: string[] = [];
  for (const service of apiServices()) {
    const areas = Object.keys(AREAS).filter((area) => AREAS[area]!.includes(service.name));
    if (areas.length !== 1) problems.push(`${service.name} is in ${areas.length} equivalence areas`);
  }
  for (const area of Object.keys(AREAS)) {
    if (!existsSync(new URL(`../gateway/grpc/equivalence-${area}.test.ts`, import.meta.url))) problems.push(`area ${area} has no test/gateway/grpc/equivalence-${area}.test.ts`);
  }
  return problems;
}

/** Where a suite's resources are: uids by key (`org` is the organisation its Lists walk). */
export type Ids = Record<string, string>;

/** [service, Get RPC, List RPC, REST collection, key of the resource in `ids`] */
export type ReadCase = [service: string, get: string, list: string, path: string, key: string];

/** A Get and a one-row page of the List, each over both protocols. */
export function itReadsAlike(eq: Equivalence, ids: Ids, cases: readonly ReadCase[]): void {
  for (const [service, get, list, path, key] of cases) {
    it(`${get} and ${list}`, async () => {
      const uid = ids[key]!;
      await eq.same(`${service}.${get}`, { uid }, () => eq.rest().get(`${path}/${uid}`));
      const query = { uidp: { descendantsOf: ids.org! }, pageSize: 1 };
      await eq.same(`${service}.${list}`, query, () => eq.rest().get(path, { 'uidp.descendants_of': ids.org, page_size: 1 }));
    });
  }
}

/** [service, resource, REST collection, key of the parent in `ids`, a new resource's fields, an update's fields (none: no Update RPC)] */
export type WriteCase = [service: string, resource: string, path: string, parentKey: string, body: () => JsonValue, change?: () => JsonValue];

/** Create (and Update) over gRPC read over REST, a create over REST read over gRPC, and Delete's answer on both. */
export function itWritesAlike(eq: Equivalence, ids: Ids, cases: readonly WriteCase[]): void {
  for (const [service, resource, path, parentKey, body, change] of cases) {
    const verbs = change ? `Create${resource}, Update${resource} and Delete${resource}` : `Create${resource} and Delete${resource}`;
    it(`${verbs} answer what a read over the other protocol shows`, async () => {
      const field = resource.charAt(0).toLowerCase() + resource.slice(1);
      const output = rpc(`${service}.Get${resource}`).output;
      // gRPC writes, REST reads.
      const created = await eq.call<{ uid: string }>(`${service}.Create${resource}`, { parent: ids[parentKey]!, [field]: body() });
      expectSameMessage(output, created, (await eq.rest().get(`${path}/${created.uid}`)).body);
      if (change) {
        const updated = await eq.call(`${service}.Update${resource}`, { [field]: { ...(change() as object), uid: created.uid } });
        expectSameMessage(output, updated, (await eq.rest().get(`${path}/${created.uid}`)).body);
      }
      // REST writes, gRPC reads.
      const made = await eq.rest().post(`${path}/${ids[parentKey]}`, body());
      expect(made.status).toBe(200);
      expectSameMessage(output, await eq.call(`${service}.Get${resource}`, { uid: made.body.uid }), made.body);
      await eq.same(`${service}.Delete${resource}`, { uid: created.uid }, () => eq.rest().delete(`${path}/${made.body.uid}`));
    });
  }
}
