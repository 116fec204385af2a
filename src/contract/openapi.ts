/**
 * The OpenAPI 3.1 document of the v2 REST surface a gateway serves, made from
 * the contract: one operation per served route (its `google.api.http` rule and
 * additional bindings), read the way grpc-gateway reads a call — path
 * variables, the body field (or the whole message for `*`), every other field
 * as a query parameter — with schemas in protojson's encoding (int64 as
 * strings, Timestamp and Duration as strings, enums by name, maps as objects),
 * field behaviours as JSON Schema keywords (OUTPUT_ONLY → readOnly,
 * INPUT_ONLY → writeOnly, REQUIRED → required), each method's IAM capabilities
 * as `x-required-capabilities`, and `google.rpc.Status` as every error.
 * Pure: the served bindings in, a document out.
 */
import { ScalarType, type DescField, type DescMessage, type DescMethod } from '@bufbuild/protobuf';
import type { Binding } from './bindings.ts';
import { contract, fieldBehaviors, requiredCapabilities } from './registry.ts';

type Schema = Record<string, unknown>;

/** JSON Schema of protojson's well-known types, by full name. */
const WELL_KNOWN: Readonly<Record<string, Schema>> = {
  'google.protobuf.Timestamp': { type: 'string', format: 'date-time' },
  'google.protobuf.Duration': { type: 'string', pattern: '^-?\\d+(\\.\\d{1,9})?s$', examples: ['3600s'] },
  'google.protobuf.FieldMask': { type: 'string', description: 'Field paths, comma-separated.' },
  'google.protobuf.Empty': { type: 'object' },
  'google.protobuf.Struct': { type: 'object' },
  'google.protobuf.Value': {},
  'google.protobuf.ListValue': { type: 'array' },
  'google.protobuf.Any': { type: 'object', properties: { '@type': { type: 'string' } }, required: ['@type'], additionalProperties: true },
};

/** The HTTP statuses the gateway answers errors with (AIP-193), each a google.rpc.Status. */
const ERROR_STATUSES = ['400', '401', '403', '404', '409', '429', '499', '500', '501', '503', '504'];

export interface OpenApiOptions {
  title: string;
  version: string;
  /** API version path segments every route is also served under (`v2`, the GA twin of `v2beta1`). */
  aliases: readonly string[];
}

