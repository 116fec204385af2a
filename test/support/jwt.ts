/** An unsigned JWT carrying the given claims: what v1 reads of a caller for the email-domain flows. */
export function jwt(claims: Record<string, unknown>): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}.c2lnbmF0dXJl`;
}

/** A caller from a trusted upstream provider with a verified email. */
export function trustedCaller(email: string, sub = email): string {
  return jwt({ iss: 'https://accounts.google.com', sub, email, email_verified: true });
}
