/**
 * A real gRPC client for the gateway, as the Go SDK would be: @grpc/grpc-js
 * over cleartext HTTP/2 to the REST port, the service definitions loaded from
 * the project's own .proto files, the bearer token as call metadata, and the
 * `google.rpc.Status` in `grpc-status-details-bin` decoded into its details.
 */
import { fromBinary, toJson, type JsonObject } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import * as loader from '@grpc/proto-loader';
import { apiServices, contract } from '../../src/contract/registry.ts';
import { TOKEN } from './stack.ts';

const definition = loader.loadSync([
  // Every service of the contract, so any RPC can be called as the Go SDK would.
  ...apiServices().map((service) => service.file.name + '.proto'),
  'grpc/health/v1/health.proto',
], {
  includeDirs: ['proto'],
  // Field names and values as protojson writes them, so answers compare with REST's directly.
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: false,
});
const loaded = grpc.loadPackageDefinition(definition);

/** What a failed call carries: its code, message and decoded details (protojson, `@type` first). */
export interface GrpcFailure {
  code: number;
  message: string;
  details: JsonObject[];
  metadata: grpc.Metadata;
}

export interface CallOptions {
  /** `null` sends no authorization metadata. */
  authorization?: string | null;
  deadlineMs?: number;
  signal?: AbortSignal;
  /** More metadata to send (a `traceparent`). */
  metadata?: Record<string, string>;
}

export class GrpcClient {
  readonly #address: string;
  readonly #credentials: grpc.ChannelCredentials;
  readonly #clients = new Map<string, grpc.Client>();
  readonly #channel: grpc.ChannelOptions;

  /**
   * `url`: the gateway's http://host:port (h2c), exactly what the Go SDK is given; https:// with the CA to trust for TLS.
   * `channel`: grpc-js channel options (`grpc.default_authority` to name another host).
   */
  constructor(url: string, tls?: { ca: Buffer }, channel: grpc.ChannelOptions = {}) {
    this.#address = new URL(url).host;
    this.#channel = channel;
    this.#credentials = url.startsWith('https:') ? grpc.credentials.createSsl(tls?.ca ?? null) : grpc.credentials.createInsecure();
  }

  #client(service: string): grpc.Client & Record<string, Function> {
    let client = this.#clients.get(service);
    if (!client) {
      const Ctor = service.split('.').reduce<any>((node, part) => node[part], loaded) as grpc.ServiceClientConstructor;
      client = new Ctor(this.#address, this.#credentials, this.#channel);
      this.#clients.set(service, client);
    }
    return client as grpc.Client & Record<string, Function>;
  }

  /** A unary call: resolves with the response object, rejects with a GrpcFailure. */
  call<T = any>(service: string, method: string, request: object, options: CallOptions = {}): Promise<T> {
    const client = this.#client(service);
    const metadata = new grpc.Metadata();
    const authorization = options.authorization === undefined ? TOKEN : options.authorization;
    if (authorization !== null) metadata.set('authorization', authorization);
    for (const [key, value] of Object.entries(options.metadata ?? {})) metadata.set(key, value);
    const callOptions: grpc.CallOptions = options.deadlineMs ? { deadline: Date.now() + options.deadlineMs } : {};
    const rpc = method.charAt(0).toLowerCase() + method.slice(1);
    return new Promise<T>((resolve, reject) => {
      const call = client[rpc]!.call(client, request, metadata, callOptions, (error: grpc.ServiceError | null, response: T) => {
        if (error) reject(failure(error));
        else resolve(response);
      });
      options.signal?.addEventListener('abort', () => call.cancel(), { once: true });
    });
  }

  close(): void {
    for (const client of this.#clients.values()) client.close();
  }
}

export function failure(error: grpc.ServiceError): GrpcFailure {
  const raw = error.metadata?.get('grpc-status-details-bin')[0];
  const details: JsonObject[] = [];
  if (raw instanceof Buffer) {
    const Status = contract.getMessage('google.rpc.Status')!;
    const status = toJson(Status, fromBinary(Status, raw), { registry: contract }) as { details?: JsonObject[] };
    details.push(...(status.details ?? []));
  }
  return { code: error.code, message: error.details, details, metadata: error.metadata };
}

/** Expects a call to fail; answers its failure. */
export async function rejected(promise: Promise<unknown>): Promise<GrpcFailure> {
  try {
    await promise;
  } catch (error) {
    if ((error as GrpcFailure).details) return error as GrpcFailure;
    throw error;
  }
  throw new Error('the call succeeded, but it was expected to fail');
}
