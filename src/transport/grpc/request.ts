/**
 * A gRPC request message as an operation: the same operation the REST
 * transport builds from a URL and a body. The message is read in its JSON
 * form, with only populated fields (proto3 cannot tell an unset scalar from a
 * zero one), which is what an update without a mask changes (AIP-134).
 */
import { toJson, type DescMessage, type Message } from '@bufbuild/protobuf';
import type { RawQuery } from '../../aip/list-request.ts';
import { jsonPath, type Binding } from '../../contract/bindings.ts';
import { getPath, isObject, type Json } from '../../engine/shape.ts';
import type { Operation } from '../../operation/operation.ts';

export function grpcOperation(binding: Binding, message: Message): Operation {
  const { mapping, kind, method } = binding;
  const json = toJson(method.input as DescMessage, message) as Json;
  const target = binding.target ? String(getPath(json, jsonPath(method.input, binding.target)) ?? '') : '';
  switch (kind) {
    case 'list':
    case 'lookup':
      return { kind, mapping, query: asQuery(json) };
    case 'get':
    case 'delete':
      return { kind, mapping, uid: target };
    case 'create':
      return { kind, mapping, parent: target, body: bodyOf(binding, json) };
    case 'update': {
      const mask = json.updateMask;
      return { kind, mapping, uid: target, body: bodyOf(binding, json), mask: typeof mask === 'string' ? mask : undefined };
    }
    case 'batchCreate':
      return { kind, mapping, body: json };
  }
}

function bodyOf(binding: Binding, json: Json): Json {
  if (binding.body === '*' || binding.body === '') return json;
  const value = json[jsonPath(binding.method.input, binding.body)];
  return isObject(value) ? value : {};
}

/** The message's fields as the query parameters REST would carry: dotted paths, repeated values as lists. */
export function asQuery(json: Json, prefix = '', into: RawQuery = {}): RawQuery {
  for (const [key, value] of Object.entries(json)) {
    if (isObject(value)) asQuery(value, `${prefix}${key}.`, into);
    else if (Array.isArray(value)) into[prefix + key] = value.map(String);
    else if (value !== null && value !== undefined) into[prefix + key] = String(value);
  }
  return into;
}
