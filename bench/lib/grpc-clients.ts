/**
 * One unary RPC, made again and again over one HTTP/2 session: the unit the
 * gRPC load generator (bench/lib/grpc-load.ts) runs its callers on. Two
 * implementations, so the choice can be checked (`--grpc-client`): ConnectRPC's
 * `createGrpcTransport` and `@grpc/grpc-js`. Both encode the request and decode
 * the response with protobuf-es from the project's own contract
 * (src/contract/registry.ts), so they do the same message work and differ only
 * in their gRPC machinery. grpc-js is the default: measured, it spends about
 * 40-50% less of the load generator's CPU per call (~550 against ~910 µs on
 * 16 sessions), CPU the load generator would otherwise take from the gateway
 * on a two-core machine (bench/README.md).
 */
import { fromBinary, toBinary, type DescMethodUnary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';

export type GrpcClientKind = 'connect' | 'grpc-js';
export const GRPC_CLIENT_KINDS: readonly GrpcClientKind[] = ['connect', 'grpc-js'];

export interface UnaryCall<I extends DescMessage = DescMessage, O extends DescMessage = DescMessage> {
  method: DescMethodUnary<I, O>;
  request: MessageShape<I>;
  /** Sent as `authorization` metadata on every call. */
  authorization: string;
  /** Per-call deadline (grpc-timeout), like autocannon's per-request timeout. */
  timeoutMs: number;
  /**
   * Whether the client says it accepts gzip answers (the gateway then gzips those over 1 KiB). False asks
   * for identity, as REST's answers are sent; only the connect client honours it: grpc-js always
   * advertises `identity,deflate,gzip` and cannot be told otherwise.
   */
  acceptGzip: boolean;
}

/** A failed call: the gRPC status name (`UNAVAILABLE`, ...) and message. */
export class GrpcCallError extends Error {
  readonly status: string;
  constructor(status: string, message: string) {
    super(`${status}: ${message}`);
    this.status = status;
  }
}

/** One HTTP/2 session to the gateway, making one kind of call. */
export interface UnaryClient<O extends DescMessage = DescMessage> {
  /** Resolves with the decoded response; rejects with a GrpcCallError. */
  call(): Promise<MessageShape<O>>;
  close(): void;
}

/** `Code.NotFound` → `NOT_FOUND`, as gRPC spells status names. */
function statusName(code: number, names: Record<number, string>): string {
  return (names[code] ?? String(code)).replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

function connectClient<I extends DescMessage, O extends DescMessage>(baseUrl: string, spec: UnaryCall<I, O>): UnaryClient<O> {
  // A session manager of our own per client, so each client is one HTTP/2 session, closed by abort().
  const session = new Http2SessionManager(baseUrl);
  const transport = createGrpcTransport({ baseUrl, sessionManager: session, ...(spec.acceptGzip ? {} : { acceptCompression: [] }) });
  const rpc = createClient(spec.method.parent, transport)[spec.method.localName] as unknown as (
    request: MessageShape<I>,
    options: { headers: Record<string, string>; timeoutMs: number },
  ) => Promise<MessageShape<O>>;
  const options = { headers: { authorization: spec.authorization }, timeoutMs: spec.timeoutMs };
  return {
    call: async () => {
      try {
        return await rpc(spec.request, options);
      } catch (error) {
        const e = ConnectError.from(error);
        throw new GrpcCallError(statusName(e.code, Code as unknown as Record<number, string>), e.rawMessage);
      }
    },
    close: () => session.abort(),
  };
}

function grpcJsClient<I extends DescMessage, O extends DescMessage>(baseUrl: string, spec: UnaryCall<I, O>): UnaryClient<O> {
  // A local subchannel pool: otherwise every client to the same address shares one connection.
  const client = new grpc.Client(new URL(baseUrl).host, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
  const path = `/${spec.method.parent.typeName}/${spec.method.name}`;
  const serialize = (message: MessageShape<I>) => Buffer.from(toBinary(spec.method.input, message));
  const deserialize = (bytes: Buffer) => fromBinary(spec.method.output, bytes);
  return {
    call: () =>
      new Promise<MessageShape<O>>((resolve, reject) => {
        const metadata = new grpc.Metadata();
        metadata.set('authorization', spec.authorization);
        client.makeUnaryRequest(path, serialize, deserialize, spec.request, metadata, { deadline: Date.now() + spec.timeoutMs }, (error, response) => {
          if (error) reject(new GrpcCallError(statusName(error.code, grpc.status as unknown as Record<number, string>), error.details));
          else resolve(response!);
        });
      }),
    close: () => client.close(),
  };
}

export function unaryClient<I extends DescMessage, O extends DescMessage>(kind: GrpcClientKind, baseUrl: string, spec: UnaryCall<I, O>): UnaryClient<O> {
  return kind === 'connect' ? connectClient(baseUrl, spec) : grpcJsClient(baseUrl, spec);
}
