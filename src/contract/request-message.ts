/**
 * A custom method's request and response as whole messages in their JSON form,
 * read the way grpc-gateway reads a REST call: the body fills the field the
 * rule names (or the whole message for `*`), the route's variables fill their
 * fields, and every other field may come from the query string (dotted into
 * singular sub-messages, repeated by repeating the key). Both transports end in
 * the same canonical form — the contract's own JSON encoding of the message —
 * so a custom method never sees which protocol carried its call.
 */
import { fromJson, toJson, ScalarType, type DescField, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { invalidField, internal } from '../aip/errors.ts';
import type { RawQuery } from '../aip/list-request.ts';
import { isObject, type Json } from '../vocabulary/json.ts';
import { jsonPath } from './bindings.ts';
import { fieldBehaviors } from './registry.ts';
import { isPlainText, textFields } from './text-fields.ts';

export interface RestCall {
  /** The rule's body field (proto name), `*` for the whole message, '' for none. */
  readonly body: string;
  /** The route's variables by proto field path, decoded. */
  readonly variables: Readonly<Record<string, string>>;
  readonly query: RawQuery;
  readonly rawBody: unknown;
}

/** The request message, in canonical JSON form, that a REST call carries. */
export function requestFromRest(desc: DescMessage, call: RestCall): Json {
  const body = bodyObject(call.rawBody);
  const plain = plainRequest(desc, call);
  if (plain) return plain;
  const message: Json = call.body === '*' ? body : call.body ? { [jsonPath(desc, call.body)]: body } : {};
  for (const [key, values] of Object.entries(call.query)) {
    if (values === undefined) continue;
    const path = fieldPath(desc, key);
    // query-keys.ts has refused unknown keys already; a key naming no scalar field is left to protojson to refuse.
    if (!path) continue;
    setPath(message, path.names, queryValue(path.field, key, Array.isArray(values) ? values : [values]));
  }
  for (const [variable, value] of Object.entries(call.variables)) setPath(message, jsonPath(desc, variable).split('.'), value);
  return canonicalRequest(desc, message);
}

/**
 * The request of a call that carries its path's variables alone (no body field, no query), each naming a
 * top-level text field and holding plain, non-empty text (text-fields.ts): its canonical form is those
 * values as they are, in the message's field order, as protobuf would write them. Undefined otherwise.
 * A Get or Delete by name is such a call, and the comparison asks for its request on every one.
 */
function plainRequest(desc: DescMessage, call: RestCall): Json | undefined {
  if (call.body !== '') return undefined;
  for (const key in call.query) if (call.query[key] !== undefined) return undefined;
  const { byName } = textFields(desc);
  for (const variable in call.variables) {
    const value = call.variables[variable];
    if (!byName.has(variable) || value === '' || !isPlainText(value)) return undefined;
  }
  const message: Json = {};
  for (const field of desc.fields) if (Object.hasOwn(call.variables, field.name)) message[field.jsonName] = call.variables[field.name];
  return message;
}

/** A request message's JSON as the contract encodes it; what does not decode is INVALID_ARGUMENT naming the field. */
export function canonicalRequest(desc: DescMessage, json: Json): Json {
  try {
    // protojson discards unknown body keys on decode, as the real service does.
    return toJson(desc, fromJson(desc, json as JsonValue, { ignoreUnknownFields: true })) as Json;
  } catch (error) {
    const text = (error as Error).message;
    const field = /cannot decode (?:field|message) [\w.]*?\.(\w+) from JSON/.exec(text)?.[1] ?? 'body';
    throw invalidField(field, text.replace(/^cannot decode (?:field|message) [\w.]+ from JSON: /, 'cannot be read: '));
  }
}

/**
 * A custom method's answer as the contract encodes it, with every field present
 * (grpc-gateway's EmitUnpopulated); keys the contract does not have are dropped.
 * An answer that does not fit is the gateway's own fault.
 */
export function canonicalResponse(desc: DescMessage, json: Json): Json {
  let canonical: Json;
  try {
    canonical = toJson(desc, fromJson(desc, json as JsonValue, { ignoreUnknownFields: true }), { alwaysEmitImplicit: true }) as Json;
  } catch (error) {
    throw internal(`the gateway built a ${desc.name} the contract does not accept: ${(error as Error).message}`);
  }
  return withUnsetMessages(desc, canonical);
}

/**
 * protojson's EmitUnpopulated writes an unset singular message as `null`
 * (protobuf-es leaves it out), as every standard method's answer does; oneof
 * members and proto3 `optional` fields stay absent when unset.
 */
function withUnsetMessages(desc: DescMessage, json: Json): Json {
  for (const field of desc.fields) {
    if (field.oneof || field.proto.proto3Optional) continue;
    const value = json[field.jsonName];
    if (field.fieldKind === 'message') {
      if (value === undefined) json[field.jsonName] = null;
      else if (!field.message.typeName.startsWith('google.protobuf.') && isObject(value)) withUnsetMessages(field.message, value);
    } else if (field.fieldKind === 'list' && field.listKind === 'message' && Array.isArray(value)) {
      for (const item of value) if (isObject(item)) withUnsetMessages(field.message, item);
    } else if (field.fieldKind === 'map' && field.mapKind === 'message' && isObject(value)) {
      for (const item of Object.values(value)) if (isObject(item)) withUnsetMessages(field.message, item);
    }
  }
  return json;
}

/**
 * The top-level fields the contract marks REQUIRED that the request leaves
 * empty, by JSON name. A proto3 bool or number cannot tell "unset" from its
 * zero (`enabled: false` is a value), so only text, enums (UNSPECIFIED is no
 * choice), messages and lists can be missing.
 */
export function missingRequired(desc: DescMessage, request: Json): string[] {
  const canBeMissing = (f: DescField) => f.fieldKind !== 'scalar' || f.scalar === ScalarType.STRING || f.scalar === ScalarType.BYTES;
  return desc.fields.filter((f) => canBeMissing(f) && fieldBehaviors(f).includes('REQUIRED') && isEmpty(request[f.jsonName])).map((f) => f.jsonName);
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

function bodyObject(raw: unknown): Json {
  if (raw === undefined || raw === null || raw === '') return {};
  if (!isObject(raw)) throw invalidField('body', 'must be a JSON object');
  return raw;
}

/** A query key (proto or JSON names, dotted) as JSON names and the field it ends at. */
function fieldPath(desc: DescMessage, key: string): { names: string[]; field: DescField } | undefined {
  const names: string[] = [];
  let message: DescMessage | undefined = desc;
  let field: DescField | undefined;
  for (const part of key.split('.')) {
    field = message?.fields.find((f) => f.name === part || f.jsonName === part);
    if (!field) return undefined;
    names.push(field.jsonName);
    message = field.fieldKind === 'message' ? field.message : undefined;
  }
  return field ? { names, field } : undefined;
}

const TRUE = /^(1|t|T|TRUE|true|True)$/;
const FALSE = /^(0|f|F|FALSE|false|False)$/;

/** Query text as the JSON value protojson reads for the field (grpc-gateway's runtime/query.go rules). */
function queryValue(field: DescField, key: string, values: readonly string[]): unknown {
  const one = (text: string): unknown => {
    if (field.fieldKind === 'enum' || (field.fieldKind === 'list' && field.listKind === 'enum')) return /^-?\d+$/.test(text) ? Number(text) : text;
    const scalar = field.fieldKind === 'scalar' ? field.scalar : field.fieldKind === 'list' && field.listKind === 'scalar' ? field.scalar : undefined;
    if (scalar === ScalarType.BOOL) {
      // strconv.ParseBool, as grpc-gateway reads booleans.
      if (TRUE.test(text)) return true;
      if (FALSE.test(text)) return false;
      throw invalidField(key, `"${text}" is not a boolean`);
    }
    return text;
  };
  if (field.fieldKind === 'list') return values.map(one);
  if (values.length > 1) throw invalidField(key, 'must be given at most once');
  return one(values[0]!);
}

function setPath(target: Json, names: readonly string[], value: unknown): void {
  let at = target;
  for (const name of names.slice(0, -1)) {
    if (!isObject(at[name])) at[name] = {};
    at = at[name] as Json;
  }
  at[names[names.length - 1]!] = value;
}
