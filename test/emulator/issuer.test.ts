/** The emulator's issuer over real HTTP: discovery, JWKS, the STS exchange and its refusals. */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIssuer, type RunningIssuer } from '../../src/emulator/issuer/index.ts';

const API = 'http://api.test';
const IDENTITY = 'a'.repeat(40) + '/' + 'b'.repeat(16);

describe('emulator issuer', () => {
  let issuer: RunningIssuer;
  beforeAll(async () => {
    issuer = await startIssuer();
    issuer.identities.set(IDENTITY, { issuer: issuer.platform.url, subject: 'system:serviceaccount:apps:web' });
  });
  afterAll(() => issuer.close());

  const exchange = async (presented: string | undefined, query: Record<string, string> = { aud: API, identity: IDENTITY }) => {
    const response = await fetch(`${issuer.url}/sts/exchange?${new URLSearchParams(query)}`, { headers: presented ? { authorization: `Bearer ${presented}` } : {} });
    return { status: response.status, body: (await response.json()) as { token?: string; code?: number; message?: string } };
  };

  it('publishes discovery documents that name their JWKS', async () => {
    const api = await (await fetch(`${issuer.url}/.well-known/openid-configuration`)).json();
    expect(api).toMatchObject({ issuer: issuer.url, jwks_uri: `${issuer.url}/.well-known/jwks.json`, id_token_signing_alg_values_supported: ['RS256'] });
    const platform = (await (await fetch(`${issuer.platform.url}/.well-known/openid-configuration`)).json()) as { issuer: string };
    expect(platform.issuer).toBe(issuer.platform.url);
  });

  it('exchanges a matching platform token for a signed one-hour API token for the identity', async () => {
    const { status, body } = await exchange(await issuer.platformToken('system:serviceaccount:apps:web'));
    expect(status).toBe(200);
    const keys = createRemoteJWKSet(new URL(`${issuer.url}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(body.token!, keys, { issuer: issuer.url, audience: API });
    expect(payload.sub).toBe(IDENTITY);
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('refuses a token whose subject the identity does not match, and an unknown identity, alike', async () => {
    const other = await exchange(await issuer.platformToken('system:serviceaccount:apps:other'));
    const unknown = await exchange(await issuer.platformToken('system:serviceaccount:apps:web'), { aud: API, identity: 'c'.repeat(40) });
    expect(other).toEqual({ status: 403, body: { code: 7, message: expect.any(String), details: [] } });
    expect(unknown).toEqual(other);
  });

  it('refuses a missing bearer, a token signed by no published key, and missing parameters', async () => {
    expect((await exchange(undefined)).status).toBe(401);
    const good = await issuer.platformToken('system:serviceaccount:apps:web');
    const [header, payload] = good.split('.');
    expect((await exchange(`${header}.${payload}.${'A'.repeat(342)}`)).body.code).toBe(16);
    expect((await exchange(good, { identity: IDENTITY })).status).toBe(400);
  });

  it('answers UNAVAILABLE while down', async () => {
    issuer.unavailable = true;
    try {
      expect(await exchange(await issuer.platformToken('system:serviceaccount:apps:web'))).toMatchObject({ status: 503, body: { code: 14 } });
    } finally {
      issuer.unavailable = false;
    }
  });

  it('rotates its key: new tokens name the new key, tokens of the retired key still verify until it is forgotten', async () => {
    const before = await issuer.apiToken(IDENTITY, API);
    const kid = await issuer.api.keys.rotate();
    const after = await issuer.apiToken(IDENTITY, API);
    expect(decodeProtectedHeader(after).kid).toBe(kid);
    const jwks = (await (await fetch(`${issuer.url}/.well-known/jwks.json`)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual([kid, decodeProtectedHeader(before).kid]);
    expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
  });
});
