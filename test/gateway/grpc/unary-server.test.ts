/**
 * A unary gRPC call is read by the gateway's own server (unary-server.ts)
 * unless something about it is unusual, such as a compressed message, when
 * ConnectRPC reads it. The caller must not be able to tell which did: the
 * same call, once plain and once gzip-compressed, gets the same status,
 * message, details and answer bytes, and one access line each.
 */
import http2 from 'node:http2';
import { once } from 'node:events';
import { gzipSync } from 'node:zlib';
import { fromJson, toBinary, type DescMethod, type JsonObject } from '@bufbuild/protobuf';
import { expect, it } from 'vitest';
import { apiServices } from '../../../src/contract/registry.ts';
import { describeModes } from '../../support/modes.ts';
import { rawGrpc, type RawAnswer } from '../../support/raw-grpc.ts';
import { TOKEN } from '../../support/stack.ts';
import { unservedRpc } from '../../support/contract.ts';

const rpc = (service: string, name: string): DescMethod => apiServices().find((s) => s.name === service)!.methods.find((m) => m.name === name)!;

/** The envelope of one message, compressed (flag 1, gzip) or not. */
function envelope(message: Uint8Array, gzip: boolean): Buffer {
  const bytes = gzip ? gzipSync(message) : Buffer.from(message);
  const head = Buffer.alloc(5);
  head[0] = gzip ? 1 : 0;
  head.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([head, bytes]);
}

/** What a caller can see of an answer, less what differs by design between two calls (the request id). */
function seen(answer: RawAnswer) {
  const { requestId: _, ...errorInfo } = (answer.details?.details[0]?.metadata ?? {}) as Record<string, unknown>;
  return {
    status: answer.status,
    grpcStatus: answer.grpcStatus,
    grpcMessage: answer.grpcMessage,
    details: answer.details && { ...answer.details, details: answer.details.details.map((d: JsonObject, i: number) => (i === 0 ? { ...d, metadata: errorInfo } : d)) },
    body: answer.body.toString('base64'),
    contentType: answer.headers['content-type'],
    requestIdEchoed: answer.headers['x-request-id'] === answer.details?.details[0]?.metadata?.requestId || answer.details === undefined,
    neverIndexed: answer.neverIndexed,
  };
}

describeModes('gRPC calls read by the gateway\'s own server and by ConnectRPC', (stack) => {
  it('answer alike: the same status, details and message bytes, plain or gzip-compressed', async () => {
    const org = (await stack().client.post('/iam/v2beta1/groups', { name: 'two-readers' })).body.uid as string;
    const getGroup = rpc('GroupsService', 'GetGroup');
    const createGroup = rpc('GroupsService', 'CreateGroup');
    const listGroups = rpc('GroupsService', 'ListGroups');
    const calls: [DescMethod, JsonObject][] = [
      [getGroup, { uid: org }],
      [getGroup, { uid: `${org}/0123456789abcdef` }], // NOT_FOUND
      [listGroups, { uidp: { childrenOf: org }, pageSize: 1 }],
      [createGroup, { parent: org, group: { name: '' } }], // INVALID_ARGUMENT with a BadRequest
      [getGroup, { uid: 'not a uidp' }],
    ];
    const unserved = unservedRpc(stack().mode === 'translate' ? 'translate' : 'native');
    if (unserved) calls.push([apiServices().find((s) => s.typeName === unserved.service)!.methods.find((m) => m.name === unserved.method)!, {}]);
    for (const [method, request] of calls) {
      const path = `/${method.parent.typeName}/${method.name}`;
      const message = toBinary(method.input, fromJson(method.input, request));
      const plain = await rawGrpc(stack().url, path, envelope(message, false));
      const compressed = await rawGrpc(stack().url, path, envelope(message, true), { 'grpc-encoding': 'gzip' });
      expect(seen(plain), `${method.name} ${JSON.stringify(request)}`).toEqual(seen(compressed));
      // Values new on every answer stay out of the connection's HPACK table (transport/never-indexed.ts).
      const unique = ['x-request-id', ...(plain.grpcStatus === 0 ? [] : ['grpc-message', 'grpc-status-details-bin'])];
      expect(plain.neverIndexed, `${method.name} ${JSON.stringify(request)}`).toEqual(unique.sort());
    }
  });

  it('every call gets one access line, with its code, from either reader', async () => {
    const getGroup = rpc('GroupsService', 'GetGroup');
    const message = toBinary(getGroup.input, fromJson(getGroup.input, { uid: 'not a uidp' }));
    const path = `/${getGroup.parent.typeName}/${getGroup.name}`;
    for (const [id, body, headers] of [
      ['reader-plain', envelope(message, false), {}],
      ['reader-gzip', envelope(message, true), { 'grpc-encoding': 'gzip' }],
    ] as const) {
      await rawGrpc(stack().url, path, body, { 'x-request-id': id, ...headers });
      const lines = stack().logs.filter((line) => line.includes(`"reqId":"${id}"`) && line.includes('"msg":"request"')).map((line) => JSON.parse(line));
      expect(lines, id).toEqual([expect.objectContaining({ rpc: `${getGroup.parent.typeName}/GetGroup`, code: 3 })]);
    }
  });

  it('makes an answered call\'s access line after its message has reached the caller, not in front of its trailers', async () => {
    const org = (await stack().client.post('/iam/v2beta1/groups', { name: 'line-after-answer' })).body.uid as string;
    const getGroup = rpc('GroupsService', 'GetGroup');
    const lines = () => stack().logs.filter((line) => line.includes('"reqId":"line-after-answer"') && line.includes('"msg":"request"'));
    const session = http2.connect(stack().url);
    try {
      const stream = session.request({
        ':method': 'POST', ':path': `/${getGroup.parent.typeName}/${getGroup.name}`, 'content-type': 'application/grpc', te: 'trailers', authorization: TOKEN, 'x-request-id': 'line-after-answer',
      });
      // The message reaches this client (the same process) a turn before the server writes the trailers,
      // which is when the line is made; made with the answer, it was already there.
      let linesAtMessage: number | undefined;
      stream.once('data', () => (linesAtMessage = lines().length));
      stream.end(envelope(toBinary(getGroup.input, fromJson(getGroup.input, { uid: org })), false));
      await once(stream, 'close');
      expect(linesAtMessage).toBe(0);
      expect(lines().map((line) => JSON.parse(line).code)).toEqual([0]);
    } finally {
      session.close();
    }
  });
});
