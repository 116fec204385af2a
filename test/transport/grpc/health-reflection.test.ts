/**
 * The gRPC health and reflection services as grpc_health_probe and grpcurl
 * use them: a real @grpc/grpc-js client, loading the project's own protos,
 * over real HTTP/2 on a loopback port to ConnectRPC's Node adapter.
 *
 * The registry is built here from `buf build proto`, so this file depends
 * only on the .proto files and the two modules under test.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createFileRegistry, fromBinary, type FileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import type { ConnectRouter } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import * as loader from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthRoutes } from '../../../src/transport/grpc/health.ts';
import { reflectionRoutes } from '../../../src/transport/grpc/reflection.ts';

const HEALTH = 'grpc.health.v1.Health';
const GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService';
const SERVICES = [HEALTH, 'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection', GROUPS];
const WATCH_MS = 20;

function buildRegistry(): FileRegistry {
  const dir = mkdtempSync(join(tmpdir(), 'v2gw-descriptors-'));
  try {
    const out = join(dir, 'descriptors.binpb');
    execFileSync('node_modules/.bin/buf', ['build', 'proto', '--exclude-source-info', '-o', out]);
    return createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(out)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The client side knows only the .proto files, as a grpc-go or grpcurl user would.
const loaded = grpc.loadPackageDefinition(
  loader.loadSync(['grpc/health/v1/health.proto', 'grpc/reflection/v1/reflection.proto', 'grpc/reflection/v1alpha/reflection.proto'], {
    includeDirs: ['proto'],
    keepCase: true, // the wire's field names, so answers read like the protocol's documentation
    enums: String,
    defaults: true,
    oneofs: true,
  }),
) as any;

let ready = true;
let readyCalls = 0;
let server: http2.Http2Server;
let address: string;
const clients: grpc.Client[] = [];
const client = <T extends grpc.Client>(ctor: new (address: string, credentials: grpc.ChannelCredentials) => T): T => {
  const made = new ctor(address, grpc.credentials.createInsecure());
  clients.push(made);
  return made;
};

beforeAll(async () => {
  const registry = buildRegistry();
  const routes = (router: ConnectRouter) => {
    healthRoutes(router, {
      registry,
      ready: async () => (readyCalls++, ready),
      services: () => SERVICES,
      watchIntervalMs: WATCH_MS,
    });
    reflectionRoutes(router, { registry, services: () => SERVICES });
  };
  server = http2.createServer(connectNodeAdapter({ routes }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const c of clients) c.close();
  if (server) await new Promise((resolve) => server.close(resolve));
});

describe('grpc.health.v1.Health', () => {
  let health: any;
  const check = (service: string): Promise<any> =>
    new Promise((resolve, reject) => health.Check({ service }, (error: grpc.ServiceError | null, answer: any) => (error ? reject(error) : resolve(answer))));
  beforeAll(() => {
    health = client(loaded.grpc.health.v1.Health);
  });

  it('Check follows ready() for the server and each served service', async () => {
    ready = true;
    expect(await check('')).toEqual({ status: 'SERVING' });
    expect(await check(HEALTH)).toEqual({ status: 'SERVING' });
    ready = false;
    expect(await check('')).toEqual({ status: 'NOT_SERVING' });
    expect(await check(GROUPS)).toEqual({ status: 'NOT_SERVING' });
    ready = true;
  });

  it('Check of an unknown service fails NOT_FOUND', async () => {
    await expect(check('no.such.Service')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it('List answers every known service with its status', async () => {
    const answer: any = await new Promise((resolve, reject) => health.List({}, (e: any, a: any) => (e ? reject(e) : resolve(a))));
    expect(Object.keys(answer.statuses).sort()).toEqual(['', ...SERVICES].sort());
    expect(answer.statuses[HEALTH]).toEqual({ status: 'SERVING' });
  });

  it('Watch sends SERVING, then NOT_SERVING after the flip, and ends cleanly on cancel', async () => {
    ready = true;
    const call = health.Watch({ service: HEALTH });
    const seen: string[] = [];
    call.on('data', (answer: any) => seen.push(answer.status));
    const ended = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
    call.on('error', () => {}); // cancellation surfaces as an error event; the status below is what counts

    await until(() => seen.length === 1);
    expect(seen).toEqual(['SERVING']);
    await sleep(WATCH_MS * 4);
    expect(seen).toEqual(['SERVING']); // no change, nothing sent
    ready = false;
    await until(() => seen.length === 2);
    expect(seen).toEqual(['SERVING', 'NOT_SERVING']);

    call.cancel();
    expect((await ended).code).toBe(grpc.status.CANCELLED);
    // The server's loop stopped too: ready() is no longer polled once the stream is gone.
    await sleep(WATCH_MS * 3);
    const after = readyCalls;
    await sleep(WATCH_MS * 5);
    expect(readyCalls).toBe(after);
    ready = true;
  });

  it('Watch of an unknown service streams SERVICE_UNKNOWN and keeps the stream open', async () => {
    const call = health.Watch({ service: 'no.such.Service' });
    const seen: string[] = [];
    let ended = false;
    call.on('data', (answer: any) => seen.push(answer.status));
    call.on('status', () => (ended = true));
    call.on('error', () => {});
    await until(() => seen.length === 1);
    await sleep(WATCH_MS * 4);
    expect(seen).toEqual(['SERVICE_UNKNOWN']);
    expect(ended).toBe(false);
    call.cancel();
  });
});

describe.each(['v1', 'v1alpha'])('grpc.reflection.%s.ServerReflection', (version) => {
  let stream: ReturnType<typeof reflectionStream>;
  beforeAll(() => {
    stream = reflectionStream(client(loaded.grpc.reflection[version].ServerReflection));
  });
  afterAll(() => stream.end());

  it('lists the services, echoing host and request', async () => {
    const answer = await stream.ask({ host: 'gw.example', list_services: '*' });
    expect(answer.valid_host).toBe('gw.example');
    expect(answer.original_request).toMatchObject({ host: 'gw.example', list_services: '*', message_request: 'list_services' });
    expect(answer.message_response).toBe('list_services_response');
    expect(answer.list_services_response.service.map((s: any) => s.name)).toEqual(SERVICES);
  });

  it('resolves grpc.health.v1.Health by symbol, method and filename to a decodable FileDescriptorProto', async () => {
    for (const request of [
      { file_containing_symbol: HEALTH },
      { file_containing_symbol: `${HEALTH}.Watch` },
      { file_containing_symbol: 'grpc.health.v1.HealthCheckResponse.ServingStatus' },
      { file_containing_symbol: 'grpc.health.v1.HealthCheckResponse.SERVING' }, // enum values are siblings of their enum
      { file_by_filename: 'grpc/health/v1/health.proto' },
    ]) {
      const [file, ...rest] = descriptors(await stream.ask(request));
      expect(file!.name, JSON.stringify(request)).toBe('grpc/health/v1/health.proto');
      expect(file!.package).toBe('grpc.health.v1');
      expect(file!.service.map((s) => s.name)).toEqual(['Health']);
      expect(file!.service[0]!.method.map((m) => m.name)).toEqual(['Check', 'List', 'Watch']);
      expect(rest).toEqual([]); // health.proto imports nothing
    }
  });

  it('answers NOT_FOUND for a missing symbol and file, and the stream stays usable', async () => {
    const missing = await stream.ask({ file_containing_symbol: 'no.such.Symbol' });
    expect(missing.message_response).toBe('error_response');
    expect(missing.error_response.error_code).toBe(5);
    expect(missing.error_response.error_message).toContain('no.such.Symbol');
    expect(missing.original_request.file_containing_symbol).toBe('no.such.Symbol');

    const noFile = await stream.ask({ file_by_filename: 'nope.proto' });
    expect(noFile.error_response).toMatchObject({ error_code: 5 });

    const next = await stream.ask({ list_services: '' });
    expect(next.list_services_response.service).toHaveLength(SERVICES.length);
  });

  it('returns a file with its transitive imports, each sent once per stream', async () => {
    const fresh = reflectionStream(client(loaded.grpc.reflection[version].ServerReflection));
    try {
      const groups = descriptors(await fresh.ask({ file_containing_symbol: GROUPS }));
      expect(groups[0]!.name).toBe('chainguard/platform/iam/v2beta1/groups.proto');
      const names = new Set(groups.map((f) => f.name));
      expect(names).toContain('google/api/annotations.proto');
      expect(names).toContain('google/api/http.proto'); // an import of an import
      expect(names).toContain('google/protobuf/descriptor.proto');
      // Closed: everything any returned file imports came along, so a client needs no .proto files.
      for (const file of groups) for (const dep of file.dependency) expect(names, `${file.name} imports ${dep}`).toContain(dep);

      expect(names).toContain('capabilities/capabilities.proto'); // via annotations/auth.proto

      // A sibling file imports nothing this stream has not had already: only the file itself comes back.
      const roles = descriptors(await fresh.ask({ file_containing_symbol: 'chainguard.platform.iam.v2beta1.RolesService' }));
      expect(roles[0]!.dependency).toContain('capabilities/capabilities.proto');
      expect(roles.map((f) => f.name)).toEqual(['chainguard/platform/iam/v2beta1/roles.proto']);

      // Asking again still answers the file itself: it is what was asked for.
      expect(descriptors(await fresh.ask({ file_by_filename: 'chainguard/platform/iam/v2beta1/groups.proto' })).map((f) => f.name)).toEqual([
        'chainguard/platform/iam/v2beta1/groups.proto',
      ]);
    } finally {
      fresh.end();
    }
  });

  it('answers extension lookups', async () => {
    const numbers = await stream.ask({ all_extension_numbers_of_type: 'google.protobuf.MethodOptions' });
    expect(numbers.all_extension_numbers_response.base_type_name).toBe('google.protobuf.MethodOptions');
    const http = 72295728; // google.api.http
    expect(numbers.all_extension_numbers_response.extension_number).toContain(http);

    const [file] = descriptors(await stream.ask({ file_containing_extension: { containing_type: 'google.protobuf.MethodOptions', extension_number: http } }));
    expect(file!.name).toBe('google/api/annotations.proto');

    const none = await stream.ask({ file_containing_extension: { containing_type: 'google.protobuf.MethodOptions', extension_number: 1 } });
    expect(none.error_response).toMatchObject({ error_code: 5 });
    const unknown = await stream.ask({ all_extension_numbers_of_type: 'no.such.Message' });
    expect(unknown.error_response).toMatchObject({ error_code: 5 });
  });
});

/** One reflection stream as a request/answer conversation: the protocol answers each request in order. */
function reflectionStream(reflection: any) {
  const call = reflection.ServerReflectionInfo();
  const answers: any[] = [];
  const waiting: ((answer: any) => void)[] = [];
  let failure: Error | undefined;
  call.on('data', (answer: any) => (waiting.length > 0 ? waiting.shift()!(answer) : answers.push(answer)));
  call.on('error', (error: Error) => (failure = error));
  return {
    ask(request: object): Promise<any> {
      if (failure) return Promise.reject(failure);
      call.write(request);
      if (answers.length > 0) return Promise.resolve(answers.shift());
      return new Promise((resolve, reject) => {
        waiting.push(resolve);
        setTimeout(() => reject(failure ?? new Error(`no answer to ${JSON.stringify(request)}`)), 5_000).unref();
      });
    },
    end: () => call.end(),
  };
}

function descriptors(answer: any): FileDescriptorProto[] {
  expect(answer.message_response, JSON.stringify(answer.error_response)).toBe('file_descriptor_response');
  return answer.file_descriptor_response.file_descriptor_proto.map((bytes: Buffer) => fromBinary(FileDescriptorProtoSchema, bytes));
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(5);
  }
}
