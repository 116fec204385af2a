/**
 * The contract's RPCs as gRPC answers, whichever server reads the call: one
 * answer per RPC. A served RPC turns its message into the same operation REST
 * builds and answers with the same v2 document, which the server reading the
 * call encodes (the gateway's own unary server straight to binary,
 * document-binary.ts; ConnectRPC from a message); an RPC the gateway does not
 * serve answers UNIMPLEMENTED. Every failure is the ApiError REST would answer
 * with; the server reading the call writes it as a gRPC status.
 */
import { fromJson, type DescMethod, type DescMethodUnary, type JsonValue, type Message } from '@bufbuild/protobuf';
import { ConnectError, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError, unimplemented } from '../../aip/errors.ts';
import type { Binding } from '../../contract/bindings.ts';
import { finish, requestContext, type RequestContext } from '../../request/context.ts';
import type { CancelSignal } from '../../cancellation.ts';
import type { Runner } from '../../port/runner.ts';
import type { CallerHeaders } from '../../policy/sidecar-callers.ts';
import type { TraceSpan } from '../../observability/tracing.ts';
import { grpcOperation } from './request.ts';
import { handlerRan, REQUEST_ID, TRACE_SPAN } from './request-gate.ts';
import { asApiError, domainForService, toConnectError } from './status.ts';

export interface GrpcOptions {
  bindings: readonly Binding[];
  /** RPCs of the contract that are not served: answered UNIMPLEMENTED. */
  unserved: readonly DescMethod[];
  /** Why, by `package.Service.Method`. */
  unservedReasons?: Readonly<Record<string, string>>;
  /** The policy step in front of the operation runner (policy/guard.ts). */
  runner: Runner;
  /** Time one request may take in all; a shorter `grpc-timeout` from the caller wins. */
  budgetMs: number;
  debugHeaders: boolean;
  /** Refuses a call by who sent it, before anything else (the sidecar's rule, policy/sidecar-callers.ts); undefined: every caller. */
  admit?: ((headers: CallerHeaders) => ApiError | undefined) | undefined;
}

/** What an answer needs of the call, from whichever server read it. */
export interface UnaryCall {
  /** The `authorization` metadata, as sent. */
  authorization: string | null | undefined;
  /** HTTP/2's `:authority` (or `Host`), and `Origin`, as sent. */
  authority: string | null | undefined;
  origin: string | null | undefined;
  /** The caller's deadline (`grpc-timeout`), if it sent one. */
  timeoutMs: number | undefined;
  /** Aborted when the caller cancels or goes away; unset for a transport that tells the request itself (`adopt`). */
  signal?: CancelSignal | undefined;
  /**
   * Set by a transport that times the whole call and hears its caller go itself (the gateway's own unary
   * server): handed the request's context as soon as it is made, it ends the request's work through it
   * (request/context.ts: deadlinePassed, callerGone), and the context arms no timer of its own.
   */
  adopt?(ctx: RequestContext): void;
  requestId: string;
  span: TraceSpan | undefined;
  /** `grpc`, `grpc-web` or `connect`; gRPC when unsaid (the gateway's own gRPC server). */
  protocol?: string;
  /** Adds a response header (sent with the answer's headers). */
  setHeader(name: string, value: string): void;
}

export interface UnaryMethod {
  method: DescMethodUnary;
  /**
   * The response as its v2 document (protojson), which each server encodes as its wire needs; rejects
   * with the ApiError to answer with (anything else is the gateway's own failure).
   */
  answer(message: Message, call: UnaryCall): Promise<JsonValue>;
}

/** Every unary RPC of the contract, served or not. */
export function unaryMethods(options: GrpcOptions): UnaryMethod[] {
  const served = options.bindings.map((binding): UnaryMethod => {
    const method = binding.method as DescMethodUnary;
    return {
      method,
      async answer(message, call) {
        const refused = options.admit?.({ authority: call.authority ?? undefined, origin: call.origin ?? undefined });
        if (refused) throw refused;
        const ctx = requestContext({
          authorization: call.authorization ?? '',
          requestId: call.requestId,
          budgetMs: call.timeoutMs === undefined ? options.budgetMs : Math.min(options.budgetMs, call.timeoutMs),
          callerSignal: call.signal,
          trace: call.span,
          protocol: call.protocol ?? 'grpc',
          timedByTransport: call.adopt !== undefined,
        });
        call.adopt?.(ctx);
        try {
          const document = await options.runner.execute(grpcOperation(binding, message), ctx);
          if (options.debugHeaders) call.setHeader('x-v2gw-v1-calls', String(ctx.counter.v1Calls));
          return document as JsonValue;
        } finally {
          finish(ctx);
        }
      },
    };
  });
  const unserved = options.unserved
    .filter((method) => method.methodKind === 'unary')
    .map((method): UnaryMethod => ({
      method: method as DescMethodUnary,
      async answer() {
        const rpc = `${method.parent.typeName}.${method.name}`;
        throw unimplemented(rpc, options.unservedReasons?.[rpc]);
      },
    }));
  return [...served, ...unserved];
}

/** The failure an answer's error is written as; a failure that is no ApiError is logged (it is the gateway's own). */
export function failureOf(error: unknown, rpc: string, requestId: string, log: FastifyBaseLogger): ApiError | ConnectError {
  const failure = asApiError(error);
  if (failure instanceof ConnectError) return failure;
  if (!(error instanceof ApiError)) log.error({ err: error, reqId: requestId, rpc }, 'unhandled error');
  else if (failure.httpStatus >= 500) log.warn({ reqId: requestId, rpc, code: failure.code, message: failure.message }, 'request failed');
  return failure;
}

/** Registers every method on ConnectRPC's router (gRPC-Web, Connect, and gRPC calls the gateway's own server leaves to it). */
export function grpcRoutes(router: ConnectRouter, methods: readonly UnaryMethod[], log: FastifyBaseLogger): void {
  for (const { method, answer } of methods) {
    const domain = domainForService(method.parent.typeName);
    const rpc = `${method.parent.typeName}/${method.name}`;
    router.rpc(method, async (message, context: HandlerContext) => {
      handlerRan(context);
      const requestId = context.values.get(REQUEST_ID);
      try {
        return fromJson(method.output, await answer(message, {
          authorization: context.requestHeader.get('authorization'),
          // The adapter gives ConnectRPC, which drops HTTP/2's pseudo-headers, `:authority` as `host` (adapter.ts).
          authority: context.requestHeader.get('host'),
          origin: context.requestHeader.get('origin'),
          timeoutMs: context.timeoutMs(),
          signal: context.signal,
          requestId,
          span: context.values.get(TRACE_SPAN),
          protocol: context.protocolName,
          setHeader: (name, value) => context.responseHeader.set(name, value),
        }));
      } catch (error) {
        const failure = failureOf(error, rpc, requestId, log);
        throw failure instanceof ConnectError ? failure : toConnectError(failure, domain, requestId);
      }
    });
  }
}
