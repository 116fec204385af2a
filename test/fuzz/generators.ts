/**
 * Request generators for the fuzz suite: every route and RPC of the contract
 * (served or not), filled with real uids from the world, hostile strings and
 * mutations. Pure functions of a Rand and the world: no I/O, so a request is
 * reproduced exactly from the run's seed and its index.
 *
 * Five channels:
 * - `rest`: any HTTP method on a route's template (both versions), with a
 *   query string and a body, sent over HTTP/1.1 with the path byte for byte;
 * - `grpc`: a typed message (built with `fromJson`, fields mutated within the
 *   schema's types) through the Connect client's gRPC transport;
 * - `grpc-raw`: bytes in (or out of) gRPC framing over HTTP/2: garbage,
 *   bit-flipped messages, lying lengths, compression flags, odd content types;
 * - `grpc-web`: the same bytes as gRPC-Web over HTTP/1.1;
 * - `connect`: the Connect protocol's JSON over HTTP/1.1, with mutated JSON.
 */
import { fromJson, toBinary, ScalarType, type DescField, type DescMessage, type DescMethod, type JsonValue } from '@bufbuild/protobuf';
import { bindContract } from '../../src/contract/bindings.ts';
import { apiServices, contract, httpRule } from '../../src/contract/registry.ts';
import { compileTemplate, byRank, type PathTemplate } from '../../src/transport/rest/path-template.ts';
import { MAPPINGS } from '../../mappings/index.ts';
import { TOKEN } from '../support/stack.ts';
import type { Rand } from './random.ts';
import { COLLECTIONS, KINDS, type Kind, type World } from './world.ts';

// ---- the contract's routes and RPCs ------------------------------------------------

export type RouteKind = 'list' | 'get' | 'create' | 'update' | 'delete' | 'custom';

export interface Route {
  rpc: DescMethod;
  verb: string;
  pattern: string;
  /** The request field the body fills, `*`, or ''. */
  body: string;
  kind: RouteKind;
  /** The resource the route's collection holds, when the gateway has a mapping for it. */
  resource: Kind | undefined;
  template: PathTemplate;
}

export const VERSIONS = ['v2beta1', 'v2'];

/** What a create's parent names, by the kind created (its mapping's `create.parentKind`). */
const PARENT_KIND: Partial<Record<string, Kind>> = Object.fromEntries(
  MAPPINGS.filter((m) => m.create).map((m) => [m.name, m.create!.parentKind as Kind]),
);

/** The request field that marks each standard method (AIP-131…135); a verb-named RPC without it (GetSize) is custom. */
const STANDARD_FIELD = { List: 'page_size', Get: 'uid', Create: 'parent', Update: 'update_mask', Delete: 'uid' } as const;

function routeKind(rpc: DescMethod): RouteKind {
  for (const [kind, field] of Object.entries(STANDARD_FIELD)) {
    if (rpc.name.startsWith(kind) && rpc.input.fields.some((f) => f.name === field)) return kind.toLowerCase() as RouteKind;
  }
  return 'custom';
}

function resourceOf(pattern: string): Kind | undefined {
  return KINDS.find((kind) => {
    const base = COLLECTIONS[kind];
    return pattern === base || pattern.startsWith(`${base}/`) || pattern.startsWith(`${base}:`);
  });
}

export const RPCS: DescMethod[] = apiServices().flatMap((s) => s.methods).filter((m) => m.methodKind === 'unary');

/** Every REST rule of the contract, its additional bindings included. */
export const ROUTES: Route[] = RPCS.flatMap((rpc) => {
  const rule = httpRule(rpc);
  if (!rule) return [];
  return [rule, ...rule.additional].map((r) => ({
    rpc,
    verb: r.verb.toUpperCase(),
    pattern: r.pattern,
    body: r.body,
    kind: routeKind(rpc),
    resource: resourceOf(r.pattern),
    template: compileTemplate(r.pattern, VERSIONS),
  }));
});

/** The route the gateway would pick for a method and a raw path (its own rules: HEAD is GET, trailing slashes dropped, most specific first). */
export function routeFor(method: string, rawPath: string): Route | undefined {
  const verb = method === 'HEAD' ? 'GET' : method;
  const path = rawPath.split('?', 1)[0]!.replace(/\/+$/, '');
  return ROUTES.filter((r) => r.verb === verb).sort((a, b) => byRank(a.template, b.template)).find((r) => r.template.match(path));
}

/** The RPCs the gateway serves: picked three times as often, since they reach past the router. */
const SERVED = new Set(bindContract(apiServices(), MAPPINGS).map((b) => b.method));
const servedFirst = <T>(items: readonly T[], rpc: (item: T) => DescMethod) => items.flatMap((item) => (SERVED.has(rpc(item)) ? [item, item, item] : [item]));
const ROUTE_DRAW = servedFirst(ROUTES, (r) => r.rpc);
const RPC_DRAW = servedFirst(RPCS, (m) => m);

const FILTERS: Partial<Record<Kind, string[]>> = Object.fromEntries(MAPPINGS.map((m) => [m.name, Object.keys(m.filters)]));

// ---- hostile text ------------------------------------------------------------------

