/**
 * grpc-gateway path matching, reduced to the two template shapes v1 uses here:
 * a literal path, and a literal prefix followed by one `{x=**}` variable that
 * swallows slashes and may match zero segments (api-surface.md §0.2). Kept
 * apart from fastify's router because grpc-gateway's rules differ: the
 * last-declared route wins an ambiguity, and a path that only other methods
 * serve is 405, not 404.
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RawRequest {
  /** The `{x=**}` capture ("" for a literal route or an empty capture). */
  capture: string;
  body: string;
  query: URLSearchParams;
}

export interface Route<I = unknown> {
  method: Method;
  path: string;
  /** Serves `path` and `path/<anything>` as one `{x=**}` variable. */
  capture?: boolean;
  /** Gateway-side work (body and query decoding); its errors precede authentication. */
  decode(request: RawRequest): I;
  /** Server-side work, run only for an authenticated caller. */
  run(input: I): unknown;
}

export type Match = { route: Route; capture: string } | 'method-not-allowed' | 'not-found';

function captureOf(route: Route, path: string): string | undefined {
  if (path === route.path) return '';
  if (!route.capture || !path.startsWith(`${route.path}/`)) return undefined;
  const raw = path.slice(route.path.length + 1);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export function matchRoute(routes: readonly Route[], method: string, path: string): Match {
  let otherMethod = false;
  // grpc-gateway lets the last-declared pattern win (e.g. rolebindings/batch/** over rolebindings/**).
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i]!;
    const capture = captureOf(route, path);
    if (capture === undefined) continue;
    if (route.method === method) return { route, capture };
    otherMethod = true;
  }
  return otherMethod ? 'method-not-allowed' : 'not-found';
}
