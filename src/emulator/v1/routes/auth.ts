/**
 * `GET /auth/v1/ok`: v1's Auth.Validate, answering a WhoAmI — who the bearer
 * token is (`subject`, `issuer`, `email`, `profile`) and the capabilities v1
 * holds for it, one `{group, role}` entry per role binding (the v1 Group
 * without timestamps, the Role with its friendly capability names).
 *
 * Emulator decisions where the facts are silent (this emulator verifies no
 * signature, and serves every other route to any accepted token):
 * - a token names an identity when the emulator is told so (`auth.tokens`),
 *   or when it is a JWT whose `sub` is a registered identity's uid (as the
 *   issuer's API tokens are: src/emulator/issuer); its capabilities are that
 *   identity's role bindings;
 * - any other accepted token (the README's `Bearer demo`) is the demo
 *   caller: every other route serves it everything, so its WhoAmI says so,
 *   the owner role at every organisation, unless `auth.demoCaller` is false,
 *   when it holds nothing; its subject is the JWT's `sub`, else a digest of
 *   the token (caller.ts), never the token;
 * - a JWT that names no subject is refused (UNAUTHENTICATED): no v1 token lacks one;
 * - `auth.failWith` answers 404 (a v1 without the route) or 503 (v1
 *   unavailable) before any token is read.
 */
import { callerSubject, jwtClaims } from '../caller.ts';
import { notFound, unauthenticated, V1Error } from '../errors.ts';
import { EMPTY_REQUEST, GROUP } from '../messages.ts';
import { decodeQuery, renderMessage, type Message } from '../protojson.ts';
import type { Route } from '../router.ts';
import type { EmulatorState } from '../state.ts';
import { Code } from '../status-codes.ts';

/** How `/auth/v1/ok` answers; the object is kept, so a test may change it while the emulator runs. */
export interface AuthSettings {
  /** Opaque tokens standing for registered identities (token → identity uid). */
  tokens?: Record<string, string>;
  /** Whether a token that names no registered identity is the demo caller, owner of every organisation (true unless false). */
  demoCaller?: boolean;
  /** Answer this HTTP status instead of a WhoAmI: 404 (no such route) or 503 (unavailable). */
  failWith?: 404 | 503 | undefined;
}

const PROFILE_CLAIMS = { name: 'name', picture: 'picture', givenName: 'given_name', familyName: 'family_name' } as const;

export function authRoutes(state: EmulatorState, settings: AuthSettings): Route[] {
  const validate: Route<Message> = {
    method: 'GET',
    path: '/auth/v1/ok',
    decode: ({ query }) => {
      if (settings.failWith === 404) throw notFound('Not Found');
      if (settings.failWith === 503) throw new V1Error(Code.UNAVAILABLE, 'the auth service is unavailable');
      return decodeQuery(EMPTY_REQUEST, query);
    },
    run: (_request, { token }) => whoAmI(state, settings, token),
  };
  return [validate as Route];
}

function whoAmI(state: EmulatorState, settings: AuthSettings, token: string): Record<string, unknown> {
  const claims = jwtClaims(token);
  if (claims && (typeof claims.sub !== 'string' || claims.sub === '')) throw unauthenticated('the token names no subject');
  const named = settings.tokens?.[token] ?? (claims ? String(claims.sub) : undefined);
  const identity = named !== undefined && state.hasIdentity(named) ? named : undefined;
  const bindings = identity !== undefined
    ? state.bindingsOf(identity)
    : settings.demoCaller === false ? [] : state.organisations().map((group) => ({ group, role: state.listRoles({ id: state.builtinRoles.owner })[0]! }));
  const profile = claims && Object.values(PROFILE_CLAIMS).some((claim) => typeof claims[claim] === 'string')
    ? Object.fromEntries(Object.entries(PROFILE_CLAIMS).map(([field, claim]) => [field, typeof claims[claim] === 'string' ? claims[claim] : '']))
    : null;
  const audience = claims?.aud === undefined ? [] : [claims.aud].flat().map(String);
  return {
    issuer: typeof claims?.iss === 'string' ? claims.iss : '',
    subject: identity ?? callerSubject(token),
    audience,
    expiry: time(claims?.exp),
    issuedAt: time(claims?.iat),
    capabilities: bindings.map(({ group, role }) => ({ group: renderMessage(GROUP, group as unknown as Message), role, capabilities: [] })),
    email: typeof claims?.email === 'string' ? claims.email : '',
    profile,
  };
}

/** A JWT's seconds since the epoch as a protojson Timestamp; null when absent. */
function time(seconds: unknown): string | null {
  return typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString() : null;
}
