/**
 * An answer's v2 document (protojson, as REST sends it) written straight as
 * the protobuf binary the gRPC client reads, without first building the
 * message (`fromJson`, then `toBinary`): over gRPC that round trip was
 * protobuf-es's share of a call, ~6% of a Get's CPU under load and ~170 µs of
 * a List page of 50 groups (bench/README.md).
 *
 * It writes only what it is certain of: the field kinds and well-known types
 * the contract's answers use, each value in the form the gateway renders it.
 * Anything else (a key that names no field, a value of another JSON type, an
 * enum given by number, a well-known type other than Timestamp and Empty, two
 * members of one oneof) makes it give up, and the
 * caller builds the message as before, which answers exactly as protobuf-es
 * does, errors included. Fields are written in field-number order, as
 * protobuf-es writes them; a test holds the two byte for byte over random
 * answers of every RPC (test/transport/grpc/document-binary.test.ts). Pure.
 */
import { fromJson, ScalarType, toBinary, type DescEnum, type DescField, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { FeatureSet_FieldPresence } from '@bufbuild/protobuf/wkt';
import { frame, PREFIX_BYTES, putPrefix } from './envelope.ts';

/** Gave up: the caller encodes the slow way. Thrown, as it can happen at any depth, and caught below. */
const NOT_PLAIN = new Error('not a document this encoder is sure of');

/** An answer's document as the protobuf binary of `desc`: written directly when it can be, else by protobuf-es (which throws on a document that is no `desc`). */
export function documentBytes(desc: DescMessage, document: JsonValue): Uint8Array {
  return documentToBinary(desc, document) ?? toBinary(desc, fromJson(desc, document));
}

/**
 * `documentBytes` as gRPC's one message of an answer (envelope.ts, `frame`): written after the message's
 * prefix in one buffer, not written and then copied into a second.
 */
export function framedDocument(desc: DescMessage, document: JsonValue): Buffer {
  return written(desc, document, PREFIX_BYTES) ?? frame(toBinary(desc, fromJson(desc, document)));
}

/** The binary form of `document` as a `desc`, or undefined when it is not one this encoder is sure of. */
export function documentToBinary(desc: DescMessage, document: unknown): Uint8Array | undefined {
  return written(desc, document, 0);
}

/** The binary form, after `prefix` bytes of gRPC's message prefix (none: 0); undefined as documentToBinary. */
function written(desc: DescMessage, document: unknown, prefix: 0 | typeof PREFIX_BYTES): Buffer | undefined {
  const out = Ops.shared();
  try {
    writeMessage(out, planOf(desc), document);
    return out.finish(prefix);
  } catch (error) {
    if (error === NOT_PLAIN) return undefined;
    throw error;
  } finally {
    out.clear();
  }
}

// ---- what each message's fields need, worked out once per message type --------------------------

const Kind = { String: 0, Int32: 1, Int64: 2, Bool: 3, Enum: 4, Message: 5, Timestamp: 6, Empty: 7, Unsupported: 8 } as const;
type Kind = (typeof Kind)[keyof typeof Kind];

/** Varints for numbers, bools and enums; a length and bytes for the rest (any kind given up on is never written). */
function wireOf(kind: Kind): number {
  return kind === Kind.Int32 || kind === Kind.Int64 || kind === Kind.Bool || kind === Kind.Enum ? WIRE_VARINT : WIRE_LEN;
}

interface FieldPlan {
  jsonName: string;
  /** protojson accepts the proto name too; null when it is the JSON name. */
  protoName: string | null;
  /** The value's kind: of the field, a list's elements, or a map's values. */
  kind: Kind;
  /** The tag as its varint value (number << 3 | wire type): for lists and maps, of each element or entry. */
  tag: number;
  /** Implicit presence: a zero value is not written. */
  implicit: boolean;
  repeated: 'no' | 'list' | 'packed' | 'map';
  mapKey: 'string' | 'int64' | null;
  message: MessagePlan | null;
  enumValues: Map<string, number> | null;
  enumZero: number;
  oneof: string | null;
}

interface MessagePlan {
  fields: FieldPlan[];
}

const plans = new WeakMap<DescMessage, MessagePlan>();

function planOf(desc: DescMessage): MessagePlan {
  let plan = plans.get(desc);
  if (plan) return plan;
  plan = { fields: [] };
  // Registered before its fields are planned, so a message that contains itself finds it.
  plans.set(desc, plan);
  for (const field of [...desc.fields].sort((a, b) => a.number - b.number)) {
    plan.fields.push(planField(field));
  }
  return plan;
}

const WIRE_VARINT = 0;
const WIRE_LEN = 2;

function planField(field: DescField): FieldPlan {
  const kind = kindOf(field);
  const wire = wireOf(kind);
  const repeated = field.fieldKind === 'map' ? 'map' : field.fieldKind === 'list' ? (field.packed && wire === WIRE_VARINT ? 'packed' : 'list') : 'no';
  const enumDesc = enumOf(field);
  const message = messageOf(field);
  return {
    jsonName: field.jsonName,
    protoName: field.name === field.jsonName ? null : field.name,
    kind,
    tag: (field.number << 3) | (repeated === 'packed' || repeated === 'map' ? WIRE_LEN : wire),
    implicit: field.presence === FeatureSet_FieldPresence.IMPLICIT && !field.oneof && field.fieldKind !== 'message',
    repeated,
    mapKey: field.fieldKind !== 'map' ? null : field.mapKey === ScalarType.STRING ? 'string' : field.mapKey === ScalarType.INT64 ? 'int64' : null,
    message: message && kind === Kind.Message ? planOf(message) : null,
    enumValues: enumDesc && enumDesc.typeName !== 'google.protobuf.NullValue' ? new Map(enumDesc.values.map((v) => [v.name, v.number])) : null,
    enumZero: enumDesc?.values[0]?.number ?? 0,
    oneof: field.oneof?.name ?? null,
  };
}

/** The message type of a field's values (the field's own, a list's elements', a map's values'), if they are messages. */
function messageOf(field: DescField): DescMessage | undefined {
  if (field.fieldKind === 'message') return field.message;
  if (field.fieldKind === 'list') return field.listKind === 'message' ? field.message : undefined;
  if (field.fieldKind === 'map') return field.mapKind === 'message' ? field.message : undefined;
  return undefined;
}

/** The enum of a field's values, if they are an enum's. */
function enumOf(field: DescField): DescEnum | undefined {
  if (field.fieldKind === 'enum') return field.enum;
  if (field.fieldKind === 'list') return field.listKind === 'enum' ? field.enum : undefined;
  if (field.fieldKind === 'map') return field.mapKind === 'enum' ? field.enum : undefined;
  return undefined;
}

function kindOf(field: DescField): Kind {
  const message = messageOf(field);
  if (message) {
    if (message.typeName === 'google.protobuf.Timestamp') return Kind.Timestamp;
    if (message.typeName === 'google.protobuf.Empty') return Kind.Empty;
    return message.typeName.startsWith('google.protobuf.') ? Kind.Unsupported : Kind.Message;
  }
  if (enumOf(field)) return Kind.Enum;
  switch (field.scalar) {
    case ScalarType.STRING: return Kind.String;
    case ScalarType.INT32: return Kind.Int32;
    case ScalarType.INT64: return Kind.Int64;
    case ScalarType.BOOL: return Kind.Bool;
    default: return Kind.Unsupported;
  }
}

// ---- the document walked once, into a list of writes with every length known ---------------------

function writeMessage(out: Ops, plan: MessagePlan, document: unknown): void {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw NOT_PLAIN;
  const json = document as Record<string, unknown>;
  let keys = 0;
  for (const _ in json) keys++;
  let seen = 0;
  let oneofs: Set<string> | undefined;
  for (const field of plan.fields) {
    let value = json[field.jsonName];
    if (value === undefined && field.protoName !== null) value = json[field.protoName];
    if (value === undefined) {
      if (field.jsonName in json || (field.protoName !== null && field.protoName in json)) throw NOT_PLAIN;
      continue;
    }
    seen++;
    if (value === null) continue; // protojson's null: the field is unset
    if (field.oneof !== null) {
      oneofs ??= new Set();
      if (oneofs.has(field.oneof)) throw NOT_PLAIN;
      oneofs.add(field.oneof);
    }
    writeField(out, field, value);
  }
  // A key that names no field, or one field given twice (by its JSON name and its proto name).
  if (seen !== keys) throw NOT_PLAIN;
}

function writeField(out: Ops, field: FieldPlan, value: unknown): void {
  switch (field.repeated) {
    case 'no':
      if (field.implicit && isZero(field, value)) return;
      out.varint(field.tag);
      return writeValue(out, field, value);
    case 'list':
      if (!Array.isArray(value)) throw NOT_PLAIN;
      for (const item of value) {
        if (item === null) throw NOT_PLAIN;
        out.varint(field.tag);
        writeValue(out, field, item);
      }
      return;
    case 'packed': {
      if (!Array.isArray(value)) throw NOT_PLAIN;
      if (value.length === 0) return;
      out.varint(field.tag);
      const length = out.beginLength();
      for (const item of value) writeValue(out, field, item);
      return out.endLength(length);
    }
    case 'map': {
      if (typeof value !== 'object' || Array.isArray(value) || field.mapKey === null) throw NOT_PLAIN;
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        if (item === null) throw NOT_PLAIN;
        out.varint(field.tag);
        const length = out.beginLength();
        // An entry holds its key and its value, zero or not, as protobuf-es writes it.
        if (field.mapKey === 'string') {
          out.varint((1 << 3) | WIRE_LEN);
          out.string(key);
        } else {
          out.varint((1 << 3) | WIRE_VARINT);
          out.int64(int64Of(key));
        }
        out.varint((2 << 3) | wireOf(field.kind));
        writeValue(out, field, item);
        out.endLength(length);
      }
      return;
    }
  }
}

