/**
 * AIP-193 errors: one class every layer throws, and one renderer that turns it
 * into the wire body `{code, message, details}` with an ErrorInfo first.
 * Pure: no I/O, no framework types.
 */
import { Code, codeName, httpStatusFor, type CodeNumber } from '../rpc-status.ts';

const TYPE_PREFIX = 'type.googleapis.com/google.rpc.';

/** A typed detail as it travels on the wire: an `@type` URL plus the message's fields. */
export type Detail = { '@type': string } & Record<string, unknown>;

export interface FieldViolation {
  field: string;
  description: string;
}

export interface PreconditionViolation {
  type: string;
  subject: string;
  description: string;
}

/** The message prefix for each code; the spec fixes the first two. */
const MESSAGE_PREFIX: Partial<Record<CodeNumber, string>> = {
  [Code.INVALID_ARGUMENT]: 'Invalid argument: ',
  [Code.FAILED_PRECONDITION]: 'Precondition failed: ',
  [Code.NOT_FOUND]: 'Not found: ',
  [Code.ALREADY_EXISTS]: 'Already exists: ',
  [Code.PERMISSION_DENIED]: 'Permission denied: ',
  [Code.UNAUTHENTICATED]: 'Unauthenticated: ',
  [Code.RESOURCE_EXHAUSTED]: 'Resource exhausted: ',
  [Code.UNAVAILABLE]: 'Unavailable: ',
  [Code.DEADLINE_EXCEEDED]: 'Deadline exceeded: ',
  [Code.UNIMPLEMENTED]: 'Unimplemented: ',
  [Code.ABORTED]: 'Aborted: ',
  [Code.OUT_OF_RANGE]: 'Out of range: ',
  [Code.CANCELLED]: 'Cancelled: ',
  [Code.INTERNAL]: 'Internal error: ',
  [Code.UNKNOWN]: 'Unknown error: ',
  [Code.DATA_LOSS]: 'Data loss: ',
};

export interface ApiErrorOptions {
  /**
   * Keep `message` exactly as given, without the code's prefix: for a message another service wrote
   * (v1's own errors), which the gateway passes on unchanged. The gateway's own messages are prefixed.
   */
  verbatim?: boolean;
  /** ErrorInfo's reason, where the code's name alone would not say what went wrong (upper snake case). */
  reason?: string;
}

export class ApiError extends Error {
  readonly code: CodeNumber;
  /** Typed details other than ErrorInfo, which is added when rendering (its domain depends on the route). */
  readonly details: Detail[];
  /** Extra ErrorInfo metadata (string values only, per google.rpc.ErrorInfo). */
  readonly metadata: Record<string, string> | undefined;
  /** ErrorInfo's reason; the code's name when unset. */
  readonly reason: string | undefined;

  constructor(code: CodeNumber, message: string, details: Detail[] = [], metadata?: Record<string, string>, options: ApiErrorOptions = {}) {
    const prefix = options.verbatim ? '' : (MESSAGE_PREFIX[code] ?? '');
    // An answer, not a fault: where it was made is never shown or logged, and capturing the stack was
    // an eighth of the CPU of a request refused for its input (a CPU profile of a malformed uid under load).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message.startsWith(prefix) ? message : prefix + message);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = 'ApiError';
    this.code = code;
    this.details = details;
    this.metadata = metadata;
    this.reason = options.reason;
  }

  get httpStatus(): number {
    return httpStatusFor(this.code);
  }
}

export function badRequestDetail(violations: FieldViolation[]): Detail {
  return { '@type': `${TYPE_PREFIX}BadRequest`, fieldViolations: violations };
}

export function invalidArgument(violations: FieldViolation[]): ApiError {
  const summary = violations.map((v) => `${v.field}: ${v.description}`).join('; ');
  return new ApiError(Code.INVALID_ARGUMENT, summary, [badRequestDetail(violations)]);
}

export function invalidField(field: string, description: string): ApiError {
  return invalidArgument([{ field, description }]);
}

export function failedPrecondition(violations: PreconditionViolation[]): ApiError {
  const summary = violations.map((v) => v.description).join('; ');
  return new ApiError(Code.FAILED_PRECONDITION, summary, [
    { '@type': `${TYPE_PREFIX}PreconditionFailure`, violations },
  ]);
}

export function notFound(resourceType: string, resourceName: string): ApiError {
  return new ApiError(Code.NOT_FOUND, `${resourceType} "${resourceName}" does not exist or is not visible to the caller`, [
    { '@type': `${TYPE_PREFIX}ResourceInfo`, resourceType, resourceName, owner: '', description: 'not found' },
  ]);
}

export function unauthenticated(message: string): ApiError {
  return new ApiError(Code.UNAUTHENTICATED, message);
}

export function unavailable(message: string, retryDelaySeconds = 1): ApiError {
  return new ApiError(Code.UNAVAILABLE, message, [
    { '@type': `${TYPE_PREFIX}RetryInfo`, retryDelay: `${retryDelaySeconds}s` },
  ]);
}

