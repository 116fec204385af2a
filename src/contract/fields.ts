/**
 * A resource's v2 shape as the contract declares it, in the field-spec
 * vocabulary the engine reads: key (JSON name), type, repeated, oneof,
 * proto3 `optional`, and the field behaviours OUTPUT_ONLY, INPUT_ONLY,
 * IMMUTABLE and REQUIRED. A mapping then only adds what v1 differs in and
 * the gateway's own rules (v1 names, enum renames, secrets, kept times):
 * `withContract` lays those over the contract's fields.
 */
import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import type { FieldSpec, FieldType } from '../vocabulary/resource.ts';
import { fieldBehaviors } from './registry.ts';

type Fields = Readonly<Record<string, FieldSpec>>;

/** Well-known message types and how their JSON form reads. */
const WELL_KNOWN: Readonly<Record<string, FieldType>> = {
  'google.protobuf.Timestamp': 'timestamp',
  'google.protobuf.Duration': 'string',
  'google.protobuf.FieldMask': 'string',
  'google.protobuf.Struct': 'json',
  'google.protobuf.Value': 'json',
  'google.protobuf.ListValue': 'json',
};

function scalarType(scalar: ScalarType): FieldType {
  switch (scalar) {
    case ScalarType.BOOL: return 'bool';
    case ScalarType.STRING: case ScalarType.BYTES: return 'string';
    case ScalarType.INT64: case ScalarType.UINT64: case ScalarType.SINT64: case ScalarType.FIXED64: case ScalarType.SFIXED64: return 'int64';
    default: return 'int';
  }
}

/** The contract's own spec of one field; nested messages carry their fields. */
function contractSpec(field: DescField, seen: ReadonlySet<string>): FieldSpec {
  const spec: { -readonly [K in keyof FieldSpec]: FieldSpec[K] } = {};
  let message: DescMessage | undefined;
  switch (field.fieldKind) {
    case 'scalar': spec.type = scalarType(field.scalar); break;
    case 'enum': spec.type = 'enum'; break;
    case 'map': spec.type = 'map'; break;
    case 'message': message = field.message; break;
    case 'list':
      spec.repeated = true;
      if (field.listKind === 'scalar') spec.type = scalarType(field.scalar);
      else if (field.listKind === 'enum') spec.type = 'enum';
      else message = field.message;
      break;
  }
  if (message) {
    const known = WELL_KNOWN[message.typeName];
    if (known) spec.type = known;
    // A message that contains itself (none in v2beta1 today) is left opaque rather than unrolled forever.
    else if (seen.has(message.typeName)) spec.type = 'json';
    else spec.fields = messageFields(message, new Set([...seen, message.typeName]));
  }
  if (field.oneof && !field.proto.proto3Optional) spec.oneof = field.oneof.localName;
  if (field.proto.proto3Optional) spec.optional = true;
  const behaviors = fieldBehaviors(field);
  if (behaviors.includes('OUTPUT_ONLY')) spec.outputOnly = true;
  if (behaviors.includes('INPUT_ONLY')) spec.inputOnly = true;
  if (behaviors.includes('IMMUTABLE')) spec.immutable = true;
  if (behaviors.includes('REQUIRED')) spec.required = true;
  return spec;
}

function messageFields(message: DescMessage, seen: ReadonlySet<string>): Fields {
  return Object.fromEntries(message.fields.map((field) => [field.jsonName, contractSpec(field, seen)]));
}

/** The contract's fields of a message, in declaration order. */
export function contractFields(message: DescMessage): Fields {
  return messageFields(message, new Set([message.typeName]));
}

/**
 * The contract's fields with a mapping's declarations laid over them, field by
 * field and into nested messages. A declared field the contract lacks is an
 * error: the mapping would describe something v2 does not have.
 */
export function withContract(contract: Fields, declared: Fields, where: string): Fields {
  for (const key of Object.keys(declared)) {
    if (!(key in contract)) throw new Error(`${where}: "${key}" is not a field of the contract's message`);
  }
  return Object.fromEntries(Object.entries(contract).map(([key, base]) => {
    const own = declared[key];
    if (!own) return [key, base];
    const { fields: _contractFields, ...baseRest } = base;
    const merged: FieldSpec = { ...baseRest, ...own };
    // A mapping that reads a message as something else (free-form JSON passed through) drops the contract's sub-fields.
    if (own.type !== undefined && own.type !== 'message') return [key, merged];
    const nested = base.fields && own.fields ? withContract(base.fields, own.fields, `${where}.${key}`) : own.fields ?? base.fields;
    return [key, nested ? { ...merged, fields: nested } : merged];
  }));
}
