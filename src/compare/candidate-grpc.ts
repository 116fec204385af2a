/**
 * A candidate spoken to over gRPC (HTTP/2), with a client made at run time
 * from the contract's descriptors: no generated code, every method of the
 * contract callable by its descriptor.
 */
import { fromBinary, fromJson, toJson, type DescMessage, type DescMethod, type DescMethodUnary, type JsonValue } from '@bufbuild/protobuf';
import { ConnectError, type Transport } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { contract } from '../contract/registry.ts';
import type { Json } from '../vocabulary/json.ts';
import { comparisonRequestId, safeUrl, UNANSWERED, type Candidate } from './candidate.ts';
import type { Outcome } from './outcome.ts';

const ErrorInfo = contract.getMessage('google.rpc.ErrorInfo') as DescMessage;

export class GrpcCandidate implements Candidate {
  readonly url: string;
  readonly #transport: Transport;

  constructor(url: string) {
    this.url = safeUrl(url);
    this.#transport = createGrpcTransport({ baseUrl: url });
  }

  async ask(method: DescMethod, request: Json, authorization: string, signal: AbortSignal): Promise<Outcome> {
    if (method.methodKind !== 'unary') return { kind: 'unanswered', why: 'only unary methods are compared' };
    try {
      const input = fromJson(method.input, request as JsonValue, { ignoreUnknownFields: true });
      const reply = await this.#transport.unary(method as DescMethodUnary, signal, undefined, { authorization, 'x-request-id': comparisonRequestId() }, input);
      return { kind: 'answer', message: toJson(method.output, reply.message as never) as Json };
    } catch (error) {
      if (!(error instanceof ConnectError)) return { kind: 'unanswered', why: (error as Error).message };
      if (UNANSWERED.has(error.code)) return { kind: 'unanswered', why: `gRPC status ${error.code}` };
      return errorFrom(error);
    }
  }

  async close(): Promise<void> {}
}

function errorFrom(error: ConnectError): Outcome {
  let reason = '';
  const types = new Set<string>();
  for (const detail of error.details) {
    const type = 'desc' in detail ? detail.desc.typeName : detail.type;
    types.add(type);
    if (type === ErrorInfo.typeName && !('desc' in detail)) {
      try {
        reason = String((fromBinary(ErrorInfo, detail.value) as unknown as { reason: string }).reason);
      } catch {
        // A detail that does not decode keeps its type; its reason stays unknown.
      }
    }
  }
  return { kind: 'error', code: error.code, reason, detailTypes: [...types].sort() };
}
