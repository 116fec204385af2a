/**
 * grpc-gateway path matching, reduced to the three template shapes v1 uses
 * here: a literal path; a literal prefix followed by one `{x=**}` variable that
 * swallows slashes and may match zero segments (api-surface.md §0.2); and such
 * a variable followed by one literal segment (`advisories/{parent_id=**}/events`),
 * where the literal is matched from the end, as grpc-gateway does. Kept
 * apart from fastify's router because grpc-gateway's rules differ: the
 * last-declared route wins an ambiguity, and a path that only other methods
 * serve is 405, not 404.
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Who is calling: the bearer token, already accepted (v1 reads some claims of it, e.g. for LookupGroup). */
export interface Caller {
  readonly token: string;
}

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
  /** With `capture`: a literal last segment after the variable (`path/<anything>/suffix`, or `path/suffix`). */
  suffix?: string;
  /** A custom verb (`:lookupGroup`) that ends the last segment; the rest of the path is matched as usual. */
  verb?: string;
  /** The contract marks the method `disabled`: it is served without a token (the caller's token is then ''). */
  public?: boolean;
  /** Gateway-side work (body and query decoding); its errors precede authentication. */
  decode(request: RawRequest): I;
  /** Server-side work, run only for an authenticated caller. */
  run(input: I, caller: Caller): unknown;
}

export type Match = { route: Route; capture: string } | 'method-not-allowed' | 'not-found';

function rawCapture(route: Route, path: string): string | undefined {
  if (!route.suffix) {
    if (path === route.path) return '';
    return route.capture && path.startsWith(`${route.path}/`) ? path.slice(route.path.length + 1) : undefined;
  }
  const tail = `/${route.suffix}`;
  if (path.length < route.path.length + tail.length || !path.startsWith(route.path) || !path.endsWith(tail)) return undefined;
  const middle = path.slice(route.path.length, path.length - tail.length);
  if (middle === '') return '';
  return middle.startsWith('/') ? middle.slice(1) : undefined;
}

function captureOf(route: Route, path: string): string | undefined {
  if (route.verb) {
    if (!path.endsWith(`:${route.verb}`)) return undefined;
    path = path.slice(0, -route.verb.length - 1);
  }
  const raw = rawCapture(route, path);
  if (raw === undefined) return undefined;
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