/** A value without its tag. */
function writeValue(out: Ops, field: FieldPlan, value: unknown): void {
  switch (field.kind) {
    case Kind.String:
      if (typeof value !== 'string') throw NOT_PLAIN;
      return out.string(value);
    case Kind.Int32:
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) throw NOT_PLAIN;
      return value >= 0 ? out.varint(value) : out.int64(BigInt.asUintN(64, BigInt(value))); // negative: sign-extended to 64 bits
    case Kind.Int64:
      return out.int64(int64Of(value));
    case Kind.Bool:
      if (typeof value !== 'boolean') throw NOT_PLAIN;
      return out.varint(value ? 1 : 0);
    case Kind.Enum:
      return out.varint(enumNumber(field, value));
    case Kind.Message: {
      const length = out.beginLength();
      writeMessage(out, field.message!, value);
      return out.endLength(length);
    }
    case Kind.Timestamp:
      return writeTimestamp(out, value);
    case Kind.Empty:
      if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length > 0) throw NOT_PLAIN;
      return out.varint(0);
    default:
      throw NOT_PLAIN;
  }
}

/** Whether an implicit-presence value is its type's zero, which is not written (compared exactly, so it is of the type). */
function isZero(field: FieldPlan, value: unknown): boolean {
  switch (field.kind) {
    case Kind.String: return value === '';
    case Kind.Int32: return value === 0;
    case Kind.Int64: return value === 0 || (typeof value === 'string' && /^-?0+$/.test(value));
    case Kind.Bool: return value === false;
    case Kind.Enum: return value === field.enumZero || (field.enumValues !== null && field.enumValues.get(value as string) === field.enumZero);
    default: return false;
  }
}

