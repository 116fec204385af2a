/**
 * Turning what v1 said (or failed to say) into ApiErrors. v1 speaks
 * grpc-gateway: `{code, message, details}` with a matching HTTP status. Its code
 * and its message are kept exactly (no prefix of the gateway's); its typed
 * details are kept, with v1 package names moved to v2beta1; its `Retry-After`
 * becomes a RetryInfo on UNAVAILABLE and RESOURCE_EXHAUSTED.
 */
import {
  ApiError,
  deadlineExceeded,
  hasDetail,
  quotaFailureDetail,
  retryInfoDetail,
  unavailable,
  type Detail,
} from '../aip/errors.ts';
import { Code, codeForHttpStatus, isCode } from '../rpc-status.ts';

/** v1 detail types whose v2 twin lives in a versioned package (chainguard-dev/sdk: proto/google/rpc/status.proto, as grpc-gateway writes it). */
const V1_DETAIL_PACKAGE = /^(type\.googleapis\.com\/chainguard\.platform\.(?:iam|registry))\.(?!v2)([A-Z]\w*)$/;

function toV2Detail(detail: unknown): Detail | undefined {
  if (!detail || typeof detail !== 'object' || typeof (detail as Detail)['@type'] !== 'string') return undefined;
  const d = detail as Detail;
  const type = d['@type'].replace(V1_DETAIL_PACKAGE, '$1.v2beta1.$2');
  return { ...d, '@type': type };
}

/** Longest Retry-After honoured (a day); a larger one is taken as this. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * RFC 9110 §10.2.3: `Retry-After` is delay-seconds or an HTTP-date. The delay in whole seconds
 * (a date already past is 0), or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Math.min(Number(text), MAX_RETRY_AFTER_SECONDS);
  // Only a date that starts with its weekday (IMF-fixdate and the two obsolete forms), not any text Date.parse accepts.
  if (!/^[A-Za-z]{3,9},? \S/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, Math.ceil((at - now) / 1000)), MAX_RETRY_AFTER_SECONDS);
}

/** What v1 sent with an error status besides its body. */
export interface V1ErrorHeaders {
  'retry-after'?: string | string[] | undefined;
}

export function fromV1Response(status: number, text: string, headers: V1ErrorHeaders = {}, now = Date.now()): ApiError {
  let parsed: { code?: unknown; message?: unknown; details?: unknown } | undefined;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    parsed = undefined;
  }
  const code = isCode(parsed?.code) && parsed.code !== 0 ? parsed.code : codeForHttpStatus(status);
  const own = typeof parsed?.message === 'string' && parsed.message ? parsed.message : undefined;
  const message = own ?? `v1 answered HTTP ${status}`;
  const details = Array.isArray(parsed?.details) ? parsed.details.map(toV2Detail).filter((d): d is Detail => !!d) : [];
  if (code === Code.RESOURCE_EXHAUSTED && !hasDetail(details, 'QuotaFailure')) {
    details.push(quotaFailureDetail('v1', own ?? 'the v1 backend refused the request for now (too many requests)'));
  }
  const retryAfter = parseRetryAfter(headers['retry-after'], now);
  if ((code === Code.UNAVAILABLE || code === Code.RESOURCE_EXHAUSTED) && retryAfter !== undefined && !hasDetail(details, 'RetryInfo')) {
    details.push(retryInfoDetail(retryAfter));
  }
  // v1's own words reach the client as v1 wrote them; the fallback is the gateway's, so it is prefixed.
  return new ApiError(code, message, details, { upstream: 'v1', upstreamStatus: String(status) }, { verbatim: own !== undefined });
}

/** A v1 success whose body the gateway cannot read as JSON. */
export function notJson(status: number): ApiError {
  return new ApiError(Code.INTERNAL, `the v1 backend answered ${status} with a body that is not JSON`, [], {
    upstream: 'v1',
    upstreamStatus: String(status),
  });
}

/**
 * A v1 success whose JSON is no v1 answer: not an object, or a list whose `items` is not a list of
 * objects. The gateway says so rather than serve it as an empty list or a missing resource.
 */
export function unreadable(status: number, why: string): ApiError {
  return new ApiError(Code.INTERNAL, `the v1 backend answered ${status} with a body the gateway cannot read: ${why}`, [], {
    upstream: 'v1',
    upstreamStatus: String(status),
  });
}

/** A v1 answer larger than the gateway takes: it was cut off there, never read whole. */
export function tooLarge(status: number, maxBytes: number, whose = 'the gateway reads (--v1-max-body-bytes)'): ApiError {
  return new ApiError(Code.INTERNAL, `the v1 backend answered more than ${maxBytes} bytes, the most ${whose}`, [], {
    upstream: 'v1',
    upstreamStatus: String(status),
    maxBodyBytes: String(maxBytes),
  });
}

/**
 * undici's errors are told by their `code`, not by class: this module is loaded in native mode too
 * (the mappings read v1 rows with it), where undici itself is not.
 */
const UNDICI = {
  socket: 'UND_ERR_SOCKET',
  headersTimeout: 'UND_ERR_HEADERS_TIMEOUT',
  bodyTimeout: 'UND_ERR_BODY_TIMEOUT',
} as const;

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | undefined)?.code;
}

/** undici's errors and Node's codes that mean v1 was reached but dropped the exchange part-way. */
function isReset(error: unknown): boolean {
  const code = codeOf(error);
  return code === UNDICI.socket || code === 'ECONNRESET' || code === 'EPIPE';
}

export function fromTransportError(error: unknown, timeoutMs: number): ApiError {
  const name = (error as Error | undefined)?.name;
  const code = codeOf(error);
  const isTimeout = name === 'TimeoutError' || code === UNDICI.headersTimeout || code === UNDICI.bodyTimeout;
  if (isTimeout) return deadlineExceeded(`the v1 backend did not answer within ${timeoutMs} ms`);
  if (isReset(error)) return unavailable('the v1 backend closed the connection before its answer was complete');
  return unavailable('the v1 backend cannot be reached');
}