export function openApiDocument(bindings: readonly Binding[], options: OpenApiOptions): Schema {
  const schemas = new Map<string, Schema>();
  const paths: Record<string, Record<string, Schema>> = {};
  const add = (path: string, verb: string, operation: Schema) => {
    (paths[path] ??= {})[verb.toLowerCase()] = operation;
  };
  for (const binding of bindings) {
    binding.rules.forEach((rule, i) => {
      const id = i === 0 ? binding.method.name : `${binding.method.name}_${i}`;
      add(openApiPath(rule.pattern), rule.verb, { ...operationOf(binding.method, rule.pattern, rule.body, schemas), operationId: id });
      // An optional `**` variable may be empty (`POST /groups`: a root organisation); OpenAPI has no
      // empty path parameter, so that route is its own operation, without the variable.
      for (const variable of optionalVariables(binding.method, rule.pattern)) {
        const pattern = rule.pattern.replace(variable.segment, '');
        add(openApiPath(pattern), rule.verb, { ...operationOf(binding.method, pattern, rule.body, schemas, [variable.name]), operationId: `${id}_without_${variable.name}` });
      }
    });
  }
  const status = schemaOf(contract.getMessage('google.rpc.Status')!, schemas);
  return {
    openapi: '3.1.0',
    info: {
      title: options.title,
      version: options.version,
      description: `The v2beta1 API as this gateway serves it, REST and gRPC alike (gRPC on the same port). Every route is also served under ${options.aliases.map((a) => `\`/<service>/${a}/\``).join(', ')}. Errors are google.rpc.Status (AIP-193).`,
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [...new Set(bindings.map((b) => b.method.parent.name))].map((name) => ({ name })),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An OIDC-based API token; the gateway forwards it to v1 as given.' } },
      responses: {
        Status: {
          description: 'An error, as google.rpc.Status (AIP-193): the code, a message, and typed details (ErrorInfo first, with the request id).',
          content: { 'application/json': { schema: ref(status) } },
        },
      },
      schemas: Object.fromEntries([...schemas].sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}

/**
 * A template as an OpenAPI path: each variable under its own field's name, as the rule names it.
 * Two routes alike but for their variables' names (`GET /groups/{uid}`, `POST /groups/{parent}`)
 * stay two paths, as grpc-gateway's generator leaves them: OpenAPI 3.1 calls such paths identical,
 * but their verbs differ, so no request is ambiguous, and one shared name would tell a client to
 * send a uid where the method reads a parent.
 */
function openApiPath(pattern: string): string {
  return pattern.replace(/\{([\w.]+)=[^}]*\}/g, '{$1}');
}

/** A template's variables: the request field each fills, and whether it captures slashes (`{uid=**}`). */
function variablesOf(pattern: string): { name: string; slashes: boolean }[] {
  return [...pattern.matchAll(/\{([\w.]+)(=[^}]*)?\}/g)].map((m) => ({ name: m[1]!, slashes: (m[2] ?? '').includes('**') }));
}

/** The `/{field=**}` segments the route also matches empty: the field is not REQUIRED. */
function optionalVariables(method: DescMethod, pattern: string): { name: string; segment: string }[] {
  return [...pattern.matchAll(/\/\{([\w.]+)=\*\*\}/g)]
    .filter((m) => {
      const field = method.input.fields.find((f) => f.name === m[1]);
      return field !== undefined && !fieldBehaviors(field).includes('REQUIRED');
    })
    .map((m) => ({ name: m[1]!, segment: m[0] }));
}

/** `empty`: fields the route leaves empty, so neither the query nor the body may fill them. */
function operationOf(method: DescMethod, pattern: string, body: string, schemas: Map<string, Schema>, empty: readonly string[] = []): Schema {
  const variables = variablesOf(pattern);
  const parameters: Schema[] = variables.map(({ name, slashes }) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: [
      `The request's \`${name}\`.`,
      slashes ? 'A UIDP: its `/` are part of the path, sent unescaped.' : '',
    ].filter(Boolean).join(' '),
  }));
  const pathFields = [...variables.map((v) => v.name), ...empty];
  const taken = new Set([...pathFields.map((name) => name.split('.')[0]!), ...(body && body !== '*' ? [body] : [])]);
  if (body !== '*') parameters.push(...queryParameters(method.input, '', taken));
  const operation: Schema = {
    tags: [method.parent.name],
    summary: `${method.parent.name}.${method.name}`,
    parameters,
    responses: {
      200: { description: 'OK', content: { 'application/json': { schema: ref(schemaOf(method.output, schemas)) } } },
      ...Object.fromEntries(ERROR_STATUSES.map((status) => [status, { $ref: '#/components/responses/Status' }])),
    },
  };
  const capabilities = requiredCapabilities(method);
  if (capabilities) {
    operation['x-required-capabilities'] = capabilities.capabilities;
    operation.description = capabilities.disabled ? 'Public: no capability is required.'
      : `Requires ${capabilities.capabilities.join(', ')}${capabilities.unscoped ? ' (results scoped to the caller\'s groups)' : ' on the named resource'}.`;
  }
  if (body) {
    const field = body === '*' ? undefined : method.input.fields.find((f) => f.name === body);
    const schema = field?.fieldKind === 'message' ? ref(schemaOf(field.message, schemas)) : requestSchema(method.input, pathFields, schemas);
    operation.requestBody = { required: true, content: { 'application/json': { schema } } };
  }
  return operation;
}

/** grpc-gateway's query parameters: scalar and enum fields (repeated by repeating the key), dotted into singular messages. */
function queryParameters(message: DescMessage, prefix: string, taken: ReadonlySet<string>, depth = 0): Schema[] {
  const out: Schema[] = [];
  for (const field of message.fields) {
    if (depth === 0 && taken.has(field.name)) continue;
    const name = `${prefix}${field.name}`;
    if (field.fieldKind === 'message' && !WELL_KNOWN[field.message.typeName] && depth < 4) {
      out.push(...queryParameters(field.message, `${name}.`, taken, depth + 1));
    } else if (field.fieldKind !== 'map' && !(field.fieldKind === 'list' && field.listKind === 'message') && field.fieldKind !== 'message') {
      out.push({ name, in: 'query', required: false, schema: fieldSchema(field, new Map()), ...(field.fieldKind === 'list' ? { explode: true } : {}) });
    } else if (field.fieldKind === 'message') {
      out.push({ name, in: 'query', required: false, schema: WELL_KNOWN[field.message.typeName] });
    }
  }
  return out;
}