const UNICODE = ['é', 'ß', '日本語', '\u{1F600}', 'ﬁ', '\u202E', '\u200B', 'Å', '\uFEFF', '\uFFFF', '\uE000', 'İ', 'ǅ', 'e\u0301', '\u{10FFFF}', '𝔘𝔫𝔦'];
const SPECIAL = [
  '', ' ', '..', '.', '/', '//', '%2F', '%2f', '%2e%2e', '%2F..%2F', '%00', '%', '%ZZ', '%E2%82', '?', '#', '&', '=', '+', ';', '\\', '"', "'", '`',
  '$1', '{}', '[]', '*', '**', ':', '@', '~', 'null', 'undefined', 'true', '0', '-1', 'NaN', '1e309', '9223372036854775808', "' OR 1=1 --",
  '%_%', '\t', '\n', '\r\n', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype', '../..', '/..', '..%2F', '.%2e', '%252F',
];
const HOSTILE = ['\u0000', 'a\u0000b', '\uD800', '\uDFFF', 'x\uDBFFy', '\uDC00\uD800'];
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
const WORDS = ['name', 'uid', 'a', 'x', 'fuzz', 'latest', 'viewer', 'owner', 'CAP_IAM_GROUPS_LIST', 'CAP_NOPE', 'REVIEW_STATE_APPROVED', 'sha256:abc', 'https://issuer.example', 'bot-0'];
const TIMES = ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00.123456789Z', '1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '0001-01-01T00:00:00Z', '2024-13-45T99:99:99Z', '2024-01-01', 'yesterday', '-1', '1700000000', '2024-01-01T00:00:00+25:00'];

