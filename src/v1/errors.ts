/**
 * Turning what v1 said (or failed to say) into ApiErrors. v1 speaks
 * grpc-gateway: `{code, message, details}` with a matching HTTP status. Its code
 * is kept; its typed details are kept, with v1 package names moved to v2beta1.
 */
import { errors as undiciErrors } from 'undici';
import { ApiError, deadlineExceeded, unavailable, type Detail } from '../aip/errors.ts';
import { codeForHttpStatus, isCode } from '../rpc-status.ts';

/** v1 detail types whose v2 twin lives in a versioned package (api-surface.md §0.6). */
const V1_DETAIL_PACKAGE = /^(type\.googleapis\.com\/chainguard\.platform\.(?:iam|registry))\.(?!v2)([A-Z]\w*)$/;

function toV2Detail(detail: unknown): Detail | undefined {
  if (!detail || typeof detail !== 'object' || typeof (detail as Detail)['@type'] !== 'string') return undefined;
  const d = detail as Detail;
  const type = d['@type'].replace(V1_DETAIL_PACKAGE, '$1.v2beta1.$2');
  return { ...d, '@type': type };
}

export function fromV1Response(status: number, text: string): ApiError {
  let parsed: { code?: unknown; message?: unknown; details?: unknown } | undefined;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    parsed = undefined;
  }
  const code = isCode(parsed?.code) && parsed.code !== 0 ? parsed.code : codeForHttpStatus(status);
  const message = typeof parsed?.message === 'string' && parsed.message ? parsed.message : `v1 answered HTTP ${status}`;
  const details = Array.isArray(parsed?.details) ? parsed.details.map(toV2Detail).filter((d): d is Detail => !!d) : [];
  return new ApiError(code, message, details, { upstream: 'v1', upstreamStatus: String(status) });
}

export function fromTransportError(error: unknown, timeoutMs: number): ApiError {
  const name = (error as Error | undefined)?.name;
  const isTimeout =
    name === 'TimeoutError' ||
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    (error instanceof undiciErrors.RequestRetryError && /timeout/i.test(String(error.message)));
  if (isTimeout) return deadlineExceeded(`the v1 backend did not answer within ${timeoutMs} ms`);
  return unavailable('the v1 backend cannot be reached');
}