function enumNumber(field: FieldPlan, value: unknown): number {
  if (field.enumValues === null) throw NOT_PLAIN;
  const number = typeof value === 'string' ? field.enumValues.get(value) : undefined;
  if (number === undefined || number < 0) throw NOT_PLAIN;
  return number;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An int64 as protojson has it (a decimal string, or a number that is an exact integer), as the unsigned 64 bits its varint carries. */
function int64Of(value: unknown): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt.asUintN(64, BigInt(value));
  if (typeof value !== 'string' || !/^-?[0-9]{1,19}$/.test(value)) throw NOT_PLAIN;
  const n = BigInt(value);
  if (n < INT64_MIN || n > INT64_MAX) throw NOT_PLAIN;
  return BigInt.asUintN(64, n);
}

/**
 * RFC 3339 as protojson has a Timestamp (`2024-05-06T07:08:09.123Z`, an offset allowed), years 1 to
 * 9999, written as seconds and nanos since the epoch, each left out when zero. The common form is read
 * digit by digit; anything unusual (a day past its month's end, hour 24, a leap second) is left to
 * Date.parse, as protobuf-es reads every Timestamp.
 */
const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;
const FIRST_SECOND = Date.parse('0001-01-01T00:00:00Z') / 1000;
const LAST_SECOND = Date.parse('9999-12-31T23:59:59Z') / 1000;

