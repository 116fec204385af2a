import { describe, it, expect } from 'vitest';
import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import { MAPPINGS } from '../../mappings/index.ts';
import { bindContract } from '../../src/contract/bindings.ts';
import { apiServices } from '../../src/contract/registry.ts';
import { grpcOperation } from '../../src/transport/grpc/request.ts';
import { restOperation } from '../../src/transport/rest/request.ts';

const bindings = bindContract(apiServices(), MAPPINGS);
const binding = (method: string) => bindings.find((b) => b.method.name === method)!;
const PARENT = 'a'.repeat(40);

/** The operation a gRPC call of `json` makes, as the gRPC transport reads the decoded message. */
const overGrpc = (method: string, json: JsonValue) => {
  const b = binding(method);
  return grpcOperation(b, fromJson(b.method.input, json));
};

describe('the operation carries the call it was read from (the comparison and the capture read it there)', () => {
  it('a create: the same binding and request message over REST (snake_case body) as over gRPC', () => {
    const rest = restOperation(binding('CreateGroup'), { variables: { parent: PARENT }, query: {}, body: { display_name: 'x', name: 'team', description: 'd' } });
    const grpc = overGrpc('CreateGroup', { parent: PARENT, group: { name: 'team', description: 'd' } });
    expect(rest.call?.binding).toBe(binding('CreateGroup'));
    expect(grpc.call?.binding).toBe(binding('CreateGroup'));
    expect(rest.call!.message()).toEqual({ parent: PARENT, group: { name: 'team', description: 'd' } });
    expect(grpc.call!.message()).toEqual(rest.call!.message());
  });

  it('a List: its query as the message fields, over either transport', () => {
    const rest = restOperation(binding('ListGroups'), { variables: {}, query: { page_size: '5', 'uidp.children_of': PARENT }, body: undefined });
    const grpc = overGrpc('ListGroups', { pageSize: 5, uidp: { childrenOf: PARENT } });
    expect(rest.call!.message()).toEqual(grpc.call!.message());
    expect(grpc.call!.message()).toMatchObject({ pageSize: 5, uidp: { childrenOf: PARENT } });
  });

  it('a Get and a Delete: the target read off the message, and the message as REST reads it, made when asked', () => {
    for (const method of ['GetGroup', 'DeleteGroup']) {
      const rest = restOperation(binding(method), { variables: { uid: PARENT }, query: {}, body: undefined });
      const grpc = overGrpc(method, { uid: PARENT });
      expect(grpc).toMatchObject({ kind: rest.kind, uid: PARENT });
      expect(grpc.call!.message()).toEqual({ uid: PARENT });
      expect(grpc.call!.message()).toEqual(rest.call!.message());
      // Asked twice, the same message, as the comparison and a capture may both ask.
      expect(grpc.call!.message()).toBe(grpc.call!.message());
    }
    // No uid sent: proto3's empty string, as the JSON form (which leaves it out) read it.
    expect(overGrpc('GetGroup', {})).toMatchObject({ kind: 'get', uid: '' });
  });
});
