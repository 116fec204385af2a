/**
 * grpc-gateway's error body `{code, message, details}` (api-surface.md §0.6).
 * The one typed detail v1 attaches is TermsNotAcceptedDetail (on
 * FAILED_PRECONDITION, "terms not accepted"); every other error has none.
 */
import { Code, httpStatusFor, type CodeNumber } from './status-codes.ts';

export class V1Error extends Error {
  readonly code: CodeNumber;
  /** Typed details, each `{'@type': …, …}` as protojson writes an Any. */
  readonly details: readonly unknown[];

  constructor(code: CodeNumber, message: string, details: readonly unknown[] = []) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

/** A legal document the organisation has not accepted (v1 `MissingDocument`). */
export interface MissingDocument {
  id: string;
  label: string;
  url: string;
}

/** v1's terms error: FAILED_PRECONDITION with one `chainguard.platform.iam.TermsNotAcceptedDetail`. */
export const termsNotAccepted = (missing: readonly MissingDocument[]): V1Error =>
  new V1Error(Code.FAILED_PRECONDITION, 'terms not accepted', [{ '@type': 'type.googleapis.com/chainguard.platform.iam.TermsNotAcceptedDetail', missing }]);

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
export function wireError(code: CodeNumber, message: string, status = httpStatusFor(code), details: readonly unknown[] = []): WireError {
  // grpc-gateway echoes an UNAUTHENTICATED message into WWW-Authenticate.
  const headers: Record<string, string> = code === Code.UNAUTHENTICATED ? { 'www-authenticate': message } : {};
  return { status, body: { code, message, details: [...details] }, headers };
}
