/**
 * A gRPC request message as an operation: the same operation the REST
 * transport builds from a URL and a body. The message is read in its JSON
 * form, with only populated fields (proto3 cannot tell an unset scalar from a
 * zero one), which is what an update without a mask changes (AIP-134).
 */
import { ScalarType, toJson, type DescField, type DescMessage, type Message } from '@bufbuild/protobuf';
import { isReflectList, isReflectMap, isReflectMessage, reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { invalidField } from '../../aip/errors.ts';
import { asQuery } from '../../aip/list-request.ts';
import { jsonPath, type Binding } from '../../contract/bindings.ts';
import { getPath, isObject, type Json } from '../../vocabulary/json.ts';
import type { Operation } from '../../port/operation.ts';

export function grpcOperation(binding: Binding, message: Message): Operation {
  const { mapping, kind, method } = binding;
  if (kind === 'get' || kind === 'delete') {
    const field = plainTarget(binding);
    if (field) {
      // The target read off the message; its JSON form made only if the comparison or a capture asks for it.
      let json: Json | undefined;
      const uid = (message as unknown as Record<string, unknown>)[field.localName];
      return { kind, mapping, uid: typeof uid === 'string' ? uid : '', call: { binding, message: () => (json ??= messageJson(method.input as DescMessage, message)) } };
    }
  }
  const json = messageJson(method.input as DescMessage, message);
  const target = binding.target ? String(getPath(json, jsonPath(method.input, binding.target)) ?? '') : '';
  // The message as it came, for the comparison and the capture.
  const call = { binding, message: () => json };
  switch (kind) {
    case 'list':
    case 'lookup':
      return { kind, mapping, query: asQuery(json), call };
    case 'get':
    case 'delete':
      return { kind, mapping, uid: target, call };
    case 'create':
      return { kind, mapping, parent: target, body: bodyOf(binding, json), call };
    case 'update': {
      const mask = json.updateMask;
      return { kind, mapping, uid: target, body: bodyOf(binding, json), mask: typeof mask === 'string' ? mask : undefined, call };
    }
    case 'batchCreate':
      return { kind, mapping, body: json, call };
    case 'custom':
      return { kind, mapping, method, custom: binding.custom!, request: json, call };
  }
}

/**
 * The target field of a Get or Delete whose request holds only singular strings (all of the contract's):
 * its value is the message's own, and the message's JSON form cannot fail (messageJson), so the call
 * need not make it. Undefined for any other request, or a target inside a nested message.
 */
function plainTarget(binding: Binding): DescField | undefined {
  let found = PLAIN_TARGETS.get(binding);
  if (found === undefined) {
    const input = binding.method.input as DescMessage;
    const plain = input.fields.every((field) => field.fieldKind === 'scalar' && field.scalar === ScalarType.STRING);
    found = (plain && input.fields.find((field) => field.name === binding.target)) || null;
    PLAIN_TARGETS.set(binding, found);
  }
  return found ?? undefined;
}

const PLAIN_TARGETS = new WeakMap<Binding, DescField | null>();

/**
 * The message in its JSON form. A message can decode from protobuf and still
 * have no JSON form (a Timestamp outside years 1 to 9999, a Duration past
 * 10,000 years, a FieldMask path that is not snake_case such as `claimMatch`):
 * that is the caller's bad input, INVALID_ARGUMENT naming the field, never INTERNAL.
 */
function messageJson(desc: DescMessage, message: Message): Json {
  try {
    return toJson(desc, message) as Json;
  } catch (error) {
    const found = unrepresentable(reflect(desc, message), '');
    const reason = (found?.reason ?? (error as Error).message).replace(/^cannot encode (message|field) ([\w.]+) to JSON: /, 'is not a valid $2: ');
    const path = found?.path ?? 'request';
    throw invalidField(path === 'updateMask' ? 'update_mask' : path, reason);
  }
}

/** The innermost field (JSON path) whose value has no JSON form, and why. */
function unrepresentable(message: ReflectMessage, prefix: string): { path: string; reason: string } | undefined {
  for (const field of message.fields) {
    if (!message.isSet(field)) continue;
    const path = prefix ? `${prefix}.${field.jsonName}` : field.jsonName;
    const value = message.get(field) as unknown;
    const items: [string, unknown][] = isReflectList(value) ? [...value].map((item, i) => [`${path}[${i}]`, item])
      : isReflectMap(value) ? [...value].map(([key, item]) => [`${path}.${String(key)}`, item])
      : [[path, value]];
    for (const [at, item] of items) {
      if (!isReflectMessage(item)) continue;
      try {
        toJson(item.desc, item.message);
      } catch (error) {
        return unrepresentable(item, at) ?? { path: at, reason: (error as Error).message };
      }
    }
  }
  return undefined;
}

function bodyOf(binding: Binding, json: Json): Json {
  if (binding.body === '*' || binding.body === '') return json;
  const value = json[jsonPath(binding.method.input, binding.body)];
  return isObject(value) ? value : {};
}
