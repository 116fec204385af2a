/**
 * Failures as gRPC statuses: the same google.rpc.Status a REST caller gets as
 * its AIP-193 body — code, message, ErrorInfo first, then the typed details —
 * sent as `grpc-status-details-bin` (ConnectRPC encodes it from the details).
 */
import { fromJson, toBinary, type JsonObject } from '@bufbuild/protobuf';
import { Code as ConnectCode, ConnectError } from '@connectrpc/connect';
import { ApiError, internal, toAipBody, type Detail } from '../../aip/errors.ts';
import { contract } from '../../contract/registry.ts';

export function toConnectError(error: ApiError, domain: string, requestId: string): ConnectError {
  const body = toAipBody(error, domain);
  body.details[0]!.metadata = { ...(body.details[0]!.metadata as object | undefined), requestId };
  const failure = new ConnectError(error.message, error.code as number as ConnectCode);
  // Already-encoded details ("incoming" to ConnectRPC) go out as they are, as Any in the status.
  failure.details.push(...body.details.flatMap(encodeDetail));
  return failure;
}

/** A detail as protobuf `Any` bytes; a detail whose type the contract lacks is left out rather than failing the answer. */
function encodeDetail(detail: Detail): { type: string; value: Uint8Array; debug: JsonObject }[] {
  const { '@type': url, ...fields } = detail;
  const type = url.slice(url.lastIndexOf('/') + 1);
  const desc = contract.getMessage(type);
  if (!desc) return [];
  return [{ type, value: toBinary(desc, fromJson(desc, fields as JsonObject, { registry: contract })), debug: fields as JsonObject }];
}

/** Any failure as the ApiError it answers with; a ConnectError raised by the framework keeps its own code. */
export function asApiError(error: unknown): ApiError | ConnectError {
  if (error instanceof ApiError || error instanceof ConnectError) return error;
  return internal();
}
