/**
 * Who may use a sidecar that lends its workload identity (`--identity`): its
 * own pod, and no browser. Whoever reaches the API with no token acts as the
 * workload, so the port must be reachable by the pod's own processes only:
 *
 * - the listener binds loopback (config.ts refuses `--identity` on another
 *   host unless `--identity-allow-remote` says so);
 * - a request must name a loopback host (`Host`, or HTTP/2's `:authority`):
 *   a page whose own name an attacker points at 127.0.0.1 (DNS rebinding)
 *   names its own host, and is refused;
 * - a request carrying `Origin` comes from a browser (every cross-origin
 *   request, every POST), never from a workload's API client: refused;
 * - a REST write with a body must say it is JSON, so a browser's "simple"
 *   cross-origin request (a form's `text/plain`, sent with no preflight) is
 *   refused even by a browser that sent no Origin.
 *
 * Both transports apply these, REST in a hook before any route, gRPC (and
 * gRPC-Web, Connect) before the call's operation is built.
 */
import type { IncomingHttpHeaders } from 'node:http2';
import { ApiError, invalidField } from '../aip/errors.ts';
import { isLoopback } from '../config.ts';
import { Code } from '../rpc-status.ts';

export interface SidecarCallers {
  /** `--identity-allow-remote`: any Host is served (the operator opened the port on purpose); Origin and content type still count. */
  readonly remoteAllowed: boolean;
}

/** What the rule reads of a request, whichever protocol carried it. */
export interface CallerHeaders {
  /** HTTP/2's `:authority`, else `Host`. */
  readonly authority: string | undefined;
  readonly origin: string | undefined;
}

/** The host of a Host header: `localhost:8080` → `localhost`, `[::1]:8080` → `[::1]`. */
function hostOf(authority: string): string {
  const bracketed = /^(\[[^\]]*\])(:\d*)?$/.exec(authority);
  if (bracketed) return bracketed[1]!;
  return authority.replace(/:\d*$/, '');
}

function refused(message: string, reason: string): ApiError {
  return new ApiError(Code.PERMISSION_DENIED, message, [], undefined, { reason });
}

/** PERMISSION_DENIED when the request is not from the sidecar's own pod, as far as its headers tell; undefined when it may go on. */
export function sidecarRefusal(headers: CallerHeaders, policy: SidecarCallers): ApiError | undefined {
  if (headers.origin !== undefined) {
    return refused('this gateway lends its workload identity and serves no browser: a request with an Origin header is refused', 'SIDECAR_BROWSER_REQUEST');
  }
  if (policy.remoteAllowed) return undefined;
  const authority = headers.authority?.trim() ?? '';
  if (!isLoopback(hostOf(authority))) {
    return refused('this gateway lends its workload identity to its own pod only: the request must name a loopback host (localhost, 127.0.0.1, [::1])', 'SIDECAR_HOST_NOT_LOOPBACK');
  }
  return undefined;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** `application/json`, with parameters or not (`; charset=utf-8`). */
const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * INVALID_ARGUMENT (400) for a REST write whose body is not declared JSON. Not HTTP 415: an AIP-193
 * answer's status is its code's, and no code maps to 415; grpc-gateway, which would read any body as
 * JSON, gives no precedent to follow.
 */
function restWriteRefusal(method: string, contentType: string | undefined, hasBody: boolean): ApiError | undefined {
  if (!WRITES.has(method.toUpperCase()) || !hasBody || JSON_TYPE.test(contentType?.trim() ?? '')) return undefined;
  return invalidField('content-type', 'a write to this gateway must carry its body as JSON (Content-Type: application/json)');
}

/** A REST request (HTTP/1.1 or HTTP/2) by its method and headers: the two rules above, Host and Origin first. */
export function restRefusal(method: string, headers: IncomingHttpHeaders, policy: SidecarCallers): ApiError | undefined {
  const authority = headers[':authority'] ?? headers.host;
  const refused = sidecarRefusal({ authority, origin: headers.origin }, policy);
  if (refused) return refused;
  const type = headers['content-type'];
  const hasBody = type !== undefined || headers['transfer-encoding'] !== undefined || (headers['content-length'] ?? '0') !== '0';
  return restWriteRefusal(method, type, hasBody);
}