/** google.rpc.RetryInfo: how long to wait before retrying (a protobuf Duration in JSON, whole seconds). */
export function retryInfoDetail(delaySeconds: number): Detail {
  return { '@type': `${TYPE_PREFIX}RetryInfo`, retryDelay: `${Math.max(0, Math.ceil(delaySeconds))}s` };
}

/** google.rpc.QuotaFailure with one violation. */
export function quotaFailureDetail(subject: string, description: string): Detail {
  return { '@type': `${TYPE_PREFIX}QuotaFailure`, violations: [{ subject, description }] };
}

/** The delay a RetryInfo among `details` asks for, in seconds (fractions kept); undefined without one. */
export function retryDelayOf(details: readonly Detail[]): number | undefined {
  const info = details.find((d) => d['@type'] === `${TYPE_PREFIX}RetryInfo`);
  const match = typeof info?.retryDelay === 'string' ? /^(\d+)(\.\d{1,9})?s$/.exec(info.retryDelay) : null;
  return match ? Number(match[1]) + Number(match[2] ?? 0) : undefined;
}

/** Whether `details` hold a detail of the google.rpc type `name` (`RetryInfo`, `QuotaFailure`, …). */
export function hasDetail(details: readonly Detail[], name: string): boolean {
  return details.some((d) => d['@type'] === `${TYPE_PREFIX}${name}`);
}

export function deadlineExceeded(message: string): ApiError {
  return new ApiError(Code.DEADLINE_EXCEEDED, message);
}

export function resourceExhausted(subject: string, description: string): ApiError {
  return new ApiError(Code.RESOURCE_EXHAUSTED, description, [
    { '@type': `${TYPE_PREFIX}QuotaFailure`, violations: [{ subject, description }] },
  ]);
}

/** An RPC of the contract this gateway does not serve (yet). */
export function unimplemented(rpc: string, reason?: string): ApiError {
  return new ApiError(Code.UNIMPLEMENTED, `${rpc} is part of the v2 API but is not served by this gateway${reason ? `: ${reason}` : ''}`);
}

export function internal(message = 'the gateway failed to handle the request'): ApiError {
  return new ApiError(Code.INTERNAL, message);
}

export interface AipErrorBody {
  code: number;
  message: string;
  details: Detail[];
}

/**
 * Most UTF-8 bytes of the message an error answers with, and of each string in its details. Messages
 * echo input (a field's value, a parser's view of a body), and a gRPC status travels twice in the
 * trailers (`grpc-message` and inside `grpc-status-details-bin`), which must fit one HTTP/2 header
 * block whatever the caller sent (clients take 8 to 16 KiB).
 */
export const MAX_MESSAGE_BYTES = 1024;
export const MAX_DETAIL_TEXT_BYTES = 256;

/**
 * `text` as an answer may carry it: well-formed (a lone surrogate, as a parser's cut through an emoji
 * leaves, becomes U+FFFD) and at most `maxBytes` of UTF-8, cut between code points and ended with `…`.
 */
export function boundedText(text: string, maxBytes: number): string {
  const whole = text.toWellFormed();
  if (whole.length <= maxBytes / 3 || Buffer.byteLength(whole, 'utf8') <= maxBytes) return whole;
  let out = '';
  let bytes = 0;
  const budget = maxBytes - 3; // `…` is three bytes
  for (const char of whole) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > budget) break;
    out += char;
    bytes += size;
  }
  return `${out}…`;
}

/** Every string inside a detail bounded (keys, `@type` and numbers are the gateway's own and left as they are). */
function boundedDetail<T>(value: T): T {
  if (typeof value === 'string') return boundedText(value, MAX_DETAIL_TEXT_BYTES) as T;
  if (Array.isArray(value)) return value.map(boundedDetail) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === '@type' ? v : boundedDetail(v)])) as T;
  }
  return value;
}

/**
 * The wire body: ErrorInfo (reason = code name, domain = the service, the request id when there is
 * one) first, then the typed details; the message and every detail string bounded (boundedText).
 */
export function toAipBody(error: ApiError, domain: string, requestId?: string): AipErrorBody {
  const errorInfo: Detail = { '@type': `${TYPE_PREFIX}ErrorInfo`, reason: error.reason ?? codeName(error.code), domain };
  const metadata = { ...error.metadata, ...(requestId === undefined ? {} : { requestId }) };
  if (Object.keys(metadata).length > 0) errorInfo.metadata = metadata;
  const rest = error.details.filter((d) => d['@type'] !== errorInfo['@type']);
  return { code: error.code, message: boundedText(error.message, MAX_MESSAGE_BYTES), details: [errorInfo, ...rest].map(boundedDetail) };
}

/** The service domain for a request path: its first segment names the service. */
export function domainForPath(path: string): string {
  const service = /^\/(iam|registry|vulnerabilities|advisory)(?:\/|$)/.exec(path)?.[1] ?? 'iam';
  return `${service}.chainguard.dev`;
}
