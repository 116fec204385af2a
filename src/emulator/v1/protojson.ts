/**
 * A small schema-driven protojson codec: the one place that knows how
 * grpc-gateway's default marshaler turns v1 messages into JSON and back
 * (api-surface.md §0.2). Every resource, request body and query string goes
 * through it, so EmitUnpopulated, oneof omission, name aliasing and unknown-key
 * discarding behave identically everywhere.
 */
import { canonicalDuration, formatTimestamp, parseTimestamp } from './time.ts';

/**
 * `int64` values are kept as canonical decimal strings (protojson prints them
 * as strings, and JavaScript numbers cannot hold them); `bytes` as standard
 * padded base64; `duration` (google.protobuf.Duration) as protojson prints it.
 */
export type ScalarType = 'string' | 'bool' | 'int32' | 'uint32' | 'int64' | 'bytes' | 'timestamp' | 'duration';

export interface EnumDef {
  readonly name: string;
  /** Value names by number; the zero value is the default. */
  readonly values: Readonly<Record<string, number>>;
}

export interface MessageDef {
  readonly name: string;
  readonly fields: readonly FieldDef[];
}

export type FieldType = ScalarType | EnumDef | MessageDef;

export interface FieldDef {
  readonly proto: string;
  readonly json: string;
  readonly type: FieldType;
  readonly card: 'single' | 'repeated' | 'map';
  /** Map key type when it is not a string: int64 keys are checked and printed canonically. */
  readonly key?: 'int64';
  readonly oneof?: string;
  /** proto3 `optional`: omitted from output when unset, unlike plain scalars. */
  readonly optional?: boolean;
}

/** A decoded message: set fields only, keyed by JSON name. */
export type Message = Record<string, unknown>;

export class ProtoJsonError extends Error {}

interface FieldOptions {
  json?: string;
  card?: 'repeated' | 'map';
  key?: 'int64';
  oneof?: string;
  optional?: boolean;
}

/** protojson's default JSON name: lowerCamelCase of the proto name. */
function lowerCamel(proto: string): string {
  return proto.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function field(proto: string, type: FieldType, options: FieldOptions = {}): FieldDef {
  const { json = lowerCamel(proto), card = 'single', ...rest } = options;
  return { proto, json, type, card, ...rest };
}

export function message(name: string, fields: readonly FieldDef[]): MessageDef {
  return { name, fields };
}

export function enumeration(name: string, names: readonly string[] | Readonly<Record<string, number>>): EnumDef {
  const values = Array.isArray(names) ? Object.fromEntries(names.map((n, i) => [n, i])) : names;
  return { name, values: values as Record<string, number> };
}

function isMessageDef(type: FieldType): type is MessageDef {
  return typeof type === 'object' && 'fields' in type;
}

function isEnumDef(type: FieldType): type is EnumDef {
  return typeof type === 'object' && 'values' in type;
}

export function enumName(def: EnumDef, value: unknown): string | number {
  if (typeof value === 'string') return value;
  const hit = Object.entries(def.values).find(([, n]) => n === value);
  return hit ? hit[0] : (value as number);
}

function zeroEnum(def: EnumDef): string {
  return enumName(def, 0) as string;
}

function findField(def: MessageDef, key: string): FieldDef | undefined {
  return def.fields.find((f) => f.json === key || f.proto === key);
}

// ---------------------------------------------------------------- decoding

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decodeInteger(value: unknown, unsigned: boolean, where: string): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  const min = unsigned ? 0 : -(2 ** 31);
  const max = unsigned ? 2 ** 32 - 1 : 2 ** 31 - 1;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw new ProtoJsonError(`invalid value for ${unsigned ? 'uint32' : 'int32'} field ${where}: ${JSON.stringify(value)}`);
  }
  return n;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** protojson takes an int64 as a JSON number or a decimal string; it is kept as the canonical string. */