function writeTimestamp(out: Ops, value: unknown): void {
  if (typeof value !== 'string') throw NOT_PLAIN;
  const [seconds, nanos] = commonTimestamp(value) ?? anyTimestamp(value);
  if (seconds < FIRST_SECOND || seconds > LAST_SECOND) throw NOT_PLAIN;
  const length = out.beginLength();
  if (seconds !== 0) {
    out.varint((1 << 3) | WIRE_VARINT);
    if (seconds > 0) out.varint(seconds);
    else out.int64(BigInt.asUintN(64, BigInt(seconds)));
  }
  if (nanos !== 0) {
    out.varint((2 << 3) | WIRE_VARINT);
    out.varint(nanos);
  }
  out.endLength(length);
}

/** Any Timestamp protojson accepts, read as protobuf-es reads it. */
function anyTimestamp(value: string): [number, number] {
  const parts = RFC3339.exec(value);
  if (!parts) throw NOT_PLAIN;
  const ms = Date.parse(parts[1]! + parts[3]!);
  if (Number.isNaN(ms)) throw NOT_PLAIN;
  return [ms / 1000, parts[2] ? Number(parts[2].padEnd(9, '0')) : 0];
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * `YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm)` with every part in its usual range, as [seconds since
 * the epoch, nanos]; undefined for anything else.
 */
function commonTimestamp(text: string): [number, number] | undefined {
  const length = text.length;
  if (length < 20 || !(isDigits(text, 0, 4) && text[4] === '-' && isDigits(text, 5, 2) && text[7] === '-' && isDigits(text, 8, 2) && text[10] === 'T'
    && isDigits(text, 11, 2) && text[13] === ':' && isDigits(text, 14, 2) && text[16] === ':' && isDigits(text, 17, 2))) return undefined;
  let at = 19;
  let nanos = 0;
  if (text[at] === '.') {
    let scale = 100_000_000;
    at++;
    const start = at;
    while (at < length && at - start < 9 && isDigits(text, at, 1)) {
      nanos += (text.charCodeAt(at) - 48) * scale;
      scale /= 10;
      at++;
    }
    if (at === start) return undefined;
  }
  let offset = 0;
  if (text[at] === 'Z' && at + 1 === length) {
    // UTC
  } else if ((text[at] === '+' || text[at] === '-') && at + 6 === length && isDigits(text, at + 1, 2) && text[at + 3] === ':' && isDigits(text, at + 4, 2)) {
    const zoneHours = digits(text, at + 1, 2);
    const zoneMinutes = digits(text, at + 4, 2);
    if (zoneHours > 23 || zoneMinutes > 59) return undefined;
    offset = (text[at] === '-' ? -1 : 1) * (zoneHours * 3600 + zoneMinutes * 60);
  } else {
    return undefined;
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]! + (month === 2 && leap ? 1 : 0) || hour > 23 || minute > 59 || second > 59) return undefined;
  return [daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset, nanos];
}

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (counted in 400-year eras, which repeat exactly). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

