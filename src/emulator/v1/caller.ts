/**
 * What v1 reads of a caller's token for the email-domain flows (LookupGroup,
 * RequestGroupAccess, CheckEligibility; api-surface.md §1): the email and
 * whether the token comes from a trusted upstream identity provider that
 * verifies emails itself.
 *
 * Emulator decisions where the facts are silent: the token is read as a JWT
 * without checking its signature (this emulator judges no signatures at all);
 * "trusted upstream" means the `iss` claim is one of TRUSTED_ISSUERS and the
 * token says `email_verified: true`; the blocked-domains list is a few free
 * email providers. Any other token (an opaque string, such as the demo's) has
 * no email, so it passes no gate.
 */
import { createHash } from 'node:crypto';

const TRUSTED_ISSUERS = new Set(['https://accounts.google.com', 'https://login.microsoftonline.com/common/v2.0']);
const BLOCKED_DOMAINS = new Set(['gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'yahoo.com']);

/** The caller's email domain when the token passes v1's eligibility gates, else undefined. */
export function eligibleDomain(token: string): string | undefined {
  const claims = jwtClaims(token);
  if (!claims || !TRUSTED_ISSUERS.has(String(claims.iss)) || claims.email_verified !== true) return undefined;
  const email = typeof claims.email === 'string' ? claims.email : '';
  const domain = email.includes('@') ? email.slice(email.lastIndexOf('@') + 1).toLowerCase() : '';
  return domain && !BLOCKED_DOMAINS.has(domain) ? domain : undefined;
}

/** The caller, to tell callers apart: issuer and subject, or a digest of a token that is no JWT (never the token itself). */
export function callerKey(token: string): string {
  const claims = jwtClaims(token);
  return claims ? `${String(claims.iss)}|${String(claims.sub)}` : `token:${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
}

/** The subject a record names as its author (a document's acceptor): the JWT's `sub`, else the caller key. */
export function callerSubject(token: string): string {
  const sub = jwtClaims(token)?.sub;
  return typeof sub === 'string' && sub !== '' ? sub : callerKey(token);
}

/** The token's claims when it is a JWT (read, never verified), else undefined. */
export function jwtClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    return claims && typeof claims === 'object' && !Array.isArray(claims) ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
