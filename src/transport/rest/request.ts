/**
 * A REST request as an operation, read the way grpc-gateway reads it: the
 * route's variable names the resource (or its parent), the body is the
 * request field the rule names, and everything else is a query parameter.
 */
import { invalidField } from '../../aip/errors.ts';
import { singleParam, type RawQuery } from '../../aip/list-request.ts';
import { camelToSnake, snakeToCamel } from '../../aip/names.ts';
import type { Binding } from '../../contract/bindings.ts';
import { requestFromRest } from '../../contract/request-message.ts';
import { isObject, type Json } from '../../vocabulary/json.ts';
import type { Operation } from '../../port/operation.ts';
import { refuseUnknownQueryKeys } from './query-keys.ts';

export interface RestInput {
  /** The route's variables by proto field path, decoded. */
  variables: Readonly<Record<string, string>>;
  query: RawQuery;
  /** The parsed JSON body, if any. */
  body: unknown;
}

export function restOperation(binding: Binding, input: RestInput): Operation {
  const { mapping, kind } = binding;
  const target = binding.target ? input.variables[binding.target] ?? '' : '';
  if (binding.target) refuseMisplaced(binding, input.query, target);
  refuseUnknownQueryKeys(binding, input.query);
  const rest = { body: binding.body, variables: input.variables, query: input.query, rawBody: input.body };
  // The request message the call carries, built only when the comparison or the capture asks for it.
  const call = { binding, message: () => requestFromRest(binding.method.input, rest) };
  switch (kind) {
    case 'list':
    case 'lookup':
      return { kind, mapping, query: input.query, call };
    case 'get':
    case 'delete':
      return { kind, mapping, uid: target, call };
    case 'create':
      return { kind, mapping, parent: target, body: bodyOf(binding, input.body, target), call };
    case 'update':
      return { kind, mapping, uid: target, body: bodyOf(binding, input.body, target), mask: singleParam(input.query, ['updateMask', 'update_mask']), call };
    case 'batchCreate':
      return { kind, mapping, body: jsonObject(input.body), call };
    case 'custom': {
      const request = requestFromRest(binding.method.input, rest);
      return { kind, mapping, method: binding.method, custom: binding.custom!, request, call: { binding, message: () => request } };
    }
  }
}

/**
 * grpc-gateway ignores a query parameter that names a path field, so
 * `POST /groups?parent=…` would create a root organisation. Refused instead,
 * unless it only repeats what the path says.
 */
function refuseMisplaced(binding: Binding, query: RawQuery, target: string): void {
  for (const key of pathFieldKeys(binding)) {
    const value = query[key];
    if (value === undefined || value === target) continue;
    throw invalidField(key, `goes in the URL path, not the query string (${binding.rules[0]!.pattern})`);
  }
}

const PATH_FIELD_KEYS = new WeakMap<Binding, readonly string[]>();

/** The query keys that would name the binding's path field: its path, and its last part in either case. Once per binding. */
function pathFieldKeys(binding: Binding): readonly string[] {
  let keys = PATH_FIELD_KEYS.get(binding);
  if (!keys) {
    const field = binding.target!;
    const last = field.split('.').pop()!;
    keys = [...new Set([field, last, camelToSnake(last), snakeToCamel(last)])];
    PATH_FIELD_KEYS.set(binding, keys);
  }
  return keys;
}

function jsonObject(body: unknown): Json {
  if (body === undefined || body === null || body === '') return {};
  if (!isObject(body)) throw invalidField('body', 'must be a JSON object');
  return body;
}

/**
 * The body of a rule that names one request field (`body: "group"`). protojson
 * discards keys the resource does not have, as the real service does, but a
 * request field put in the body instead of the URL (`{"parent": …}` posted to
 * the collection) is refused where it says something the URL does not: left
 * to be discarded, it would create a root organisation.
 */
function bodyOf(binding: Binding, raw: unknown, target: string): Json {
  const body = jsonObject(raw);
  if (binding.body === '*' || !binding.target) return body;
  const resourceFields = binding.method.input.fields.find((f) => f.name === binding.body);
  const resource = resourceFields?.fieldKind === 'message' ? resourceFields.message : undefined;
  for (const field of binding.method.input.fields) {
    if (field.name === binding.body || resource?.fields.some((f) => f.name === field.name)) continue;
    for (const key of [field.jsonName, field.name, camelToSnake(field.jsonName)]) {
      if (!(key in body)) continue;
      if (field.name === binding.target && body[key] === target) continue;
      throw invalidField(key, `is a field of the request, not of the ${binding.body}: it goes in the URL (${binding.rules[0]!.pattern})`);
    }
  }
  return body;
}