/** What a stack trace or a source path looks like in an answer; generated text never contains it, so an answer echoing input cannot trip the check. */
export const LEAKS: readonly (readonly [RegExp, string])[] = [
  [/\n\s+at \S/, 'a stack frame'],
  [/\bat (?:async )?(?:[\w$.<>[\] ]+ \()?(?:file:|node:|\/|[A-Za-z]:\\)[^\s)]*:\d+:\d+/, 'a stack frame'],
  [/\.ts:/, '`.ts:`'],
  [/\/work\//, '`/work/`'],
  [/node_modules/, '`node_modules`'],
  [/node:internal/, '`node:internal`'],
  [/file:\/\//, '`file://`'],
];

/** Text the fuzzer sends never looks like a leak itself. */
export function defang(text: string): string {
  return text.replace(/\bat /g, 'αt ').replace(/\.ts:/g, '.tz:').replace(/\/work\//g, '/wrk/').replace(/node_modules/g, 'node-mods')
    .replace(/node:internal/g, 'node-internal').replace(/file:\/\//g, 'file:/');
}

export function uidpLike(r: Rand, world: World): string {
  const real = r.pick(world.all);
  return r.weighted<string>([
    [3, () => r.hex(40)],
    [3, () => `${real}/${r.hex(16)}`],
    [2, () => `${r.hex(40)}/${r.hex(16)}/${r.hex(16)}`],
    [2, () => r.hex(r.int(1, 70))],
    [1, () => real.toUpperCase()],
    [1, () => `${real}/`],
    [1, () => `${real}//${r.hex(16)}`],
    [1, () => real.slice(0, -1)],
    [1, () => `${real}/${r.hex(15)}g`],
    [1, () => `${real}/..`],
    [1, () => `${real}/../${r.hex(16)}`],
    [1, () => `/${real}`],
    [1, () => 'g'.repeat(40)],
    [1, () => `${real}%2F${r.hex(16)}`],
  ]);
}

/** A hostile or ordinary string. */
export function text(r: Rand, world: World, depth = 0): string {
  const out = r.weighted<string>([
    [16, () => r.pick(world.all)],
    [10, () => uidpLike(r, world)],
    [14, () => r.pick(SPECIAL)],
    [8, () => r.some(r.int(1, 4), () => r.pick(UNICODE)).join('')],
    [6, () => r.pick(HOSTILE)],
    [4, () => r.pick(['a', 'é', '\u{1F600}', 'x']).repeat(r.pick([256, 257, 1025, 4097, 65_537]))],
    [10, () => r.pick(WORDS)],
    [4, () => r.pick(TIMES)],
    [6, () => String.fromCharCode(...r.some(r.int(1, 24), () => r.int(0x20, 0x7e)))],
    [2, () => String.fromCharCode(...r.some(r.int(1, 8), () => r.int(0, 0xffff)))],
    [5, () => (depth < 2 ? r.some(r.int(2, 3), () => text(r, world, depth + 1)).join(r.pick(['', '/', ' ', ','])) : 'x')],
  ]);
  return defang(out);
}

// ---- JSON values and messages from the schema ---------------------------------------

function isUidField(name: string): boolean {
  return /(^|_)(uid|parent|group|role|identity|repo|default_role|uids|ids)$/.test(name) || /_uid$/.test(name);
}

/** A string for a field: real uids where the field names one, else hostile text. */
function stringFor(field: DescField, r: Rand, world: World, valid: boolean): string {
  if (isUidField(field.name) && r.chance(valid ? 0.7 : 0.4)) return r.pick(world.all);
  if (valid && r.chance(0.5)) return r.pick(WORDS);
  return text(r, world);
}

const INT32_EDGES = [0, 1, -1, 2, 25, 26, 200, 201, 2_147_483_647, -2_147_483_648, 1000];
const INT64_EDGES = ['0', '1', '-1', '9223372036854775807', '-9223372036854775808', '4294967296', '9007199254740993'];

function scalarJson(field: DescField, scalar: ScalarType, r: Rand, world: World, valid: boolean): JsonValue {
  switch (scalar) {
    case ScalarType.STRING: return stringFor(field, r, world, valid);
    case ScalarType.BOOL: return r.chance(0.5);
    case ScalarType.BYTES: return r.bytes(r.int(0, 40)).toString('base64');
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT: return r.pick<JsonValue>([0, -0.5, 1.5, 1e38, 'NaN', 'Infinity', '-Infinity']);
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32: return r.pick(INT32_EDGES);
    case ScalarType.UINT32:
    case ScalarType.FIXED32: return r.pick([0, 1, 25, 4_294_967_295]);
    case ScalarType.UINT64:
    case ScalarType.FIXED64: return r.pick(['0', '1', '18446744073709551615']);
    default: return r.pick(INT64_EDGES);
  }
}

/** A value of a message type as protojson; well-known types in their JSON forms. */
function messageValue(desc: DescMessage, r: Rand, world: World, valid: boolean, depth: number): JsonValue {
  switch (desc.typeName) {
    case 'google.protobuf.Timestamp': return r.pick(TIMES.slice(0, 5));
    case 'google.protobuf.Duration': return r.pick(['0s', '1s', '3600s', '1.5s', '315576000000s', '-1s']);
    case 'google.protobuf.FieldMask': return r.pick(['name', 'description', 'name,description', 'claimMatch.issuer', 'uid', 'capabilities', 'oidc.clientSecret', 'nope', '']);
    case 'google.protobuf.Empty': return {};
    case 'google.protobuf.Struct': return freeJson(r, world, depth, valid) as JsonValue;
    case 'google.protobuf.Value': return freeJson(r, world, depth, valid);
    case 'google.protobuf.ListValue': return [freeJson(r, world, depth, valid)];
    case 'google.protobuf.Any': return { '@type': 'type.googleapis.com/google.protobuf.Empty' };
    case 'google.protobuf.StringValue': return text(r, world);
    case 'google.protobuf.BoolValue': return r.chance(0.5);
    case 'google.protobuf.Int64Value':
    case 'google.protobuf.UInt64Value': return '1';
    case 'google.protobuf.Int32Value':
    case 'google.protobuf.UInt32Value': return 1;
  }
  return messageJson(desc, r, world, { valid, depth: depth + 1 });
}

/** Free-form JSON (a Struct), sometimes nested deep. */
function freeJson(r: Rand, world: World, depth: number, valid: boolean): JsonValue {
  if (!valid && r.chance(0.1)) return nest({ a: 1 }, r.int(30, 400), r);
  const out: Record<string, JsonValue> = {};
  for (let i = r.int(0, 3); i > 0; i--) {
    out[text(r, world)] = depth < 3 && r.chance(0.3) ? freeJson(r, world, depth + 1, valid) : r.pick<JsonValue>([1, 'v', true, null, [1, 'x']]);
  }
  return out;
}

function fieldJson(field: DescField, r: Rand, world: World, valid: boolean, depth: number): JsonValue | undefined {
  const one = (): JsonValue | undefined => {
    switch (field.fieldKind) {
      case 'scalar': return scalarJson(field, field.scalar, r, world, valid);
      case 'enum': return r.chance(0.7) ? r.pick(field.enum.values).name : r.pick([0, 1, 99, -1, 2_147_483_647]);
      case 'message': return depth > 4 ? {} : messageValue(field.message, r, world, valid, depth);
      case 'list': {
        const item = (): JsonValue => {
          if (field.listKind === 'scalar') return scalarJson(field, field.scalar, r, world, valid);
          if (field.listKind === 'enum') return r.chance(0.8) ? r.pick(field.enum.values).name : 77;
          return depth > 4 ? {} : messageValue(field.message, r, world, valid, depth);
        };
        return r.some(r.pick([0, 1, 1, 2, 3, 26]), item);
      }
      case 'map': {
        const out: Record<string, JsonValue> = {};
        for (let i = r.int(0, 3); i > 0; i--) {
          const key = field.mapKey === ScalarType.STRING ? text(r, world) : String(r.pick([0, 1, -1, 123]));
          out[key] = field.mapKind === 'scalar' ? scalarJson(field, field.scalar, r, world, valid)
            : field.mapKind === 'enum' ? r.pick(field.enum.values).name : depth > 4 ? {} : messageValue(field.message, r, world, valid, depth);
        }
        return out;
      }
    }
  };
  return one();
}

export interface MessageOptions {
  /** Keep to what fromJson takes: at most one member per oneof. */
  valid: boolean;
  depth?: number;
  /** Probability of setting each field. */
  density?: number;
  /** Use proto names (snake_case) for keys instead of JSON names, as protojson also accepts. */
  protoNames?: boolean;
}

/** A random message of `desc` as protojson. */
export function messageJson(desc: DescMessage, r: Rand, world: World, options: MessageOptions): Record<string, JsonValue> {
  const depth = options.depth ?? 0;
  const density = options.density ?? (depth === 0 ? 0.6 : 0.4);
  const out: Record<string, JsonValue> = {};
  const oneofsSet = new Set<string>();
  for (const field of desc.fields) {
    if (!r.chance(density)) continue;
    if (field.oneof && options.valid) {
      if (oneofsSet.has(field.oneof.name)) continue;
      oneofsSet.add(field.oneof.name);
    }
    const value = fieldJson(field, r, world, options.valid, depth);
    if (value !== undefined) out[options.protoNames ? field.name : field.jsonName] = value;
  }
  return out;
}

// ---- mutations of JSON bodies --------------------------------------------------------

/** A value standing in for raw JSON text (a number JSON.stringify cannot write, deep nesting), put in place after stringifying. */
const RAW = (text: string) => `@@RAW@@${Buffer.from(text).toString('base64url')}@@`;
const RAW_MARK = /"@@RAW@@([A-Za-z0-9_-]*)@@"/g;

/** `levels` objects or arrays around `inner`, as raw JSON text (so no generator or serializer recurses that deep). */
export function nest(inner: JsonValue, levels: number, r: Rand): JsonValue {
  const [open, close] = r.chance(0.3) ? ['[', ']'] : ['{"a":', '}'];
  return RAW(`${open.repeat(levels)}${JSON.stringify(inner).replace(RAW_MARK, (_m, b: string) => Buffer.from(b, 'base64url').toString())}${close.repeat(levels)}`);
}
const RAW_NUMBERS = ['1e400', '-1e400', '1e-400', '-0', '123456789012345678901234567890', '0.1e2', '2e31', '9007199254740993'];

/** Sets an own property, `__proto__` included, as JSON.parse would. */
function setOwn(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function mutateValue(value: JsonValue, r: Rand, world: World): JsonValue {
  return r.weighted<JsonValue>([
    [4, () => r.pick<JsonValue>([0, -1, 1.5, true, false, '', 'x', [], {}, [1, 2], { a: 1 }, 'CAP_IAM_GROUPS_LIST', '3600s'])],
    [3, () => null],
    [2, () => [value]],
    [1, () => ({ value })],
    [1, () => nest(value, r.pick([31, 32, 33, 100, 1_000, 5_000]), r)],
    [1, () => r.pick(['x', 'é', '\u{1F600}']).repeat(r.pick([257, 4_097, 65_537, 65_537, 300_000]))],
    [3, () => r.pick(HOSTILE)],
    [4, () => text(r, world)],
    [2, () => RAW(r.pick(RAW_NUMBERS))],
    [1, () => r.some(r.int(2, 30), () => text(r, world))],
  ]);
}

/** One random change somewhere inside `value` (returns the changed value; objects are copied on the way down). */
export function mutateJson(value: JsonValue, r: Rand, world: World, depth = 0): JsonValue {
  if (value !== null && typeof value === 'object' && depth < 6 && r.chance(0.7)) {
    if (Array.isArray(value)) {
      if (value.length === 0 || r.chance(0.25)) return [...value, mutateValue(null, r, world)];
      const copy = [...value];
      const i = r.int(0, copy.length - 1);
      copy[i] = mutateJson(copy[i]!, r, world, depth + 1);
      return copy;
    }
    const copy: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value)) setOwn(copy, k, v);
    const keys = Object.keys(copy);
    return r.weighted<JsonValue>([
      [keys.length > 0 ? 8 : 0, () => {
        const key = r.pick(keys);
        setOwn(copy, key, mutateJson(copy[key]!, r, world, depth + 1));
        return copy;
      }],
      [2, () => { setOwn(copy, r.pick(PROTO_KEYS), r.pick<JsonValue>([{ description: 'polluted', uid: 'x' }, 'x', null, [], 1])); return copy; }],
      [2, () => { setOwn(copy, text(r, world), mutateValue(null, r, world)); return copy; }],
      [2, () => { setOwn(copy, r.pick(['uid', 'createTime', 'updateTime', 'parent', 'etag', 'name', 'update_mask', 'updateMask', 'role_uid', 'identity_uid']), mutateValue('x', r, world)); return copy; }],
      [keys.length > 0 ? 2 : 0, () => { delete copy[r.pick(keys)]; return copy; }],
    ]);
  }
  return mutateValue(value, r, world);
}

/** JSON text, with raw numbers put back, sometimes broken on purpose. */
export function jsonText(value: JsonValue, r: Rand, world: World, breakChance: number): string {
  let out = JSON.stringify(value).replace(RAW_MARK, (_m, b: string) => Buffer.from(b, 'base64url').toString());
  if (!r.chance(breakChance)) return out;
  const at = r.int(0, out.length);
  out = r.weighted<string>([
    [3, () => out.slice(0, at)],
    [2, () => `${out.slice(0, at)}${r.pick(['}', ']', ',', '"', ':', '\\', '{', '\u0000', 'NaN', ' '])}${out.slice(at)}`],
    [1, () => `\uFEFF${out}`],
    [1, () => out.replace('"', "'")],
    [1, () => `${out}${out}`],
    [1, () => `${out},`],
    [1, () => out.replace(/^\{/, '{"name":"a",').replace(/,}$/, '}')],
    [1, () => out.replace(/^\{"(\w+)":/, '{"$1":{"x":1},"$1":')],
    [3, () => r.pick(['', ' ', 'null', '"string"', '123', '[]', 'true', '{', '[', '{"a":}', 'NaN', 'undefined', '{}{}', '{"a":1}{"b":2}', '\u0000', `{"${'a'.repeat(70_000)}":1}`])],
    [1, () => `{"${text(r, world).replace(/["\\]/g, '')}": ${'['.repeat(r.pick([100, 10_000]))}`],
  ]);
  return defang(out);
}

// ---- requests ------------------------------------------------------------------------

export interface RestRequest {
  channel: 'rest';
  method: string;
  /** The request target as sent: path and query, byte for byte (latin1). */
  target: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Sent over cleartext HTTP/2 (h2c) rather than HTTP/1.1. */
  http2?: boolean;
}

export interface GrpcRequest {
  channel: 'grpc';
  rpc: string;
  /** The request message as protojson (what fromJson built it from). */
  message: JsonValue;
  authorization: string | null;
}

export interface GrpcRawRequest {
  channel: 'grpc-raw';
  /** `:path`, normally `/<service>/<Method>`. */
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** The same framing as `grpc-raw`, as gRPC-Web over HTTP/1.1: the status comes back in a trailer frame. */
export interface GrpcWebRequest {
  channel: 'grpc-web';
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ConnectRequest {
  channel: 'connect';
  path: string;
  headers: Record<string, string>;
  body: string | Buffer;
}

export type FuzzRequest = RestRequest | GrpcRequest | GrpcRawRequest | GrpcWebRequest | ConnectRequest;

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'get', 'QUERY', 'PROPFIND', 'FOO', 'M-SEARCH', 'TRACE'];
const CONTENT_TYPES = [
  'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'foo', 'application/json; charset=utf-16',
  'application/json; charset=latin1', 'application/grpc', 'application/connect+json', 'application/grpc-web', '*/*', '',
  'application/json, text/plain', 'application/merge-patch+json', 'application/proto', 'application/json;;;', 'text/html; charset=x',
];
const AUTHORIZATIONS = ['Bearer', 'Bearer ', 'bearer x', 'Basic dXNlcjpwYXNz', `Bearer ${'a'.repeat(10_000)}`, 'Bearer a b', 'Bearer \u00e9\u00ff', 'Token x', ','];

/** Percent-encodes what HTTP cannot carry raw; `%` is left alone so malformed escapes stay malformed. */
export function wire(text: string, keep = /[\x21-\x7e]/): string {
  let out = '';
  for (const char of text) {
    if (char.length === 1 && keep.test(char)) { out += char; continue; }
    const code = char.codePointAt(0)!;
    // A lone surrogate has no UTF-8: send the three bytes a careless encoder would (WTF-8).
    const bytes = code >= 0xd800 && code <= 0xdfff
      ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
      : [...Buffer.from(char, 'utf8')];
    out += bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

/** A path variable's value: a real uid of the route's resource, another real uid, or something hostile. */
function pathValue(route: Route, r: Rand, world: World): string {
  const own = route.resource && (route.kind === 'create'
    ? (route.resource === 'tags' ? world.uids.repos : world.uids.groups)
    : world.uids[route.resource]);
  return r.weighted<string>([
    [own ? 45 : 0, () => r.pick(own!)],
    [15, () => r.pick(world.all)],
    [20, () => uidpLike(r, world)],
    [20, () => text(r, world)],
  ]);
}

function encodePathValue(value: string, r: Rand): string {
  return r.weighted<string>([
    [7, () => value.split('/').map((s) => wire(s, /[A-Za-z0-9\-._~!$&'()*+,;=:@%]/)).join('/')],
    [2, () => wire(value, /[A-Za-z0-9\-._~!'()*]/)],
    [1, () => wire(value)],
  ]);
}

function queryValueFor(key: string, route: Route, r: Rand, world: World): string {
  const base = key.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
  const good = (): string => {
    if (/page_size/.test(base)) return r.pick(['1', '2', '0', '200', '201', '-1', '1e3', ' 5', '+5', '0x10', '2147483648', '', '3.5', '٣']);
    if (/^skip/.test(base)) return r.pick(['0', '1', '5', '-1', '999999999', 'x']);
    if (/order_by/.test(base)) return r.pick(['name', 'name desc', 'uid desc', 'create_time', 'createTime desc, name', 'updated_at', 'name sideways', ',,,', 'name,name', 'expiration', 'last_updated', 'nope', 'name desc desc']);
    if (/page_token/.test(base)) return pageToken(route, r, world);
    if (/update_mask/.test(base)) return r.pick(['name', 'description', 'name,description', '*', 'claim_match.issuer', 'oidc.client_secret', 'capabilities', 'uid', 'nope', 'name,,', ' name ', '__proto__', 'name.x']);
    if (/in_root|include_|^(verbose|exact)/.test(base)) return r.pick(['true', 'false', '1', '0', 'TRUE', 'yes', '']);
    if (/since|time/.test(base)) return r.pick(TIMES);
    if (/review_states|types|latest_event_type/.test(base)) return r.pick(['REVIEW_STATE_APPROVED', 'EVENT_TYPE_FILTER_FIXED', 'APPROVED', '7', 'EVENT_TYPE_FILTER_UNSPECIFIED']);
    if (/issuer/.test(base)) return 'https://issuer.example';
    if (/subject/.test(base)) return r.pick(['bot-0', 'bot-1', 'nobody']);
    if (/uid|parent|uidp|group|role|identity|of$|ids$/.test(base)) return r.pick(world.all);
    return r.pick(WORDS);
  };
  return r.chance(0.55) ? good() : text(r, world);
}

/** A real page token, mutated more often than not. */
function pageToken(route: Route, r: Rand, world: World): string {
  const own = Object.entries(world.tokens).filter(([path]) => route.pattern.startsWith(path)).flatMap(([, t]) => t);
  const any = Object.values(world.tokens).flat();
  if (any.length === 0) return text(r, world);
  const token = (own.length > 0 && r.chance(0.7) ? r.pick(own) : r.pick(any)).token;
  return mutateToken(token, r, world);
}

export function mutateToken(token: string, r: Rand, world: World): string {
  const bytes = Buffer.from(token, 'base64url');
  return r.weighted<string>([
    [2, () => token],
    [6, () => {
      const flipped = Buffer.from(bytes);
      for (let n = r.int(1, 3); n > 0; n--) {
        const i = r.int(0, flipped.length - 1);
        flipped[i] = flipped[i]! ^ (1 << r.int(0, 7));
      }
      return flipped.toString('base64url');
    }],
    [2, () => token.slice(0, r.int(0, token.length - 1))],
    [1, () => `${token}${r.pick(['A', 'AAAA', '=', '==', '.', token])}`],
    [1, () => bytes.toString('base64')],
    [1, () => {
      const i = r.int(0, token.length - 1);
      return `${token.slice(0, i)}${r.pick(['-', '_', 'A', 'z', '+', '/', '%', '\u00e9'])}${token.slice(i + 1)}`;
    }],
    [1, () => r.bytes(r.int(0, 80)).toString('base64url')],
    [1, () => text(r, world)],
  ]);
}

/** The query keys a request message could carry (grpc-gateway: every field not in the path or body), both spellings. */
function messageKeys(desc: DescMessage, prefix = '', depth = 0): string[] {
  return desc.fields.flatMap((f) => {
    if (f.fieldKind === 'message' && depth < 2 && !f.message.typeName.startsWith('google.protobuf.')) {
      return [...messageKeys(f.message, `${prefix}${f.name}.`, depth + 1), ...messageKeys(f.message, `${prefix}${f.jsonName}.`, depth + 1)];
    }
    return [`${prefix}${f.name}`, `${prefix}${f.jsonName}`];
  });
}
const KEYS = new Map(RPCS.map((m) => [m, [...new Set(messageKeys(m.input))]]));

function queryPairs(route: Route, r: Rand, world: World): [string, string][] {
  const pairs: [string, string][] = [];
  const add = (key: string) => pairs.push([key, queryValueFor(key, route, r, world)]);
  const known = [...(KEYS.get(route.rpc) ?? []), ...(route.resource ? FILTERS[route.resource] ?? [] : [])];
  if (route.kind === 'list') {
    if (r.chance(0.6)) pairs.push([r.pick(['uidp.descendants_of', 'uidp.descendantsOf', 'uidp.children_of']), r.chance(0.7) ? world.org : text(r, world)]);
    for (let n = r.int(0, 4); n > 0; n--) add(r.pick(known));
    if (r.chance(0.35)) add(r.pick(['page_token', 'pageToken']));
  } else if (route.kind === 'update' && r.chance(0.5)) {
    add(r.pick(['update_mask', 'updateMask']));
  } else if (known.length > 0 && r.chance(0.5)) {
    for (let n = r.int(1, 3); n > 0; n--) add(r.pick(known));
  }
  if (r.chance(0.15)) pairs.push([text(r, world), text(r, world)]);
  if (r.chance(0.08)) pairs.push([r.pick(PROTO_KEYS), text(r, world)]);
  if (r.chance(0.08) && pairs.length > 0) { const [k] = r.pick(pairs); pairs.push([k, queryValueFor(k, route, r, world)]); }
  if (r.chance(0.05)) pairs.push([r.pick(['parent', 'uid', 'group.uid', 'name']), r.chance(0.5) ? r.pick(world.all) : text(r, world)]);
  if (r.chance(0.03)) pairs.push([r.pick(known.length ? known : ['name']), 'q'.repeat(r.pick([8_000, 20_000]))]);
  return pairs;
}

function queryString(pairs: [string, string][], r: Rand): string {
  if (pairs.length === 0) return r.chance(0.05) ? '?' : '';
  const enc = (s: string) => (r.chance(0.85) ? wire(s, /[A-Za-z0-9\-._~!'()*]/) : wire(s, /[\x21-\x7e]/));
  const parts = pairs.map(([k, v]) => (r.chance(0.03) ? enc(k) : `${enc(k)}=${enc(v)}`));
  return `?${parts.join(r.chance(0.95) ? '&' : r.pick(['&&', ';', '&amp;']))}`;
}

/** The REST body for a route: a valid one from the world, or one from the request's schema; then mutated. */
function restBody(route: Route, r: Rand, world: World): JsonValue {
  let value: JsonValue;
  const worldBody = route.resource ? world.bodies[route.resource] : undefined;
  const target = route.body === '*' ? route.rpc.input : route.rpc.input.fields.find((f) => f.name === route.body);
  const schema = target && 'kind' in target && target.kind === 'message' ? target
    : target && 'fieldKind' in target && target.fieldKind === 'message' ? target.message : undefined;
  value = r.weighted<JsonValue>([
    [route.rpc.name === 'BatchCreateRoleBindings' ? 6 : 0, () => world.batch as JsonValue],
    [worldBody && route.kind === 'create' ? 6 : 0, () => worldBody as JsonValue],
    [worldBody && route.kind === 'update' ? 6 : 0, () => {
      const keys = Object.keys(worldBody!);
      const out: Record<string, JsonValue> = {};
      for (const k of keys) if (r.chance(0.4)) out[k] = (worldBody as Record<string, JsonValue>)[k]!;
      return out;
    }],
    [schema ? 4 : 0, () => messageJson(schema!, r, world, { valid: r.chance(0.5), protoNames: r.chance(0.2) })],
    [1, () => ({})],
  ]);
  for (let n = r.weighted([[4, () => 0], [4, () => 1], [1, () => 2], [1, () => 4]]); n > 0; n--) value = mutateJson(value, r, world);
  return value;
}

export function restRequest(r: Rand, world: World): RestRequest {
  const route = r.pick(ROUTE_DRAW);
  const version = r.weighted<string>([[85, () => 'v2beta1'], [10, () => 'v2'], [5, () => r.pick(['v2beta', 'V2beta1', 'v2beta2', 'v3', 'v2beta1.', '%76%32beta1', 'v2alpha'])]]);
  let path = route.pattern.replace('/v2beta1', `/${version}`)
    .replace(/\{[^}]+\}/g, () => encodePathValue(pathValue(route, r, world), r));
  path = r.weighted<string>([
    [80, () => path],
    [6, () => `${path}:${r.pick(['lookupGroup', 'batchCreate', 'lookupIdentity', 'checkAccountAssociation', 'get', 'nope', '', ':', 'batchCreate:batchCreate'])}`],
    [4, () => `${path}/`],
    [3, () => path.replace(/\/([^/]*)$/, '//$1')],
    [3, () => `${path}/${r.pick(['..', '.', '%2e%2e', '%2F', 'x', r.pick(world.all)])}`],
    [2, () => `${path}#frag`],
    [2, () => path.replace(/^\/([a-z]+)/, (_m, s: string) => `/${r.pick([s.toUpperCase(), `${s}%00`, `./${s}`, `${s}/.`])}`)],
  ]);
  const method = r.chance(0.8) ? route.verb : r.pick(METHODS);
  const headers: Record<string, string> = {};
  if (r.chance(0.9)) headers.authorization = TOKEN;
  else if (r.chance(0.6)) headers.authorization = r.pick(AUTHORIZATIONS);
  if (r.chance(0.05)) headers['x-request-id'] = r.pick(['fuzz', '', 'a'.repeat(300), '<script>', '%00']);
  let body: string | Buffer | undefined;
  const wantsBody = ['POST', 'PATCH', 'PUT'].includes(method.toUpperCase()) ? r.chance(0.9) : r.chance(0.08);
  if (wantsBody) {
    body = r.chance(0.03) ? r.bytes(r.int(1, 64)) : jsonText(restBody(route, r, world), r, world, 0.12);
    const ct = r.chance(0.78) ? 'application/json' : r.pick(CONTENT_TYPES);
    if (ct !== '' || r.chance(0.5)) headers['content-type'] = ct;
  }
  const target = `${path}${queryString(queryPairs(route, r, world), r)}`;
  // Some over h2c, as gRPC clients' HTTP/2 connections also carry REST.
  return { channel: 'rest', method, target, headers, body, ...(r.chance(0.15) ? { http2: true } : {}) };
}

// ---- gRPC messages -------------------------------------------------------------------

/** A request message as a well-behaved client would send it: real uids, the world's bodies. */
function baseMessage(rpc: DescMethod, r: Rand, world: World): Record<string, JsonValue> {
  const route = ROUTES.find((x) => x.rpc === rpc);
  const kind = route?.kind ?? 'custom';
  const resource = route?.resource;
  const own = resource ? world.uids[resource] : world.all;
  const bodyField = route && route.body && route.body !== '*' ? rpc.input.fields.find((f) => f.name === route.body) : undefined;
  const body = resource ? world.bodies[resource] : undefined;
  switch (kind) {
    case 'get':
    case 'delete': return { uid: r.pick(own) };
    case 'list':
      // A list of one group's things (terms acceptances) names the group in its path.
      if (rpc.input.fields.some((f) => f.name === 'group')) return { group: world.org, pageSize: r.pick([1, 2, 50]) };
      return { uidp: { descendantsOf: world.org }, pageSize: r.pick([1, 2, 50]) };
    case 'create':
      if (!bodyField) break;
      return { parent: r.pick(world.uids[PARENT_KIND[resource!] ?? 'groups']), [bodyField.jsonName]: (body ?? {}) as JsonValue };
    case 'update': {
      if (!bodyField || bodyField.fieldKind !== 'message') break;
      // A sub-resource under its resource's route (a repo's readme) has a body of its own.
      const fits = body && Object.keys(body).every((key) => bodyField.message.fields.some((f) => f.jsonName === key));
      if (!fits) return { [bodyField.jsonName]: { ...messageJson(bodyField.message, r, world, { valid: true }), uid: r.pick(own) } as JsonValue };
      return { [bodyField.jsonName]: { ...(body ?? {}), uid: r.pick(own) } as JsonValue, ...(r.chance(0.5) ? { updateMask: 'name' } : {}) };
    }
  }
  if (rpc.name === 'BatchCreateRoleBindings') return world.batch as Record<string, JsonValue>;
  if (rpc.name === 'LookupIdentity') return { issuer: 'https://issuer.example', subject: r.pick(['bot-0', 'nobody']) };
  // Custom methods whose request names a resource: a real one, so the request can reach v1.
  if (rpc.name === 'GetArchitectures' || rpc.name === 'GetSize') {
    return { repoUid: r.pick(world.uids.repos), digest: `sha256:${String(r.int(0, 2)).repeat(64)}`, ...(r.chance(0.5) ? { architecture: r.pick(['amd64', 'arm64', 'riscv64']) } : {}) };
  }
  if (rpc.name === 'BatchDeleteExternalGroupRoleMappings') {
    return { parent: world.uids.identityProviders[0]!, names: r.chance(0.5) ? [r.pick(world.uids.externalGroupRoleMappings)] : [`${world.uids.identityProviders[0]!}/0123456789abcdef`] };
  }
  if (rpc.name === 'CheckAccountAssociation') {
    return { uid: r.pick(world.uids.accountAssociations), providerType: r.pick(['ACCOUNT_PROVIDER_TYPE_GOOGLE', 'ACCOUNT_PROVIDER_TYPE_AMAZON', 'ACCOUNT_PROVIDER_TYPE_AZURE']) };
  }
  return messageJson(rpc.input, r, world, { valid: true });
}

/** Replaces one field's value somewhere in the message with another of the same type. */
function mutateMessage(desc: DescMessage, json: Record<string, JsonValue>, r: Rand, world: World, depth = 0): Record<string, JsonValue> {
  const out = { ...json };
  if (desc.fields.length === 0) return out;
  const field = r.pick(desc.fields);
  const current = out[field.jsonName];
  if (field.fieldKind === 'message' && !field.message.typeName.startsWith('google.') && current && typeof current === 'object' && !Array.isArray(current) && depth < 4 && r.chance(0.6)) {
    out[field.jsonName] = mutateMessage(field.message, current as Record<string, JsonValue>, r, world, depth + 1);
    return out;
  }
  if (r.chance(0.15)) { delete out[field.jsonName]; return out; }
  if (field.oneof) for (const other of field.oneof.fields) delete out[other.jsonName];
  const value = fieldJson(field, r, world, true, depth);
  if (value !== undefined) out[field.jsonName] = value;
  return out;
}

/** A message `fromJson` accepts: mutated while it still parses, else the last that did. */
export function grpcMessage(rpc: DescMethod, r: Rand, world: World, mutate = true): JsonValue {
  let json = !mutate || r.chance(0.75) ? baseMessage(rpc, r, world) : messageJson(rpc.input, r, world, { valid: true });
  const accepted = (candidate: JsonValue) => {
    try {
      fromJson(rpc.input, candidate, { registry: contract });
      return true;
    } catch {
      return false;
    }
  };
  if (!accepted(json)) json = {};
  if (!mutate) return json;
  for (let n = r.weighted([[2, () => 0], [4, () => 1], [3, () => 2], [1, () => 5]]); n > 0; n--) {
    const next = mutateMessage(rpc.input, json, r, world);
    if (accepted(next)) json = next;
  }
  return json;
}

export function grpcRequest(r: Rand, world: World): GrpcRequest {
  const rpc = r.pick(RPC_DRAW);
  return {
    channel: 'grpc',
    rpc: `${rpc.parent.typeName}/${rpc.name}`,
    message: grpcMessage(rpc, r, world),
    authorization: r.chance(0.92) ? TOKEN : r.chance(0.5) ? null : r.pick(AUTHORIZATIONS),
  };
}

export function rpcByPath(path: string): DescMethod | undefined {
  return RPCS.find((m) => `${m.parent.typeName}/${m.name}` === path.replace(/^\//, ''));
}

export function frame(payload: Uint8Array, flags = 0, length = payload.length): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flags;
  head.writeUInt32BE(length >>> 0, 1);
  return Buffer.concat([head, payload]);
}

export function grpcRawRequest(r: Rand, world: World): GrpcRawRequest {
  const rpc = r.pick(RPC_DRAW);
  const contentType = r.weighted<string>([[8, () => 'application/grpc'], [2, () => 'application/grpc+proto'], [2, () => 'application/grpc+json'], [1, () => r.pick(['application/grpc; charset=x', 'application/grpc+bogus', 'application/grpc+'])]]);
  const json = contentType.endsWith('+json');
  const valid = () => json
    ? Buffer.from(JSON.stringify(grpcMessage(rpc, r, world)))
    : Buffer.from(toBinary(rpc.input, fromJson(rpc.input, grpcMessage(rpc, r, world), { registry: contract })));
  const payload = r.weighted<Buffer>([
    [3, () => r.bytes(r.int(0, 200))],
    [4, () => {
      const bytes = Buffer.from(valid());
      if (bytes.length === 0) return r.bytes(r.int(1, 20));
      for (let n = r.int(1, 8); n > 0; n--) {
        const i = r.int(0, bytes.length - 1);
        bytes[i] = bytes[i]! ^ (1 << r.int(0, 7));
      }
      return bytes;
    }],
    [2, () => { const bytes = valid(); return bytes.subarray(0, r.int(0, Math.max(0, bytes.length - 1))); }],
    [1, () => Buffer.concat([valid(), r.bytes(r.int(1, 30))])],
    [1, () => Buffer.from(jsonText(mutateJson(grpcMessage(rpc, r, world), r, world), r, world, 0.3))],
    // A field number 0, a length running past the end, a deep group.
    [1, () => Buffer.from(r.pick([[0x00, 0x01], [0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f], [0x0b, 0x0b, 0x0b, 0x0b], [0x12, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80], [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]]))],
  ]);
  const body = r.weighted<Buffer>([
    [10, () => frame(payload)],
    [1, () => frame(payload, 1)],
    [1, () => frame(payload, r.pick([2, 0x80, 0xff]))],
    [1, () => frame(payload, 0, payload.length + r.int(1, 100))],
    [1, () => frame(payload, 0, Math.max(0, payload.length - r.int(1, 5)))],
    [1, () => frame(payload, 0, 0xffffffff)],
    [1, () => Buffer.concat([frame(payload), frame(payload)])],
    [1, () => Buffer.alloc(0)],
    [1, () => frame(payload).subarray(0, r.int(1, 4))],
  ]);
  const headers: Record<string, string> = { 'content-type': contentType, te: 'trailers' };
  if (r.chance(0.9)) headers.authorization = TOKEN;
  if (r.chance(0.1)) headers['grpc-timeout'] = r.pick(['1S', '5000m', '60S', '2592000S', '0n', '99999999H', '99999999S', 'abc', '1', '-1S', '100000000S', '1.5S', '3000000000u']);
  if (r.chance(0.08)) headers['grpc-encoding'] = r.pick(['gzip', 'identity', 'bogus', 'deflate']);
  if (r.chance(0.05)) delete headers.te;
  if (r.chance(0.12)) {
    // A well-formed call with a deadline the spec allows, short or very long (past 2^31 ms, Node's longest timer).
    return {
      channel: 'grpc-raw',
      path: `/${rpc.parent.typeName}/${rpc.name}`,
      headers: { 'content-type': 'application/grpc', te: 'trailers', authorization: TOKEN, 'grpc-timeout': r.pick(['60S', '5000m', '99999999u', '2592000S', '99999999S', '99999999H']) },
      body: frame(Buffer.from(toBinary(rpc.input, fromJson(rpc.input, grpcMessage(rpc, r, world, false), { registry: contract })))),
    };
  }
  const path = r.chance(0.95) ? `/${rpc.parent.typeName}/${rpc.name}` : r.pick([`/${rpc.parent.typeName}/Nope`, `/${rpc.parent.typeName}/${rpc.name}/`, `/${rpc.parent.typeName.toLowerCase()}/${rpc.name}`, '/chainguard.platform.iam.v2beta1.NopeService/GetNope']);
  return { channel: 'grpc-raw', path, headers, body };
}

export function connectRequest(r: Rand, world: World): ConnectRequest {
  const rpc = r.pick(RPC_DRAW);
  const headers: Record<string, string> = { 'connect-protocol-version': '1' };
  if (r.chance(0.9)) headers.authorization = TOKEN;
  if (r.chance(0.05)) delete headers['connect-protocol-version'];
  let value: JsonValue = r.chance(0.6) ? grpcMessage(rpc, r, world) : messageJson(rpc.input, r, world, { valid: false, protoNames: r.chance(0.3) });
  for (let n = r.int(0, 3); n > 0; n--) value = mutateJson(value, r, world);
  let body: string | Buffer = jsonText(value, r, world, 0.12);
  headers['content-type'] = r.weighted<string>([[9, () => 'application/json'], [1, () => r.pick(['application/proto', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'text/plain'])]]);
  if (headers['content-type'] === 'application/proto') body = r.chance(0.5) ? r.bytes(r.int(0, 100)) : Buffer.from(toBinary(rpc.input, fromJson(rpc.input, grpcMessage(rpc, r, world), { registry: contract })));
  return { channel: 'connect', path: `/${rpc.parent.typeName}/${rpc.name}`, headers, body };
}

/** A raw gRPC request sent as gRPC-Web: the content type says so; te and grpc-timeout are HTTP/2 gRPC's own. */
export function grpcWebRequest(r: Rand, world: World): GrpcWebRequest {
  const raw = grpcRawRequest(r, world);
  const { te: _te, ...headers } = raw.headers;
  headers['content-type'] = raw.headers['content-type']!.replace('application/grpc', 'application/grpc-web');
  return { channel: 'grpc-web', path: raw.path, headers, body: raw.body };
}

/** Request #index of the run. */
export function generate(r: Rand, world: World): FuzzRequest {
  return r.weighted<FuzzRequest>([
    [55, () => restRequest(r, world)],
    [25, () => grpcRequest(r, world)],
    [8, () => grpcRawRequest(r, world)],
    [4, () => grpcWebRequest(r, world)],
    [12, () => connectRequest(r, world)],
  ]);
}
