import { describe, expect, it } from 'vitest';
import { frame, UnaryRequestReader } from '../../../src/transport/grpc/envelope.ts';
import { grpcTimeoutMs } from '../../../src/transport/grpc/grpc-timeout.ts';

const prefix = (flags: number, length: number) => {
  const head = Buffer.alloc(5);
  head[0] = flags;
  head.writeUInt32BE(length, 1);
  return head;
};

function read(chunks: Buffer[], max = 1024) {
  const reader = new UnaryRequestReader(max);
  for (const chunk of chunks) {
    const problem = reader.push(chunk);
    if (problem) return problem;
  }
  return reader.end();
}

describe('gRPC envelope of a unary request', () => {
  it('frames a message with a zero flag and its big-endian length', () => {
    expect([...frame(Uint8Array.from([7, 8, 9]))]).toEqual([0, 0, 0, 0, 3, 7, 8, 9]);
    expect([...frame(new Uint8Array(0))]).toEqual([0, 0, 0, 0, 0]);
  });

  it('reads the one message however the body is cut into chunks', () => {
    const body = frame(Buffer.from('hello, world'));
    for (let cut = 0; cut <= body.length; cut++) {
      const got = read([body.subarray(0, cut), body.subarray(cut)]);
      expect(Buffer.from((got as { message: Uint8Array }).message).toString(), `cut at ${cut}`).toBe('hello, world');
    }
    expect(read(Array.from(body, (byte) => Buffer.from([byte])))).toEqual({ message: Buffer.from('hello, world') });
  });

  it('reads an empty message (every field unset) as a message', () => {
    expect(read([frame(new Uint8Array(0))])).toEqual({ message: Buffer.alloc(0) });
  });

  it('no message, or two, is a cardinality violation', () => {
    expect(read([])).toMatchObject({ kind: 'cardinality' });
    expect(read([Buffer.concat([frame(Buffer.from('a')), frame(Buffer.from('b'))])])).toMatchObject({ kind: 'cardinality' });
    expect(read([frame(Buffer.from('a')), Buffer.from([0])])).toMatchObject({ kind: 'cardinality' });
  });

  it('refuses a message over the limit from its prefix alone, before the message arrives', () => {
    const reader = new UnaryRequestReader(10);
    expect(reader.push(prefix(0, 11))).toMatchObject({ kind: 'too-large', detail: expect.stringContaining('11 bytes') });
    expect(read([prefix(0, 0xffffffff)], 10)).toMatchObject({ kind: 'too-large' });
    expect(read([frame(Buffer.alloc(10))], 10)).toEqual({ message: Buffer.alloc(10) });
  });

  it('a cut prefix, a short message, a compression flag or unknown flags are malformed', () => {
    expect(read([Buffer.from([0, 0])])).toMatchObject({ kind: 'malformed', detail: expect.stringContaining('2 of 5') });
    expect(read([prefix(0, 10), Buffer.alloc(3)])).toMatchObject({ kind: 'malformed', detail: expect.stringContaining('promises 10 bytes, and 3 came') });
    expect(read([prefix(1, 0)])).toMatchObject({ kind: 'malformed', detail: expect.stringContaining('compressed') });
    expect(read([prefix(0x80, 0)])).toMatchObject({ kind: 'malformed', detail: expect.stringContaining('0x80') });
  });
});

describe('grpc-timeout', () => {
  it('reads each unit into milliseconds', () => {
    expect(['1H', '2M', '3S', '4m', '5000u', '6000000n'].map(grpcTimeoutMs)).toEqual([3_600_000, 120_000, 3_000, 4, 5, 6]);
    expect(grpcTimeoutMs('0n')).toBe(0);
  });

  it('anything but 1 to 8 digits and a unit is malformed', () => {
    for (const bad of ['', 'S', '123456789S', '1s', '1.5S', ' 1S', '1S ', '-1S', '1h']) expect(grpcTimeoutMs(bad), bad).toBeNull();
  });
});
