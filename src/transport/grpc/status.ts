/**
 * Failures as gRPC statuses: the same google.rpc.Status a REST caller gets as
 * its AIP-193 body — code, message, ErrorInfo first, then the typed details —
 * sent as `grpc-status-details-bin` (ConnectRPC encodes it from the details).
 */
import { create, fromJson, toBinary, type JsonObject } from '@bufbuild/protobuf';
import { Code as ConnectCode, ConnectError } from '@connectrpc/connect';
import { ApiError, domainForPath, internal, toAipBody, type Detail } from '../../aip/errors.ts';
import { contract } from '../../contract/registry.ts';
import { grpcPercentEncode } from './message-encoding.ts';

export function toConnectError(error: ApiError, domain: string, requestId: string): ConnectError {
  const body = toAipBody(error, domain, requestId);
  // Already-encoded details ("incoming" to ConnectRPC) go out as they are, as Any in the status.
  const failure = new ConnectError(body.message, body.code as number as ConnectCode);
  failure.details.push(...body.details.flatMap(encodeDetail));
  return failure;
}

/**
 * Gives `target` the code, bounded message and details of `error`, rendered as REST renders it. For
 * errors ConnectRPC raised itself (request-gate.ts), which have to be completed in place.
 */
export function completeConnectError(target: ConnectError, error: ApiError, domain: string, requestId: string): void {
  const body = toAipBody(error, domain, requestId);
  const writable = target as { -readonly [K in 'code' | 'rawMessage']: ConnectError[K] };
  writable.code = body.code as number as ConnectCode;
  writable.rawMessage = body.message;
  target.details.splice(0, target.details.length, ...body.details.flatMap(encodeDetail));
}

/** A detail as protobuf `Any` bytes; a detail whose type the contract lacks is left out rather than failing the answer. */
function encodeDetail(detail: Detail): { type: string; value: Uint8Array; debug: JsonObject }[] {
  const { '@type': url, ...fields } = detail;
  const type = url.slice(url.lastIndexOf('/') + 1);
  const desc = contract.getMessage(type);
  if (!desc) return [];
  return [{ type, value: toBinary(desc, fromJson(desc, fields as JsonObject, { registry: contract })), debug: fields as JsonObject }];
}

const STATUS = contract.getMessage('google.rpc.Status')!;
const ANY = contract.getMessage('google.protobuf.Any')!;

/** The status headers of a gRPC answer with no message (trailers-only), for answers written outside ConnectRPC. */
export function grpcStatusHeaders(error: ApiError, domain: string, requestId: string): Record<string, string> {
  const body = toAipBody(error, domain, requestId);
  const details = body.details.flatMap(encodeDetail).map((d) => create(ANY, { typeUrl: `type.googleapis.com/${d.type}`, value: d.value }));
  const status = create(STATUS, { code: body.code, message: body.message, details } as never);
  return {
    'grpc-status': String(body.code),
    'grpc-message': grpcPercentEncode(body.message),
    'grpc-status-details-bin': Buffer.from(toBinary(STATUS, status)).toString('base64').replace(/=+$/, ''),
  };
}

/** Any failure as the ApiError it answers with; a ConnectError raised by the framework keeps its own code. */
export function asApiError(error: unknown): ApiError | ConnectError {
  if (error instanceof ApiError || error instanceof ConnectError) return error;
  return internal();
}

/** `chainguard.platform.iam.v2beta1.GroupsService` → `iam.chainguard.dev`, as REST derives it from `/iam/…`. */
export function domainForService(typeName: string): string {
  return domainForPath(`/${typeName.split('.')[2] ?? ''}`);
}
