/**
 * grpc-gateway's error body `{code, message, details}` (api-surface.md §0.6).
 * The v1 backend never attaches typed details to the errors emulated here, so
 * `details` is always an empty array.
 */
import { Code, httpStatusFor, type CodeNumber } from '../../rpc-status.ts';

export class V1Error extends Error {
  readonly code: CodeNumber;

  constructor(code: CodeNumber, message: string) {
    super(message);
    this.code = code;
  }
}

export const invalidArgument = (message: string): V1Error => new V1Error(Code.INVALID_ARGUMENT, message);
export const notFound = (message: string): V1Error => new V1Error(Code.NOT_FOUND, message);
export const failedPrecondition = (message: string): V1Error => new V1Error(Code.FAILED_PRECONDITION, message);
export const permissionDenied = (message: string): V1Error => new V1Error(Code.PERMISSION_DENIED, message);
export const alreadyExists = (message: string): V1Error => new V1Error(Code.ALREADY_EXISTS, message);
export const unauthenticated = (message: string): V1Error => new V1Error(Code.UNAUTHENTICATED, message);
export const resourceExhausted = (message: string): V1Error => new V1Error(Code.RESOURCE_EXHAUSTED, message);

export interface ErrorBody {
  code: number;
  message: string;
  details: unknown[];
}

export interface WireError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

/** The HTTP response grpc-gateway's DefaultHTTPErrorHandler writes for a status. */
export function wireError(code: CodeNumber, message: string, status = httpStatusFor(code)): WireError {
  // grpc-gateway echoes an UNAUTHENTICATED message into WWW-Authenticate.
  const headers: Record<string, string> = code === Code.UNAUTHENTICATED ? { 'www-authenticate': message } : {};
  return { status, body: { code, message, details: [] }, headers };
}
