/**
 * What the fuzz suite found, pinned: requests that once answered INTERNAL,
 * without details, with the wrong code or a broken answer, each sent the way
 * the fuzzer sent it.
 *
 * - A gRPC message that decodes from protobuf but has no JSON form (a
 *   Timestamp outside years 1 to 9999, a Duration past 10,000 years, a
 *   FieldMask path that is not snake_case) answered INTERNAL and logged an
 *   unhandled error (seed 6, requests #4062 and #7275); it is the caller's bad
 *   input: INVALID_ARGUMENT naming the field, and nothing is written.
 * - Calls ConnectRPC refuses before the handler (a message that does not
 *   decode, a broken envelope, a compression flag with no encoding, JSON that
 *   is not JSON) answered with no details, and an undecodable message with
 *   INTERNAL: now INVALID_ARGUMENT with ErrorInfo and the request id, on gRPC,
 *   gRPC-Web and Connect alike.
 * - `grpc-timeout: 99999999H` (past Node's longest timer) became a 1 ms
 *   deadline; `0n` answered CANCELLED; a deadline ConnectRPC noticed first
 *   answered CANCELLED.
 * - An error echoing 20 KB of input overflowed the HTTP/2 trailers (the
 *   stream was reset): messages and details are now bounded.
 * - A REST parse error cut an emoji in half (a lone surrogate in the body).
 * - A HEAD the HTTP parser refused got a body.
 * - A caller's x-request-id of any length was logged with every line and
 *   echoed in headers: one over 128 characters, or with a space, is replaced.
 * - Over h2c, a method no route has (HTTP/2 carries any token) answered 500
 *   and wrote Fastify's whole router into the log.
 * - A gRPC call to an unknown method got REST's 404.
 * - In translate mode, a filter too long for v1's URL (sent in a gRPC or
 *   Connect body, which has no URL limit) answered UNKNOWN when v1 refused
 *   it with 431: v1's "too large" statuses are the caller's input.
 */
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { once } from 'node:events';
import { create, fromBinary, fromJson, toBinary, toJson, type DescMethod } from '@bufbuild/protobuf';
import { DurationSchema, FieldMaskSchema, TimestampSchema } from '@bufbuild/protobuf/wkt';
import { ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { expect, it } from 'vitest';
import { apiServices, contract } from '../../src/contract/registry.ts';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { describeModes } from '../support/modes.ts';
import { frame } from './generators.ts';
import { rawGrpc, type RawAnswer } from '../support/raw-grpc.ts';
import { TOKEN } from '../support/stack.ts';

const rpc = (service: string, name: string): DescMethod => apiServices().find((s) => s.name === service)!.methods.find((m) => m.name === name)!;
const BadRequest = contract.getMessage('google.rpc.BadRequest')!;

describeModes('fuzz findings, pinned', (stack) => {
  const call = async (method: DescMethod, message: object) => {
    const client = createClient(method.parent, createGrpcTransport({ baseUrl: stack().url })) as unknown as Record<string, Function>;
    try {
      await client[method.localName]!(message, { headers: { authorization: TOKEN } });
    } catch (error) {
      if (!(error instanceof ConnectError)) throw error;
      const violations = error.findDetails(BadRequest).flatMap((d) => (d as unknown as { fieldViolations: { field: string }[] }).fieldViolations);
      return { code: error.code, message: error.rawMessage, fields: violations.map((v) => v.field) };
    }
    throw new Error(`${method.name} succeeded, but it was expected to fail`);
  };

  it('a message with no JSON form is INVALID_ARGUMENT naming the field, never INTERNAL, and writes nothing', async () => {
    const org = (await stack().client.post('/iam/v2beta1/groups', { name: 'fuzz-pinned' })).body.uid as string;
    const role = (await stack().client.post(`/iam/v2beta1/roles/${org}`, { name: 'pinned', capabilities: ['CAP_IAM_GROUPS_LIST'] })).body;

    const updateRole = rpc('RolesService', 'UpdateRole');
    const badTime = fromJson(updateRole.input, { role: { uid: role.uid, name: 'changed' } }) as any;
    badTime.role.createTime = create(TimestampSchema, { seconds: 999_999_999_999_999n });
    expect(await call(updateRole, badTime)).toMatchObject({ code: 3, fields: ['role.createTime'] });

    const badMask = fromJson(updateRole.input, { role: { uid: role.uid, name: 'changed' } }) as any;
    badMask.updateMask = create(FieldMaskSchema, { paths: ['name', 'descripTion'] });
    const mask = await call(updateRole, badMask);
    expect(mask).toMatchObject({ code: 3, fields: ['update_mask'] });
    expect(mask.message).toContain('descripTion');

    const createInvite = rpc('GroupInvitesService', 'CreateGroupInvite');
    const badTtl = fromJson(createInvite.input, { parent: org, groupInvite: { roleUid: role.uid } }) as any;
    badTtl.groupInvite.ttl = create(DurationSchema, { seconds: 400_000_000_000n });
    expect(await call(createInvite, badTtl)).toMatchObject({ code: 3, fields: ['groupInvite.ttl'] });

    expect((await stack().client.get(`/iam/v2beta1/roles/${role.uid}`)).body).toEqual(role);
    expect((await stack().client.get('/iam/v2beta1/groupInvites', { 'uidp.children_of': org })).body.groupInvites).toEqual([]);
    expect(stack().logs.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
  });
});

const STATUS = contract.getMessage('google.rpc.Status')!;
const GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService';

/** The ErrorInfo a status carries first, with the request id the answer's header names. */
function expectGatewayStatus(answer: RawAnswer, code: number): void {
  expect(answer, JSON.stringify(answer.headers)).toMatchObject({ status: 200, grpcStatus: code });
  expect(answer.details?.code).toBe(code);
  expect(answer.details?.details[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', metadata: { requestId: answer.headers['x-request-id'] } });
  expect(answer.headers['x-request-id']).toBeTruthy();
}

describeModes('fuzz findings on the gRPC transport, pinned', (stack) => {
  const errorLogs = () => stack().logs.filter((line) => /"level":(50|60)/.test(line));
  const getGroup = (uid: string) => frame(toBinary(rpc('GroupsService', 'GetGroup').input, fromJson(rpc('GroupsService', 'GetGroup').input, { uid })));

  it('a message that does not decode is INVALID_ARGUMENT with the gateway\'s details, never INTERNAL (gRPC)', async () => {
    const path = `/${GROUPS}/GetGroup`;
    // seed 1 #3311: a tag with wire type 7; seed 6: bytes cut in the middle of a string; a group never closed.
    for (const payload of [Buffer.from([0x17, 0x01]), Buffer.from([0x0a, 0x05, 0x61]), Buffer.from([0x0b, 0x0b, 0x0b])]) {
      const answer = await rawGrpc(stack().url, path, frame(payload));
      expectGatewayStatus(answer, 3);
      expect(answer.details!.details).toContainEqual(expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [expect.objectContaining({ field: 'request' })] }));
      expect(answer.grpcMessage).toMatch(/^Invalid argument: request: the request message cannot be read: /);
    }
    // A compression flag with no grpc-encoding; an envelope that promises more than it has; a cut header.
    for (const body of [frame(Buffer.from('{}'), 1), frame(Buffer.alloc(3), 0, 10), Buffer.from([0])]) {
      expectGatewayStatus(await rawGrpc(stack().url, path, body), 3);
    }
    // No message at all, or two: UNIMPLEMENTED, as the gRPC spec says of a request cardinality violation.
    for (const body of [Buffer.alloc(0), Buffer.concat([frame(Buffer.alloc(0)), frame(Buffer.alloc(0))])]) {
      expectGatewayStatus(await rawGrpc(stack().url, path, body), 12);
    }
    // Over the message limit: RESOURCE_EXHAUSTED, as gRPC says, with the same details.
    expectGatewayStatus(await rawGrpc(stack().url, path, frame(Buffer.alloc(0), 0, 0xffffffff)), 8);
    // The caller's own x-request-id is the one echoed.
    const named = await rawGrpc(stack().url, path, frame(Buffer.from([0x17])), { 'x-request-id': 'fuzz-finding-1' });
    expect(named.details!.details[0].metadata.requestId).toBe('fuzz-finding-1');
    expect(errorLogs()).toEqual([]);
  });

  it('the same refusals over gRPC-Web and Connect carry ErrorInfo too', async () => {
    const url = new URL(stack().url);
    const post = (path: string, contentType: string, body: Buffer | string) => new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const request = http.request({ host: url.hostname, port: url.port, method: 'POST', path, headers: { 'content-type': contentType, 'connect-protocol-version': '1', authorization: TOKEN } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      });
      request.on('error', reject);
      request.end(body);
    });
    // gRPC-Web: the status is in the trailer frame at the end of the body (or in the headers when there is none).
    const web = await post(`/${GROUPS}/GetGroup`, 'application/grpc-web+proto', frame(Buffer.from([0x17, 0x01])));
    const trailerText = web.body.length > 5 ? web.body.subarray(5).toString('latin1') : '';
    const trailer = Object.fromEntries(trailerText.split('\r\n').filter(Boolean).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const webStatus = { ...web.headers, ...trailer } as Record<string, string>;
    expect(webStatus['grpc-status']).toBe('3');
    const decoded = toJson(STATUS, fromBinary(STATUS, Buffer.from(webStatus['grpc-status-details-bin']!, 'base64')), { registry: contract }) as Record<string, any>;
    expect(decoded.details[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_ARGUMENT', metadata: { requestId: web.headers['x-request-id'] } });

    // Connect: seed 20261124 #18, a body that is not JSON.
    const connect = await post(`/${GROUPS}/GetGroup`, 'application/json', 'undefined');
    expect(connect.status).toBe(400);
    const error = JSON.parse(connect.body.toString('utf8'));
    expect(error.code).toBe('invalid_argument');
    expect(error.details?.map((d: { type: string }) => d.type)).toEqual(['google.rpc.ErrorInfo', 'google.rpc.BadRequest']);
    expect(errorLogs()).toEqual([]);
  });

  it('a grpc-timeout past Node\'s longest timer is no 1 ms deadline; an expired one is DEADLINE_EXCEEDED, not CANCELLED', async () => {
    const org = (await stack().client.post('/iam/v2beta1/groups', { name: 'deadline-org' })).body.uid as string;
    for (const timeout of ['99999999H', '99999999S', '2592000S']) {
      const answer = await rawGrpc(stack().url, `/${GROUPS}/GetGroup`, getGroup(org), { 'grpc-timeout': timeout });
      expect({ timeout, status: answer.grpcStatus, message: answer.grpcMessage }).toEqual({ timeout, status: 0, message: '' });
    }
    // seed 1 #868: a deadline already past, with a body that would not decode either: the deadline answers, the body unread.
    for (const body of [getGroup(org), frame(Buffer.from([0x17]))]) {
      expectGatewayStatus(await rawGrpc(stack().url, `/${GROUPS}/GetGroup`, body, { 'grpc-timeout': '0n' }), 4);
    }
    // A short deadline that ConnectRPC's own timer may notice a moment before the gateway's: still DEADLINE_EXCEEDED.
    for (let i = 0; i < 5; i++) {
      const answer = await rawGrpc(stack().url, `/${GROUPS}/GetGroup`, getGroup(org), { 'grpc-timeout': '1m' });
      expect([0, 4]).toContain(answer.grpcStatus);
    }
  });

  it('an error echoing 20 KB of input fits the trailers: bounded, and well-formed', async () => {
    const grpc = new GrpcClient(stack().url);
    try {
      for (const uid of ['x'.repeat(20_000), '\u{1F600}'.repeat(8_000), 'é'.repeat(20_000)]) {
        const failure = await rejected(grpc.call(GROUPS, 'GetGroup', { uid }));
        expect(failure.code).toBe(3);
        expect(Buffer.byteLength(failure.message)).toBeLessThanOrEqual(1024);
        expect(failure.message.isWellFormed()).toBe(true);
        expect(failure.message.endsWith('…')).toBe(true);
        expect(failure.details[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo' });
        for (const text of JSON.stringify(failure.details).match(/"(?:[^"\\]|\\.)*"/g) ?? []) expect(Buffer.byteLength(JSON.parse(text))).toBeLessThanOrEqual(256);
      }
    } finally {
      grpc.close();
    }
    const rest = await stack().client.get(`/iam/v2beta1/groups/${'x'.repeat(20_000)}`);
    expect(rest.status).toBe(400);
    expect(Buffer.byteLength(rest.body.message)).toBeLessThanOrEqual(1024);
  });

  it('a gRPC call to a method no service has is UNIMPLEMENTED as gRPC, not REST\'s 404', async () => {
    for (const path of ['/chainguard.platform.iam.v2beta1.NopeService/GetNope', `/${GROUPS}/Nope`, `/${GROUPS.toLowerCase()}/GetGroup`]) {
      const answer = await rawGrpc(stack().url, path, frame(Buffer.alloc(0)));
      expectGatewayStatus(answer, 12);
      expect(answer.details!.details[0]).toMatchObject({ reason: 'UNIMPLEMENTED', domain: 'iam.chainguard.dev' });
    }
    // A REST path stays REST, whatever its content type.
    const rest = await stack().client.call('POST', '/iam/v2beta1/nope', { raw: '{}', headers: { 'content-type': 'application/grpc' } });
    expect(rest.status).toBe(404);
  });
}, { modes: ['native'] });

describeModes('fuzz findings on REST, pinned', (stack) => {
  it('a parse error\'s message never cuts an emoji in half', async () => {
    // V8 quotes the text around the bad token by UTF-16 units: `Unexpected token '\ud83d', "[1,😀😀😀x" is not valid JSON`.
    for (const raw of ['[1,\u{1F600}\u{1F600}\u{1F600}x', `${'\u{1F600}'.repeat(5)}x${'\u{1F600}'.repeat(30)}`]) {
      const reply = await stack().client.call('POST', '/iam/v2beta1/groups', { raw });
      expect(reply.status).toBe(400);
      expect(reply.text).not.toMatch(/\\ud[89a-f]/i);
      expect(reply.body.message.isWellFormed()).toBe(true);
      expect(reply.body.message).toContain('\uFFFD');
    }
  });

  it('over h2c, a method no route has is UNIMPLEMENTED 501 in AIP-193 form, as HTTP/1\'s parser answers it', async () => {
    const session = http2.connect(stack().url);
    session.on('error', () => {});
    try {
      for (const method of ['FOO', 'get', 'M-SEARCH']) {
        const logsBefore = stack().logs.length;
        const stream = session.request({ ':method': method, ':path': '/iam/v2beta1/groups/x', authorization: TOKEN }, { endStream: true });
        let head: http2.IncomingHttpHeaders = {};
        const chunks: Buffer[] = [];
        stream.on('response', (h) => (head = h));
        stream.on('data', (c: Buffer) => chunks.push(c));
        await once(stream, 'close');
        expect(head[':status']).toBe(501);
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        expect(body).toMatchObject({ code: 12, message: `Unimplemented: the HTTP method ${method} is not served`, details: [{ reason: 'UNIMPLEMENTED', metadata: { requestId: head['x-request-id'] } }] });
        expect(stack().logs.slice(logsBefore).filter((line) => /"level":(40|50|60)/.test(line))).toEqual([]);
      }
    } finally {
      session.close();
    }
  });

  it("a caller's x-request-id is kept when usable and replaced when not, on REST and gRPC alike", async () => {
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    for (const [sent, kept] of [['trace-0af7651916cd43dd', true], ['r'.repeat(128), true], ['r'.repeat(129), false], ['two words', false], ['', false]] as const) {
      const rest = await stack().client.get('/iam/v2beta1/groups/nope', undefined, { headers: { 'x-request-id': sent } });
      const grpc = await rawGrpc(stack().url, `/${GROUPS}/GetGroup`, frame(Buffer.from([0x17])), { 'x-request-id': sent });
      for (const id of [rest.headers.get('x-request-id'), rest.body.details[0].metadata.requestId, grpc.headers['x-request-id'], grpc.details!.details[0].metadata.requestId]) {
        if (kept) expect(id).toBe(sent);
        else expect(id).toMatch(UUID);
      }
    }
  });

  it('a HEAD the HTTP parser refuses gets its status and headers, and no body', async () => {
    const url = new URL(stack().url);
    const socket = net.connect(Number(url.port), url.hostname);
    await once(socket, 'connect');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    // seed 2 #2999: a query long enough to overflow the header limit.
    socket.write(`HEAD /iam/v2beta1/groups?names=${'n'.repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`);
    await once(socket, 'close');
    const text = Buffer.concat(received).toString('latin1');
    const [head, body] = text.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/);
    expect(body).toBe('');
  });
}, { modes: ['native'] });

describeModes('fuzz findings over v1, pinned', (stack) => {
  it('a filter too long for v1\'s URL is INVALID_ARGUMENT, not UNKNOWN', async () => {
    const grpc = new GrpcClient(stack().url);
    try {
      // seed 1 #4592: a long name filter of é (six bytes each once percent-encoded in v1's query string).
      const failure = await rejected(grpc.call('chainguard.platform.iam.v2beta1.AccountAssociationsService', 'ListAccountAssociations', { name: 'é'.repeat(20_000) }));
      expect(failure.code).toBe(3);
      expect(failure.details[0]).toMatchObject({ reason: 'INVALID_ARGUMENT', metadata: { upstream: 'v1', upstreamStatus: '431' } });
    } finally {
      grpc.close();
    }
  });
}, { modes: ['translate'] });
