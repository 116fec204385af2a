/**
 * documentToBinary against protobuf-es (fromJson, then toBinary), byte for
 * byte: over random answers of every RPC of the contract, over the Timestamps
 * protojson allows (and the ones it refuses), and over the documents it must
 * give up on, for which it answers undefined and the caller encodes the slow way.
 */
import { create, fromJson, ScalarType, toBinary, toJson, type DescField, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { apiServices, contract } from '../../../src/contract/registry.ts';
import { documentBytes, documentToBinary, framedDocument } from '../../../src/transport/grpc/document-binary.ts';
import { frame } from '../../../src/transport/grpc/envelope.ts';
import { prng } from '../../support/prng.ts';

function slow(desc: DescMessage, document: JsonValue): Uint8Array | 'refused' {
  try {
    return toBinary(desc, fromJson(desc, document));
  } catch {
    return 'refused';
  }
}

/** What the encoder must answer: protobuf-es's bytes, or (where protobuf-es refuses the document) undefined. */
function expectSameAsProtobufEs(desc: DescMessage, document: JsonValue, label: string): void {
  const expected = slow(desc, document);
  const actual = documentToBinary(desc, document);
  if (expected === 'refused') expect(actual, label).toBeUndefined();
  else expect(actual && Buffer.from(actual).toString('hex'), label).toBe(Buffer.from(expected).toString('hex'));
}

const outputs = [...new Map(apiServices().flatMap((s) => s.methods).map((m) => [m.output.typeName, m.output])).values()];

/** Whether the encoder writes a field's values itself (the rest it gives up on: bytes, other well-known types). */
function supported(field: DescField): boolean {
  const message = field.fieldKind === 'message' || (field.fieldKind === 'list' && field.listKind === 'message') || (field.fieldKind === 'map' && field.mapKind === 'message') ? field.message : undefined;
  if (message) return !message.typeName.startsWith('google.protobuf.') || message.typeName === 'google.protobuf.Timestamp' || message.typeName === 'google.protobuf.Empty';
  if (field.fieldKind === 'enum' || (field.fieldKind === 'list' && field.listKind === 'enum') || (field.fieldKind === 'map' && field.mapKind === 'enum')) return true;
  return [ScalarType.STRING, ScalarType.INT32, ScalarType.INT64, ScalarType.BOOL].includes(field.scalar!);
}

/** A random message of `desc`: each supported field set or not, zero values included, nested to a few levels. */
function randomMessage(desc: DescMessage, random: () => number, depth = 0): Record<string, unknown> {
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const string = () => pick(['', 'a', 'group 7', 'ünïcødé ✓', '0123456789abcdef0123456789abcdef01234567/0a1b2c3d4e5f6a7b', 'x'.repeat(300)]);
  const int32 = () => pick([0, 1, 127, 128, 300, 2 ** 31 - 1, -1, -(2 ** 31)]);
  const int64 = () => pick([0n, 1n, 1000n, 2n ** 53n + 1n, 2n ** 63n - 1n, -1n, -(2n ** 63n)]);
  const timestamp = () => ({ seconds: pick([0n, 1n, 1_700_000_000n, -1n, -62135596800n, 253402300799n]), nanos: pick([0, 1, 123_000_000, 999_999_999, 500]) });
  const value = (field: DescField, kind: 'scalar' | 'enum' | 'message'): unknown => {
    if (kind === 'enum') return pick(field.enum!.values).number;
    if (kind === 'message') {
      const message = field.message!;
      if (message.typeName === 'google.protobuf.Timestamp') return timestamp();
      return depth > 3 ? {} : randomMessage(message, random, depth + 1);
    }
    switch (field.scalar) {
      case ScalarType.STRING: return string();
      case ScalarType.INT32: return int32();
      case ScalarType.INT64: return int64();
      case ScalarType.BOOL: return random() < 0.5;
      default: throw new Error(`unexpected scalar ${field.scalar}`);
    }
  };
  const init: Record<string, unknown> = {};
  for (const field of desc.fields) {
    if (!supported(field) || random() < 0.3) continue;
    const key = field.oneof ? field.oneof.localName : field.localName;
    if (field.oneof && init[key] !== undefined) continue;
    let v: unknown;
    if (field.fieldKind === 'list') v = Array.from({ length: Math.floor(random() * 4) }, () => value(field, field.listKind));
    else if (field.fieldKind === 'map') {
      v = Object.fromEntries(Array.from({ length: Math.floor(random() * 3) }, (_, i) => [field.mapKey === ScalarType.STRING ? `${string()}${i}` : String(int64()), value(field, field.mapKind)]));
    } else v = value(field, field.fieldKind);
    init[key] = field.oneof ? { case: field.localName, value: v } : v;
  }
  return init;
}

describe('documentToBinary', () => {
  it('writes every RPC\'s random answers byte for byte as protobuf-es does, giving up on none', () => {
    const random = prng(20261126);
    let checked = 0;
    for (const desc of outputs) {
      for (let i = 0; i < 40; i++) {
        const message = create(desc, randomMessage(desc, random) as never);
        const document = toJson(desc, message, { registry: contract }) as JsonValue;
        const actual = documentToBinary(desc, document);
        expect(actual, `${desc.typeName} #${i}`).toBeDefined();
        expect(Buffer.from(actual!).toString('hex'), `${desc.typeName} #${i} ${JSON.stringify(document).slice(0, 300)}`).toBe(Buffer.from(toBinary(desc, fromJson(desc, document))).toString('hex'));
        checked++;
      }
    }
    expect(outputs.length).toBeGreaterThan(40); // every answer type of the contract, not a few
    expect(checked).toBe(outputs.length * 40);
  });

  const group = contract.getMessage('chainguard.platform.iam.v2beta1.Group')!;

  it('framed as gRPC\'s one message in one buffer: the same bytes as the message framed after it is written, written or given up on', () => {
    const random = prng(20261129);
    const documents: [DescMessage, JsonValue][] = outputs.map((desc) => [desc, toJson(desc, create(desc, randomMessage(desc, random) as never), { registry: contract }) as JsonValue]);
    // Given up on, protobuf-es writes it (accepting an enum's number).
    documents.push([group, { uid: 'g', kind: 2 }], [group, {}]);
    for (const [desc, document] of documents) {
      expect(framedDocument(desc, document).toString('hex'), desc.typeName).toBe(frame(documentBytes(desc, document)).toString('hex'));
    }
  });

  it('writes each answer alone, whatever was written before it: a huge one, one given up halfway', () => {
    // The writes are kept between answers (document-binary.ts, Ops.shared): nothing of one may reach the next.
    const listGroups = contract.getMessage('chainguard.platform.iam.v2beta1.ListGroupsResponse')!;
    const row = (i: number) => ({ uid: `org/${i}`, name: `group ${i}`, description: 'd'.repeat(i % 7), createTime: '2026-11-26T15:59:00.123Z', verified: i % 2 === 0 });
    const small = { groups: [row(1), row(2)], nextPageToken: 'next' };
    const huge = { groups: Array.from({ length: 3_000 }, (_, i) => row(i)), totalCount: 3000 };
    const givenUp = { groups: [row(3), row(4), { uid: 'x', createTime: 17 }] };
    for (const document of [small, huge, small, givenUp, small, huge, huge, small] as JsonValue[]) {
      expectSameAsProtobufEs(listGroups, document, JSON.stringify(document).slice(0, 80));
    }
    expect(documentToBinary(listGroups, givenUp as JsonValue)).toBeUndefined();
  });

  it('reads every Timestamp protojson allows as protobuf-es does, and refuses the rest', () => {
    const times = [
      '1970-01-01T00:00:00Z', '2024-01-02T03:04:05Z', '2024-01-02T03:04:05.1Z', '2024-01-02T03:04:05.123456789Z', '2024-01-02T03:04:05.000000001Z',
      '2024-02-29T12:00:00Z', '2000-02-29T00:00:00Z', '1900-03-01T00:00:00Z', '1969-12-31T23:59:59.5Z', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999999999Z',
      '2024-01-02T03:04:05+05:30', '2024-01-02T03:04:05.25-08:00', '0001-01-01T00:00:00+00:01', '9999-12-31T23:59:59-00:01', '2024-01-02T03:04:05+23:59',
      // Past the usual ranges: Date.parse decides, for protobuf-es and for the encoder alike.
      '2023-02-29T00:00:00Z', '2024-04-31T00:00:00Z', '2024-01-01T24:00:00Z', '2024-01-01T00:00:60Z', '2024-13-01T00:00:00Z', '2024-00-10T00:00:00Z', '2024-01-02T03:04:05+24:00',
      // Not RFC 3339 as protojson has it.
      '2024-01-02T03:04:05', '2024-01-02t03:04:05Z', '2024-01-02T03:04:05z', '2024-01-02 03:04:05Z', '2024-01-02T03:04:05.Z', '2024-01-02T03:04:05.1234567891Z', '24-01-02T03:04:05Z', '',
    ];
    for (const time of times) expectSameAsProtobufEs(group, { uid: 'g', createTime: time }, time);
  });

  it('gives up on what it is not sure of (protobuf-es then decides, accepting some of it)', () => {
    const listGroups = contract.getMessage('chainguard.platform.iam.v2beta1.ListGroupsResponse')!;
    const cases: [DescMessage, JsonValue][] = [
      [group, { uid: 'g', unknownKey: 1 }],
      [group, { uid: 'g', name: 7 }],
      [group, { uid: 'g', verified: 'true' }],
      [group, { uid: 'g', kind: 'NOT_A_KIND' }],
      [group, { uid: 'g', kind: 2 }],
      [group, { uid: 'g', resourceLimits: { a: '1' } }],
      [group, { uid: 'g', resource_limits: { a: 1 }, resourceLimits: { a: 2 } }],
      [group, { uid: 'g', createTime: 1700000000 }],
      [group, ['not', 'an', 'object']],
      [listGroups, { groups: [null] }],
      [listGroups, { totalCount: '9223372036854775808' }],
      [listGroups, { totalCount: 1.5 }],
    ];
    for (const [desc, document] of cases) expect(documentToBinary(desc, document), JSON.stringify(document)).toBeUndefined();
  });

  it('takes what protojson also allows in the form the gateway writes it: proto names, nulls, int64 as numbers', () => {
    const listGroups = contract.getMessage('chainguard.platform.iam.v2beta1.ListGroupsResponse')!;
    const documents: [DescMessage, JsonValue][] = [
      [group, { uid: 'g', resource_limits: { a: 1 }, create_time: '2024-01-02T03:04:05Z' }],
      [group, { uid: 'g', description: null, createTime: null }],
      [listGroups, { groups: [], nextPageToken: '', totalCount: 0, skipped: 0 }],
      [contract.getMessage('chainguard.platform.iam.v2beta1.AccountAssociation.GitHubInstallation')!, { installationId: '00', name: '' }],
      [listGroups, { totalCount: '1000', groups: [{ uid: 'a', verified: true }] }],
    ];
    for (const [desc, document] of documents) {
      expect(documentToBinary(desc, document), JSON.stringify(document)).toBeDefined();
      expectSameAsProtobufEs(desc, document, JSON.stringify(document));
    }
  });
});