function decodeInt64(value: unknown, where: string): string {
  const text = typeof value === 'number' && Number.isInteger(value) ? String(value) : value;
  if (typeof text === 'string' && /^-?\d+$/.test(text)) {
    const n = BigInt(text);
    if (n >= INT64_MIN && n <= INT64_MAX) return n.toString();
  }
  throw new ProtoJsonError(`invalid value for int64 field ${where}: ${JSON.stringify(value)}`);
}

/** protojson accepts standard or URL-safe base64, padded or not, and prints standard padded base64. */
function decodeBytes(value: unknown, where: string): string {
  if (typeof value === 'string' && /^[A-Za-z0-9+/_-]*={0,2}$/.test(value) && value.replace(/=+$/, '').length % 4 !== 1) {
    return Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('base64');
  }
  throw new ProtoJsonError(`invalid value for bytes field ${where}: ${JSON.stringify(value)}`);
}

function decodeEnum(def: EnumDef, value: unknown, where: string): string | number {
  if (typeof value === 'string' && value in def.values) return value;
  if (typeof value === 'number' && Number.isInteger(value)) return enumName(def, value);
  throw new ProtoJsonError(`invalid value for enum field ${where}: ${JSON.stringify(value)}`);
}

function decodeSingle(type: FieldType, value: unknown, where: string): unknown {
  if (isMessageDef(type)) return decodeMessage(type, value, where);
  if (isEnumDef(type)) return decodeEnum(type, value, where);
  switch (type) {
    case 'string':
      if (typeof value !== 'string') throw new ProtoJsonError(`invalid value for string field ${where}: ${JSON.stringify(value)}`);
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw new ProtoJsonError(`invalid value for bool field ${where}: ${JSON.stringify(value)}`);
      return value;
    case 'int32':
    case 'uint32':
      return decodeInteger(value, type === 'uint32', where);
    case 'int64':
      return decodeInt64(value, where);
    case 'bytes':
      return decodeBytes(value, where);
    case 'duration': {
      const canonical = typeof value === 'string' ? canonicalDuration(value) : undefined;
      if (canonical === undefined) throw new ProtoJsonError(`invalid google.protobuf.Duration value for ${where}: ${JSON.stringify(value)}`);
      return canonical;
    }
    case 'timestamp': {
      const parsed = typeof value === 'string' ? parseTimestamp(value) : undefined;
      if (!parsed) throw new ProtoJsonError(`invalid google.protobuf.Timestamp value for ${where}: ${JSON.stringify(value)}`);
      return formatTimestamp(parsed);
    }
  }
}

function decodeField(f: FieldDef, value: unknown, where: string): unknown {
  if (f.card === 'repeated') {
    if (!Array.isArray(value)) throw new ProtoJsonError(`invalid value for repeated field ${where}: expected array`);
    return value.map((v, i) => decodeSingle(f.type, v, `${where}[${i}]`));
  }
  if (f.card === 'map') {
    if (!isPlainObject(value)) throw new ProtoJsonError(`invalid value for map field ${where}: expected object`);
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [f.key === 'int64' ? decodeInt64(k, `${where} key`) : k, decodeSingle(f.type, v, `${where}[${k}]`)]),
    );
  }
  return decodeSingle(f.type, value, where);
}

/**
 * protojson.Unmarshal with DiscardUnknown: JSON or proto names, unknown keys
 * dropped, `null` meaning "unset", a second member of a oneof rejected.
 */
export function decodeMessage(def: MessageDef, value: unknown, where = def.name): Message {
  if (!isPlainObject(value)) throw new ProtoJsonError(`invalid value for message ${where}: expected object`);
  const out: Message = {};
  const oneofs = new Map<string, string>();
  for (const [key, raw] of Object.entries(value)) {
    const f = findField(def, key);
    if (!f || raw === null) continue;
    if (f.json in out) throw new ProtoJsonError(`duplicate field ${where}.${f.json}`);
    if (f.oneof) {
      const taken = oneofs.get(f.oneof);
      if (taken) throw new ProtoJsonError(`error parsing ${JSON.stringify(key)}, oneof ${where}.${f.oneof} is already set (${taken})`);
      oneofs.set(f.oneof, f.json);
    }
    out[f.json] = decodeField(f, raw, `${where}.${f.json}`);
  }
  return out;
}

