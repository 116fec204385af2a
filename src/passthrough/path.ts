/**
 * Which paths the pass-through carries, and which of them it can carry
 * without changing a byte.
 */

/**
 * The v1 services, as `/<service>/v1/…` (api-surface.md §0.1). Advisory is one
 * of them although the gateway serves no v2 advisory resource: a client that
 * points its v1 SDK at the sidecar calls it too, and forwarding costs nothing.
 */
export const V1_SERVICES = ['iam', 'registry', 'vulnerabilities', 'advisory'] as const;

/** The request target without its query string, exactly as the client sent it. */
export function rawPath(url: string): string {
  const cut = url.indexOf('?');
  return cut < 0 ? url : url.slice(0, cut);
}

/**
 * Why a path cannot be forwarded unchanged, or undefined when it can. The
 * proxy library builds the upstream URL with the WHATWG URL parser, which
 * percent-encodes characters that are not allowed raw in a path (`"`, `{`,
 * `<`, …), turns `\` into `/` and resolves `.`, `..` and `%2e` segments.
 * Such a path is refused rather than forwarded altered; every path a v1
 * client builds passes. (A malformed escape such as `%zz` never gets here:
 * Fastify's router refuses it first.)
 */
export function unforwardablePath(path: string): string | undefined {
  if (new URL(path, 'http://v1.invalid').pathname === path) return undefined;
  return 'the path holds characters that must be percent-encoded, or dot segments';
}
