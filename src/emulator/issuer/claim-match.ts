/**
 * Whether a presented token's issuer and subject satisfy an identity's
 * `claimMatch`: exact strings, or the `issuerPattern` / `subjectPattern`
 * regular expressions, which must match the whole claim.
 */
export interface ClaimMatch {
  issuer?: string;
  subject?: string;
  issuerPattern?: string;
  subjectPattern?: string;
}

export function claimMatches(match: ClaimMatch, iss: string, sub: string): boolean {
  return issuerMatches(match, iss) && matches(match.subject, match.subjectPattern, sub);
}

export function issuerMatches(match: ClaimMatch, iss: string): boolean {
  return matches(match.issuer, match.issuerPattern, iss);
}

function matches(exact: string | undefined, pattern: string | undefined, value: string): boolean {
  if (exact) return exact === value;
  if (!pattern) return false;
  try {
    return new RegExp(`^(?:${pattern})$`).test(value);
  } catch {
    return false;
  }
}
