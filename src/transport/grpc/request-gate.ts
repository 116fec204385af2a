/**
 * The gate every call ConnectRPC serves passes first: the RPC's request id
 * and bookkeeping, load shedding, and errors ConnectRPC raises itself answered
 * as the gateway's own: google.rpc.Status with ErrorInfo, the request id, and
 * never INTERNAL for the caller's bytes.
 *
 * ConnectRPC refuses some calls before the RPC's handler runs — a message that
 * does not decode (which it calls INTERNAL), a broken envelope, a compression
 * flag with no encoding, a malformed `grpc-timeout`, a message over the size
 * limit — and answers them with no details. Those errors are raised outside
 * any interceptor. The one point where the gateway sees each of them is the
 * handler context's `abort`: every protocol's handler (gRPC, gRPC-Web,
 * Connect) calls it with the error just before writing that error out. So the
 * request gate, which runs first for every call, wraps it and completes such
 * an error in place: the code (a request that could not be read is
 * INVALID_ARGUMENT), the bounded message, and REST's details.
 *
 * An error with details already came from a handler (toConnectError) and is
 * left alone. One without details after the handler began is the gateway's
 * own failure (a response it could not encode): INTERNAL, and logged.
 */
import { ConnectError, createContextKey, type HandlerContext } from '@connectrpc/connect';
import { ApiError, internal, invalidField } from '../../aip/errors.ts';
import { Code, type CodeNumber } from '../../rpc-status.ts';
import { isHealthCheck, startCall, type CallObservers } from './call.ts';
import { completeConnectError, domainForService, toConnectError } from './status.ts';
import type { TraceSpan } from '../../observability/tracing.ts';

/** The call's request id: the caller's `x-request-id` when usable, or a new one (request-id.ts). */
export const REQUEST_ID = createContextKey('', { description: 'x-request-id' });
/** The call's server span (or, tracing off, the caller's context to hand on); undefined when neither. */
export const TRACE_SPAN = createContextKey<TraceSpan | undefined>(undefined, { description: 'trace span' });
/** Set once the RPC's handler has the decoded message. */
const HANDLER_RAN = createContextKey(false, { description: 'the handler ran' });

/** Called by each RPC's handler as it starts. */
export function handlerRan(context: HandlerContext): void {
  context.values.set(HANDLER_RAN, true);
}

/** ConnectRPC's `requestGate`: runs for every call, after its headers and before its body is read. */
export function requestGate(observers: CallObservers, shed?: () => ApiError | undefined): (context: HandlerContext) => void {
  return (context) => {
    const service = context.service.typeName;
    const call = startCall(observers, service, context.method.name, context.protocolName, (name) => context.requestHeader.get(name));
    const { requestId, rpc } = call;
    context.values.set(TRACE_SPAN, call.span);
    // The access line, as REST has one: every call ends through abort, with its error or with none.
    const accessLine = (error: unknown): void => call.end((error instanceof ConnectError ? error.code : Code.OK) as CodeNumber);
    context.values.set(REQUEST_ID, requestId);
    context.responseHeader.set('x-request-id', requestId);
    const complete = (error: unknown): void => {
      // A finished call aborts with no ConnectError; a handler's error carries its details already.
      if (!(error instanceof ConnectError) || error.details.length > 0) return;
      const answer = context.values.get(HANDLER_RAN) ? afterHandler(error) : refusal(error);
      if (answer.code === Code.INTERNAL) observers.log.error({ err: error, reqId: requestId, rpc }, 'unhandled error');
      completeConnectError(error, answer, domainForService(service), requestId);
    };
    const controller = context as HandlerContext & Abortable;
    const abort = controller.abort.bind(controller);
    controller.abort = (reason) => {
      complete(reason);
      accessLine(reason);
      abort(reason);
    };
    // An overloaded gateway refuses the call before reading it; health answers whatever the load.
    const overloaded = isHealthCheck(service) ? undefined : shed?.();
    if (overloaded) {
      const error = toConnectError(overloaded, domainForService(service), requestId);
      accessLine(error);
      throw error;
    }
    // A deadline already past (`grpc-timeout: 0n`) or a caller already gone: answered now, the body unread.
    if (context.signal.aborted) {
      complete(context.signal.reason);
      accessLine(context.signal.reason);
      throw context.signal.reason;
    }
  };
}

/** The handler context as ConnectRPC's handlers hold it: with the abort they call before writing an error. */
interface Abortable {
  abort(reason?: unknown): void;
}

/** A ConnectRPC error once the handler ran keeps its code (a deadline, a cancellation); INTERNAL or UNKNOWN is the gateway's own failure. */
function afterHandler(error: ConnectError): ApiError {
  const code = error.code as number;
  return code === Code.INTERNAL || code === Code.UNKNOWN ? internal() : new ApiError(code as CodeNumber, error.rawMessage);
}

/** What a call ConnectRPC refused before its handler answers. */
function refusal(error: ConnectError): ApiError {
  switch (error.code as number) {
    // A message that does not decode, or an envelope no encoding explains: the caller's bytes.
    case Code.INTERNAL:
    case Code.UNKNOWN:
      return invalidField('request', `the request message cannot be read: ${error.rawMessage}`);
    case Code.INVALID_ARGUMENT:
      return invalidField('request', error.rawMessage);
    default:
      return new ApiError(error.code as number as CodeNumber, error.rawMessage);
  }
}


