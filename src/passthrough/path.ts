/**
 * Which paths the pass-through carries, and which of them it can carry
 * without changing a byte.
 */

/**
 * The v1 services, as `/<service>/v1/…` (the google.api.http rules of each v1
 * service in chainguard-dev/sdk: proto/platform/). Advisory is one
 * of them although the gateway serves no v2 advisory resource: a client that
 * points its v1 SDK at the sidecar calls it too, and forwarding costs nothing.
 */
export const V1_SERVICES = ['iam', 'registry', 'vulnerabilities', 'advisory'] as const;

/** The request target without its query string, exactly as the client sent it. */
export function rawPath(url: string): string {
  const cut = url.indexOf('?');
  return cut < 0 ? url : url.slice(0, cut);
}

/** A dot segment hidden behind escaped slashes (`a%2F..%2Fb`): a server that decodes before it resolves climbs it. */
function hasEscapedDotSegment(path: string): boolean {
  const unescaped = path.replace(/%2f/gi, '/').replace(/%5c/gi, '\\').replace(/%2e/gi, '.');
  return unescaped.split(/[/\\]/).some((segment) => segment === '.' || segment === '..');
}

/**
 * Why a path cannot be forwarded unchanged, or undefined when it can. Whatever
 * reads it on the way to v1 may parse it as a WHATWG URL, which percent-encodes
 * characters that are not allowed raw in a path (`"`, `{`, `<`, …), turns `\`
 * into `/` and resolves `.`, `..` and `%2e` segments, or decode escaped slashes
 * first. Such a path is refused rather than sent to be read otherwise than the
 * client wrote it; every path a v1 client builds passes. (A malformed escape
 * such as `%zz` never gets here: Fastify's router refuses it first.)
 */
export function unforwardablePath(path: string): string | undefined {
  if (new URL(path, 'http://v1.invalid').pathname === path && !hasEscapedDotSegment(path)) return undefined;
  return 'the path holds characters that must be percent-encoded, or dot segments';
}
