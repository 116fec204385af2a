import { describe, expect, it } from 'vitest';
import { create, fromBinary, toBinary, type DescMessage } from '@bufbuild/protobuf';
import { apiServices } from '../../../src/contract/registry.ts';
import { requestDecoder } from '../../../src/transport/grpc/request-decoder.ts';

const input = (name: string): DescMessage => apiServices().flatMap((s) => s.methods).find((m) => m.name === name)!.input;
const bytes = (...parts: Array<Uint8Array | number[]>) => Buffer.concat(parts.map((part) => Buffer.from(part)));
const encoded = (desc: DescMessage, init: Record<string, string>) => toBinary(desc, create(desc, init as never));

/** The decoder's message is fromBinary's, or it fails as fromBinary does. */
function agrees(desc: DescMessage, wire: Buffer): void {
  let expected: unknown;
  try {
    expected = fromBinary(desc, wire);
  } catch (error) {
    expect(() => requestDecoder(desc)(wire)).toThrow((error as Error).message);
    return;
  }
  expect(requestDecoder(desc)(wire)).toEqual(expected);
}

describe('a request message read from its bytes: the message fromBinary makes', () => {
  const get = input('GetGroup');
  const two = input('LookupIdentity');
  const three = input('GetSize');

  it('plain string fields, in any order, sent twice (the last counts), empty, or not at all', () => {
    const long = 'x'.repeat(300); // a two-byte length
    for (const wire of [
      encoded(get, { uid: 'a'.repeat(40) }),
      encoded(get, { uid: long }),
      bytes([]),
      bytes([0x0a, 0x00]),
      bytes(encoded(get, { uid: 'first' }), encoded(get, { uid: 'second' })),
      bytes(encoded(two, { subject: 's' }), encoded(two, { issuer: 'https://issuer.example' })),
      encoded(three, { repoUid: 'r', digest: 'sha256:00', architecture: 'amd64' }),
    ]) {
      agrees(get, Buffer.from(wire));
      agrees(two, Buffer.from(wire));
      agrees(three, Buffer.from(wire));
    }
    expect(requestDecoder(get)(bytes(encoded(get, { uid: 'first' }), encoded(get, { uid: 'second' })))).toMatchObject({ uid: 'second' });
  });

  it('anything else as fromBinary reads it: other fields kept as unknown, other wire types, UTF-8 text, cut-off or broken bytes', () => {
    const utf8 = encoded(get, { uid: 'grüße ✓' });
    for (const wire of [
      bytes(encoded(get, { uid: 'a' }), [0x10, 0x01]), // field 2, a varint: unknown to the message
      bytes([0x08, 0x01]), // field 1 as a varint
      bytes(encoded(get, { uid: 'a' }), [0x82, 0x01, 0x01, 0x62]), // field 16: a two-byte tag
      utf8,
      bytes([0x0a, 0x02, 0xc3, 0x28]), // invalid UTF-8
      bytes([0x0a, 0x05, 0x61]), // a length past the end
      bytes([0x0a]), // a tag and no length
      bytes([0x0a, 0x80]), // a length cut off
      bytes([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), // a length of 2^32 - 1
    ]) agrees(get, Buffer.from(wire));
    expect(requestDecoder(get)(Buffer.from(utf8))).toMatchObject({ uid: 'grüße ✓' });
  });
});
