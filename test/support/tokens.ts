/**
 * Tokens a hostile caller would try, made against the emulator's issuer with
 * real signatures (jose): each differs from a good token in one way only.
 */
import { decodeProtectedHeader, exportSPKI, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { RunningIssuer } from '../../src/emulator/issuer/index.ts';

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

export interface BadTokens {
  forged: string;
  expired: string;
  notYetValid: string;
  wrongAudience: string;
  wrongIssuer: string;
  algNone: string;
  unknownKey: string;
  hs256KeyConfusion: string;
}

export async function badTokens(issuer: RunningIssuer, untrusted: RunningIssuer, sub: string, audience: string): Promise<BadTokens> {
  const good = await issuer.apiToken(sub, audience);
  const [header, payload] = good.split('.');
  const claims = { iss: issuer.url, sub, aud: audience, iat: now(), exp: now() + 3600 };
  // The issuer's own published key, used as an HMAC secret: the classic confusion.
  const published = ((await (await fetch(`${issuer.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] }).keys[0]!;
  const pem = await exportSPKI((await importJWK(published, 'RS256', { extractable: true })) as CryptoKey);
  const stranger = await generateKeyPair('RS256');
  return {
    forged: `${header}.${part({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: `${sub}0` })}.${good.split('.')[2]}`,
    expired: await issuer.apiToken(sub, audience, { ttlSeconds: -300 }),
    notYetValid: await issuer.apiToken(sub, audience, { claims: { nbf: now() + 600 } }),
    wrongAudience: await issuer.apiToken(sub, 'https://another-api.example'),
    wrongIssuer: await untrusted.apiToken(sub, audience),
    algNone: `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`,
    unknownKey: await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'not-a-published-key' }).sign(stranger.privateKey),
    hs256KeyConfusion: await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: decodeProtectedHeader(good).kid! }).sign(new TextEncoder().encode(pem)),
  };
}
