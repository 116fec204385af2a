/**
 * The gRPC transport (gRPC, gRPC-Web and Connect, by ConnectRPC): one handler
 * per RPC of the contract. A served RPC turns its message into the same
 * operation REST builds and encodes the same v2 document as protobuf; an RPC
 * the gateway does not serve answers UNIMPLEMENTED.
 */
import { fromJson, type DescMethod, type DescMethodUnary, type JsonValue, type Message } from '@bufbuild/protobuf';
import { ConnectError, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError, unimplemented } from '../../aip/errors.ts';
import type { Binding } from '../../contract/bindings.ts';
import { finish, requestContext } from '../../operation/context.ts';
import type { OperationRunner } from '../../operation/execute.ts';
import { bearer } from '../rest/auth.ts';
import { grpcOperation } from './request.ts';
import { handlerRan, REQUEST_ID, TRACE_SPAN } from './framework-errors.ts';
import { asApiError, domainForService, toConnectError } from './status.ts';

export interface GrpcOptions {
  bindings: readonly Binding[];
  /** RPCs of the contract that are not served: answered UNIMPLEMENTED. */
  unserved: readonly DescMethod[];
  /** Why, by `package.Service.Method`. */
  unservedReasons?: Readonly<Record<string, string>>;
  runner: OperationRunner;
  /** Time one request may take in all; a shorter `grpc-timeout` from the caller wins. */
  budgetMs: number;
  debugHeaders: boolean;
  log: FastifyBaseLogger;
}

type Answer = (message: Message, context: HandlerContext, requestId: string) => Promise<Message>;

export function grpcRoutes(router: ConnectRouter, options: GrpcOptions): void {
  for (const binding of options.bindings) {
    const method = binding.method as DescMethodUnary;
    register(router, method, options.log, async (message, context, requestId) => {
      const timeoutMs = context.timeoutMs();
      const ctx = requestContext({
        authorization: bearer(context.requestHeader.get('authorization')),
        requestId,
        budgetMs: timeoutMs === undefined ? options.budgetMs : Math.min(options.budgetMs, timeoutMs),
        callerSignal: context.signal,
        trace: context.values.get(TRACE_SPAN),
      });
      try {
        const document = await options.runner.execute(grpcOperation(binding, message), ctx);
        if (options.debugHeaders) context.responseHeader.set('x-v2gw-v1-calls', String(ctx.counter.v1Calls));
        return fromJson(method.output, document as JsonValue);
      } finally {
        finish(ctx);
      }
    });
  }
  for (const method of options.unserved) {
    if (method.methodKind !== 'unary') continue;
    register(router, method as DescMethodUnary, options.log, async () => {
      const rpc = `${method.parent.typeName}.${method.name}`;
      throw unimplemented(rpc, options.unservedReasons?.[rpc]);
    });
  }
}

/** One RPC: every failure as the same status REST would give, with the request id the request gate assigned. */
function register(router: ConnectRouter, method: DescMethodUnary, log: FastifyBaseLogger, answer: Answer): void {
  const domain = domainForService(method.parent.typeName);
  router.rpc(method, async (message, context: HandlerContext) => {
    handlerRan(context);
    const requestId = context.values.get(REQUEST_ID);
    try {
      return await answer(message, context, requestId);
    } catch (error) {
      const failure = asApiError(error);
      if (failure instanceof ConnectError) throw failure;
      const rpc = `${method.parent.typeName}/${method.name}`;
      if (!(error instanceof ApiError)) log.error({ err: error, reqId: requestId, rpc }, 'unhandled error');
      else if (failure.httpStatus >= 500) log.warn({ reqId: requestId, rpc, code: failure.code, message: failure.message }, 'request failed');
      throw toConnectError(failure, domain, requestId);
    }
  });
}