/** The whole request as a body (`body: "*"`), less the fields the path fills. */
function requestSchema(message: DescMessage, pathFields: readonly string[], schemas: Map<string, Schema>): Schema {
  const schema = messageSchema(message, schemas);
  const properties = { ...(schema.properties as Record<string, Schema>) };
  for (const path of pathFields) delete properties[message.fields.find((f) => f.name === path.split('.')[0])?.jsonName ?? path];
  const required = (schema.required as string[] | undefined)?.filter((name) => name in properties);
  return { ...schema, properties, ...(required?.length ? { required } : { required: undefined }) };
}

function ref(name: string): Schema {
  return { $ref: `#/components/schemas/${name}` };
}

/** Registers the message's schema (and those it uses) once; answers its name. */
function schemaOf(message: DescMessage, schemas: Map<string, Schema>): string {
  const name = message.typeName;
  if (!schemas.has(name)) {
    schemas.set(name, {});
    schemas.set(name, WELL_KNOWN[name] ?? messageSchema(message, schemas));
  }
  return name;
}

function messageSchema(message: DescMessage, schemas: Map<string, Schema>): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const field of message.fields) {
    const behaviors = fieldBehaviors(field);
    properties[field.jsonName] = {
      ...fieldSchema(field, schemas),
      ...(behaviors.includes('OUTPUT_ONLY') ? { readOnly: true } : {}),
      ...(behaviors.includes('INPUT_ONLY') ? { writeOnly: true } : {}),
      ...(field.oneof ? { description: `One of ${field.oneof.fields.map((f) => f.jsonName).join(', ')}.` } : {}),
    };
    if (behaviors.includes('REQUIRED')) required.push(field.jsonName);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

function fieldSchema(field: DescField, schemas: Map<string, Schema>): Schema {
  switch (field.fieldKind) {
    case 'scalar': return scalarSchema(field.scalar);
    case 'enum': return { type: 'string', enum: field.enum.values.map((v) => v.name) };
    case 'message': return nullable(WELL_KNOWN[field.message.typeName] ?? ref(schemaOf(field.message, schemas)));
    case 'list': {
      const items = field.listKind === 'scalar' ? scalarSchema(field.scalar)
        : field.listKind === 'enum' ? { type: 'string', enum: field.enum.values.map((v) => v.name) }
        : WELL_KNOWN[field.message.typeName] ?? ref(schemaOf(field.message, schemas));
      return { type: 'array', items };
    }
    case 'map': {
      const values = field.mapKind === 'scalar' ? scalarSchema(field.scalar)
        : field.mapKind === 'enum' ? { type: 'string', enum: field.enum.values.map((v) => v.name) }
        : WELL_KNOWN[field.message.typeName] ?? ref(schemaOf(field.message, schemas));
      return { type: 'object', additionalProperties: values };
    }
  }
}

/** grpc-gateway writes an unset message as null. */
function nullable(schema: Schema): Schema {
  return { oneOf: [schema, { type: 'null' }] };
}

function scalarSchema(scalar: ScalarType): Schema {
  switch (scalar) {
    case ScalarType.BOOL: return { type: 'boolean' };
    case ScalarType.STRING: return { type: 'string' };
    case ScalarType.BYTES: return { type: 'string', contentEncoding: 'base64' };
    case ScalarType.DOUBLE: case ScalarType.FLOAT: return { type: 'number' };
    case ScalarType.INT64: case ScalarType.UINT64: case ScalarType.SINT64: case ScalarType.FIXED64: case ScalarType.SFIXED64:
      return { type: 'string', pattern: '^-?\\d+$', description: 'A 64-bit integer, as a JSON string.' };
    default: return { type: 'integer' };
  }
}
