/**
 * gRPC server reflection, so grpcurl, Postman and friends can call the
 * gateway with no .proto files at hand: they ask which services exist, then
 * for the files that define a symbol, and build their own descriptors.
 *
 * Served as both grpc.reflection.v1 and the older v1alpha (still what many
 * clients try first); the two protos are field-for-field identical, so one
 * implementation answers both, creating responses of the service it runs for.
 */
import { toBinary, type DescExtension, type DescFile, type DescMessage, type DescService, type FileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import type { ConnectRouter } from '@connectrpc/connect';
import { method, requireService } from './health.ts';

export interface ReflectionOptions {
  registry: FileRegistry;
  /** What list_services answers: the fully-qualified services the server exposes (reflection included, if wanted). */
  services: () => readonly string[];
}

/** ServerReflectionRequest as a dynamic message: the proto's fields, camelCased. */
interface ReflectionRequest {
  host: string;
  messageRequest:
    | { case: 'fileByFilename' | 'fileContainingSymbol' | 'allExtensionNumbersOfType' | 'listServices'; value: string }
    | { case: 'fileContainingExtension'; value: { containingType: string; extensionNumber: number } }
    | { case: undefined; value?: undefined };
}

type ReflectionAnswer = { case: string; value: Record<string, unknown> };

// google.rpc.Code numbers, as ErrorResponse.error_code carries them.
const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;

export function reflectionRoutes(router: ConnectRouter, options: ReflectionOptions): void {
  const index = indexRegistry(options.registry);
  for (const name of ['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection']) {
    const service = requireService(options.registry, name);
    router.rpc(method(service, 'ServerReflectionInfo', 'bidi_streaming'), async function* (requests) {
      // Per stream, as grpc-go does: a client keeps what it was sent, so a dependency goes out once.
      const sent = new Set<string>();
      for await (const message of requests) {
        const request = message as unknown as ReflectionRequest;
        // A failed lookup is an answer on the stream, never the stream's end: the client goes on asking.
        yield { validHost: request.host, originalRequest: message, messageResponse: answer(request, index, options, sent) };
      }
    });
  }
}

function answer(request: ReflectionRequest, index: RegistryIndex, options: ReflectionOptions, sent: Set<string>): ReflectionAnswer {
  const ask = request.messageRequest;
  switch (ask.case) {
    case 'listServices':
      return { case: 'listServicesResponse', value: { service: options.services().map((name) => ({ name })) } };
    case 'fileByFilename': {
      const file = options.registry.getFile(ask.value);
      return file ? files(file, sent, index) : notFound(`file ${JSON.stringify(ask.value)} not found`);
    }
    case 'fileContainingSymbol': {
      const file = index.symbols.get(ask.value);
      return file ? files(file, sent, index) : notFound(`symbol ${JSON.stringify(ask.value)} not found`);
    }
    case 'fileContainingExtension': {
      const { containingType, extensionNumber } = ask.value;
      const extension = index.extensions.get(containingType)?.find((e) => e.number === extensionNumber);
      return extension ? files(extension.file, sent, index) : notFound(`extension ${extensionNumber} of ${JSON.stringify(containingType)} not found`);
    }
    case 'allExtensionNumbersOfType': {
      // A known message without extensions answers an empty list; only an unknown type is an error.
      if (!options.registry.getMessage(ask.value)) return notFound(`message type ${JSON.stringify(ask.value)} not found`);
      const numbers = (index.extensions.get(ask.value) ?? []).map((e) => e.number);
      return { case: 'allExtensionNumbersResponse', value: { baseTypeName: ask.value, extensionNumber: numbers } };
    }
    default:
      return error(INVALID_ARGUMENT, 'the request names no message_request');
  }
}

/** The file itself (always, even if sent before: it is what was asked), then its transitive imports this stream has not had yet. */
function files(file: DescFile, sent: Set<string>, index: RegistryIndex): ReflectionAnswer {
  const out: Uint8Array[] = [index.encode(file)];
  sent.add(file.name);
  const seen = new Set([file.name]);
  const queue = [...file.dependencies];
  while (queue.length > 0) {
    const dep = queue.shift()!;
    if (seen.has(dep.name)) continue;
    seen.add(dep.name);
    queue.push(...dep.dependencies);
    if (sent.has(dep.name)) continue;
    sent.add(dep.name);
    out.push(index.encode(dep));
  }
  return { case: 'fileDescriptorResponse', value: { fileDescriptorProto: out } };
}

const notFound = (message: string): ReflectionAnswer => error(NOT_FOUND, message);
const error = (code: number, message: string): ReflectionAnswer => ({ case: 'errorResponse', value: { errorCode: code, errorMessage: message } });

interface RegistryIndex {
  /** Every fully-qualified name a client may ask about, to the file that declares it. */
  symbols: Map<string, DescFile>;
  /** Extensions by the message they extend. */
  extensions: Map<string, DescExtension[]>;
  /** A file's FileDescriptorProto bytes, encoded once. */
  encode: (file: DescFile) => Uint8Array;
}

/**
 * The registry resolves types, but a client also asks for methods, fields and
 * enum values (grpcurl describe does), so every name is indexed once up front;
 * the registry is immutable, so the index never goes stale.
 */
function indexRegistry(registry: FileRegistry): RegistryIndex {
  const symbols = new Map<string, DescFile>();
  const extensions = new Map<string, DescExtension[]>();
  const addExtension = (ext: DescExtension): void => {
    symbols.set(ext.typeName, ext.file);
    const list = extensions.get(ext.extendee.typeName) ?? [];
    list.push(ext);
    extensions.set(ext.extendee.typeName, list);
  };
  const addEnum = (file: DescFile, typeName: string, values: readonly { name: string }[]): void => {
    symbols.set(typeName, file);
    // Enum values are scoped as siblings of their enum (C++ rules); the enum-qualified form is accepted too.
    const scope = typeName.slice(0, typeName.lastIndexOf('.') + 1);
    for (const value of values) {
      symbols.set(scope + value.name, file);
      symbols.set(`${typeName}.${value.name}`, file);
    }
  };
  const addMessage = (message: DescMessage): void => {
    symbols.set(message.typeName, message.file);
    for (const field of message.fields) symbols.set(`${message.typeName}.${field.name}`, message.file);
    for (const oneof of message.oneofs) symbols.set(`${message.typeName}.${oneof.name}`, message.file);
    for (const nested of message.nestedEnums) addEnum(message.file, nested.typeName, nested.values);
    for (const nested of message.nestedExtensions) addExtension(nested);
    for (const nested of message.nestedMessages) addMessage(nested);
  };
  const addService = (service: DescService): void => {
    symbols.set(service.typeName, service.file);
    for (const m of service.methods) symbols.set(`${service.typeName}.${m.name}`, service.file);
  };
  for (const file of registry.files) {
    for (const e of file.enums) addEnum(file, e.typeName, e.values);
    for (const m of file.messages) addMessage(m);
    for (const x of file.extensions) addExtension(x);
    for (const s of file.services) addService(s);
  }
  const encoded = new WeakMap<DescFile, Uint8Array>();
  const encode = (file: DescFile): Uint8Array => {
    let bytes = encoded.get(file);
    if (!bytes) encoded.set(file, (bytes = toBinary(FileDescriptorProtoSchema, file.proto)));
    return bytes;
  };
  return { symbols, extensions, encode };
}