/** Parses a request body the way grpc-gateway does: an empty body is an empty message. */
export function decodeBody(def: MessageDef, body: string): Message {
  return decodeMessage(def, parseJson(body), def.name);
}

export function parseJson(body: string): unknown {
  if (body.trim() === '') return {};
  try {
    return JSON.parse(body) as unknown;
  } catch (err) {
    throw new ProtoJsonError(`proto: syntax error: ${(err as Error).message}`);
  }
}

// ---------------------------------------------------------------- query strings

/** strconv.ParseBool, which grpc-gateway uses for bool query parameters. */
function parseBool(value: string, key: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new ProtoJsonError(`type mismatch, parameter: ${key}, error: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

function decodeQueryValue(type: FieldType, value: string, key: string): unknown {
  if (type === 'bool') return parseBool(value, key);
  if (type === 'int32' || type === 'uint32') return decodeInteger(value, type === 'uint32', key);
  if (isEnumDef(type)) return decodeEnum(type, /^-?\d+$/.test(value) ? Number(value) : value, key);
  return decodeSingle(type, value, key);
}

/**
 * grpc-gateway's query-parameter population: dotted paths through singular
 * messages, each segment by proto or JSON name; repeated fields by repeating
 * the key; unknown keys ignored; several values for a singular field rejected.
 */
export function decodeQuery(def: MessageDef, params: URLSearchParams): Message {
  const out: Message = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    const path = key.split('.');
    let target = out;
    let current: MessageDef | undefined = def;
    for (let i = 0; i < path.length && current; i++) {
      const f = findField(current, path[i]!);
      if (!f) break;
      const last = i === path.length - 1;
      if (!last) {
        if (!isMessageDef(f.type) || f.card !== 'single') break;
        target = (target[f.json] ??= {}) as Message;
        current = f.type;
        continue;
      }
      if (isMessageDef(f.type) || f.card === 'map') break;
      if (f.card === 'repeated') {
        target[f.json] = values.map((v) => decodeQueryValue(f.type, v, key));
      } else if (values.length > 1) {
        throw new ProtoJsonError(`too many values for field ${JSON.stringify(f.proto)}: ${values.join(', ')}`);
      } else {
        target[f.json] = decodeQueryValue(f.type, values[0]!, key);
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------- rendering

function zeroValue(f: FieldDef): unknown {
  if (f.card === 'repeated') return [];
  if (f.card === 'map') return {};
  if (isMessageDef(f.type) || f.type === 'timestamp' || f.type === 'duration') return null;
  if (isEnumDef(f.type)) return zeroEnum(f.type);
  switch (f.type) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    case 'int64':
      return '0';
    default:
      return 0;
  }
}

function renderSingle(type: FieldType, value: unknown): unknown {
  if (isMessageDef(type)) return renderMessage(type, value as Message);
  if (isEnumDef(type)) return enumName(type, value);
  return value;
}

/**
 * protojson.Marshal with EmitUnpopulated: every field with its zero value,
 * except unset oneof members and unset proto3 `optional` fields. Keys that
 * are not fields of the message (internal bookkeeping) never leak.
 */
export function renderMessage(def: MessageDef, value: Message): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of def.fields) {
    const v = value[f.json];
    if (v === undefined || v === null) {
      if (!f.oneof && !f.optional) out[f.json] = zeroValue(f);
      continue;
    }
    if (f.card === 'repeated') out[f.json] = (v as unknown[]).map((item) => renderSingle(f.type, item));
    else if (f.card === 'map') {
      out[f.json] = Object.fromEntries(Object.entries(v as Message).map(([k, item]) => [k, renderSingle(f.type, item)]));
    } else out[f.json] = renderSingle(f.type, v);
  }
  return out;
}