function isDigits(text: string, at: number, count: number): boolean {
  for (let i = at; i < at + count; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

function digits(text: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) n = n * 10 + text.charCodeAt(i) - 48;
  return n;
}

// ---- the writes: sized in one pass, copied into one buffer in the next -------------------------

const OP_VARINT = 0;
const OP_INT64 = 1;
const OP_STRING = 2;
const OP_LENGTH = 3;

/**
 * Above this many writes, the lists are let go after use rather than kept for the next answer: a
 * page of 50 groups is ~1,500, and one rare answer far larger must not be held for good.
 */
const KEPT_OPS = 16_384;

class Ops {
  static #shared: Ops | undefined;

  /**
   * One Ops for every answer, cleared after each (an answer is written synchronously, start to
   * finish): growing three fresh lists for each answer was ~2 KB of garbage a Get over gRPC.
   */
  static shared(): Ops {
    return (Ops.#shared ??= new Ops());
  }

  readonly #kinds: number[] = [];
  readonly #values: (number | bigint | string)[] = [];
  /** For OP_STRING, its UTF-8 length; for OP_LENGTH, the size of what it measures. */
  readonly #sizes: number[] = [];
  /** Writes so far: the lists may be longer, left over from an earlier answer (see clear). */
  #count = 0;
  #size = 0;

  varint(n: number): void {
    this.#push(OP_VARINT, n, 0);
    this.#size += varintSize(n);
  }

  int64(n: bigint): void {
    this.#push(OP_INT64, n, 0);
    this.#size += varint64Size(n);
  }

  string(s: string): void {
    const bytes = Buffer.byteLength(s, 'utf8');
    this.#push(OP_STRING, s, bytes);
    this.#size += varintSize(bytes) + bytes;
  }

  /** A length prefix for what is written until endLength(its index). */
  beginLength(): number {
    this.#push(OP_LENGTH, 0, this.#size);
    return this.#count - 1;
  }

  endLength(at: number): void {
    const length = this.#size - this.#sizes[at]!;
    this.#sizes[at] = length;
    this.#size += varintSize(length);
  }

  #push(kind: number, value: number | bigint | string, size: number): void {
    const at = this.#count++;
    this.#kinds[at] = kind;
    this.#values[at] = value;
    this.#sizes[at] = size;
  }

  /**
   * Forgets every write. The lists keep their length (setting it to 0 would give up their room) and
   * so the last answer's strings, until overwritten; lists grown past KEPT_OPS are let go instead.
   */
  clear(): void {
    if (this.#kinds.length > KEPT_OPS && this === Ops.#shared) Ops.#shared = undefined;
    this.#count = 0;
    this.#size = 0;
  }

  /** The bytes written, after gRPC's message prefix when `prefix` is its size. */
  finish(prefix: 0 | typeof PREFIX_BYTES): Buffer {
    const buffer = Buffer.allocUnsafe(prefix + this.#size);
    let at = 0;
    if (prefix) at = putPrefix(buffer, this.#size);
    const kinds = this.#kinds;
    for (let i = 0; i < this.#count; i++) {
      switch (kinds[i]) {
        case OP_VARINT:
          at = putVarint(buffer, at, this.#values[i] as number);
          break;
        case OP_INT64:
          at = putVarint64(buffer, at, this.#values[i] as bigint);
          break;
        case OP_STRING:
          at = putVarint(buffer, at, this.#sizes[i]!);
          at += buffer.write(this.#values[i] as string, at, 'utf8');
          break;
        case OP_LENGTH:
          at = putVarint(buffer, at, this.#sizes[i]!);
          break;
      }
    }
    return buffer;
  }
}

/** Bytes of a non-negative integer below 2^53 as a varint. */
function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

function varint64Size(n: bigint): number {
  let size = 1;
  while (n >= 0x80n) {
    n >>= 7n;
    size++;
  }
  return size;
}

function putVarint(buffer: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    buffer[at++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  buffer[at++] = n;
  return at;
}

function putVarint64(buffer: Buffer, at: number, n: bigint): number {
  while (n >= 0x80n) {
    buffer[at++] = Number(n & 0x7fn) | 0x80;
    n >>= 7n;
  }
  buffer[at++] = Number(n);
  return at;
}
