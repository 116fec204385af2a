/**
 * An issuer whose keys or discovery document cannot be had makes a call
 * UNAVAILABLE (503, gRPC 14), not UNAUTHENTICATED: the caller's token may be
 * good, it cannot be checked now. The failure is remembered for a few
 * seconds, so a flood of calls during the outage costs the issuer one fetch,
 * counted here at fake issuers on loopback. REST and gRPC.
 */
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startCli } from '../support/cli-process.ts';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { startMode, type ModeStack } from '../support/modes.ts';
import { aip } from '../support/stack.ts';
import { closeLocal, listenLocal } from '../support/local-http.ts';

const AUDIENCE = 'https://api.v2gw.test';
const GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService';
const CALLER = 'c'.repeat(40);

/** What a fake issuer answers: its discovery document and JWKS, each broken or not (`foreign`: a document naming another issuer). */
type Answer = 'good' | 'error' | 'garbage' | 'foreign';

interface FakeIssuer {
  url: string;
  /** Requests seen, by path. */
  hits: Record<string, number>;
  discovery: Answer;
  jwks: Answer;
  token(claims?: Record<string, unknown>): Promise<string>;
  server: Server;
}

async function fakeIssuer(discovery: Answer, jwks: Answer): Promise<FakeIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const fake = { hits: {} as Record<string, number>, discovery, jwks } as FakeIssuer;
  fake.server = createServer((request, reply) => {
    const path = request.url ?? '';
    fake.hits[path] = (fake.hits[path] ?? 0) + 1;
    const answer = path === '/.well-known/openid-configuration' ? fake.discovery : fake.jwks;
    const body = path === '/.well-known/openid-configuration'
      ? { issuer: answer === 'foreign' ? 'https://elsewhere.example' : fake.url, jwks_uri: `${fake.url}/jwks`, id_token_signing_alg_values_supported: ['ES256'] }
      : { keys: [jwk] };
    if (answer === 'error') reply.writeHead(500).end('{"error":"down"}');
    else if (answer === 'garbage') reply.writeHead(200, { 'content-type': 'application/json' }).end('<html>maintenance</html>');
    else reply.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  fake.url = await listenLocal(fake.server);
  fake.token = (claims = {}) => new SignJWT({ sub: CALLER, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(fake.url).setAudience(AUDIENCE).setIssuedAt().setExpirationTime('1h')
    .sign(privateKey as CryptoKey);
  return fake;
}

describe('an issuer that cannot be reached (REST and gRPC)', () => {
  const issuers: Record<string, FakeIssuer> = {};
  let stack: ModeStack;
  let grpc: GrpcClient;
  beforeAll(async () => {
    issuers.jwksDown = await fakeIssuer('good', 'error');
    issuers.jwksGarbage = await fakeIssuer('good', 'garbage');
    issuers.discoveryDown = await fakeIssuer('error', 'good');
    issuers.discoveryGarbage = await fakeIssuer('garbage', 'good');
    issuers.discoveryForeign = await fakeIssuer('foreign', 'good');
    issuers.healthy = await fakeIssuer('good', 'good');
    // Nothing listens at its address once the stack starts: no answer at all.
    issuers.gone = await fakeIssuer('good', 'good');
    await closeLocal(issuers.gone!.server);
    const flags = Object.values(issuers).flatMap((issuer) => ['--auth-issuer', issuer.url]);
    stack = await startMode('native', { flags: [...flags, '--auth-audience', AUDIENCE] });
    grpc = new GrpcClient(stack.url);
  });
  afterAll(async () => {
    grpc?.close();
    await stack?.close();
    await Promise.all(Object.values(issuers).map((issuer) => closeLocal(issuer.server)));
  });

  const listAs = (token: string) => stack.client.get('/iam/v2beta1/groups', {}, { authorization: `Bearer ${token}` });

  it.each(['jwksDown', 'jwksGarbage', 'discoveryDown', 'discoveryGarbage', 'discoveryForeign'])('%s: answers 503 / code 14, and asks the issuer once for many calls', async (name) => {
    const issuer = issuers[name]!;
    for (let i = 0; i < 6; i++) {
      const token = await issuer.token({ jti: `${name}-${i}` });
      const reply = await listAs(token);
      expect(reply.status).toBe(503);
      expect(aip(reply).code).toBe(14);
      expect(aip(reply).message).toContain(issuer.url);
      expect((await rejected(grpc.call(GROUPS, 'ListGroups', {}, { authorization: `Bearer ${token}` }))).code).toBe(14);
    }
    expect(issuer.hits['/.well-known/openid-configuration']).toBe(1);
    expect(issuer.hits['/jwks'] ?? 0).toBeLessThanOrEqual(1);
  });

  it('answers 503 / code 14 when the issuer does not answer at all', async () => {
    const token = await issuers.gone!.token();
    expect((await listAs(token)).status).toBe(503);
    expect((await rejected(grpc.call(GROUPS, 'ListGroups', {}, { authorization: `Bearer ${token}` }))).code).toBe(14);
  });

  it('still refuses a bad token from a reachable issuer as UNAUTHENTICATED', async () => {
    const good = await issuers.healthy!.token();
    expect((await listAs(good)).status).toBe(200);
    const tampered = `${good.slice(0, good.lastIndexOf('.'))}.${'A'.repeat(86)}`;
    expect((await listAs(tampered)).status).toBe(401);
    expect((await rejected(grpc.call(GROUPS, 'ListGroups', {}, { authorization: `Bearer ${tampered}` }))).code).toBe(16);
  });

  it('asks again once the few seconds have passed, and serves when the issuer is back', async () => {
    const issuer = issuers.jwksDown!;
    const token = await issuer.token({ jti: 'back' });
    expect((await listAs(token)).status).toBe(503);
    const fetched = issuer.hits['/jwks']!;
    issuer.jwks = 'good';
    expect((await listAs(token)).status).toBe(503);
    expect(issuer.hits['/jwks']).toBe(fetched);
    await sleep(5100);
    expect((await listAs(token)).status).toBe(200);
    expect(issuer.hits['/jwks']).toBe(fetched + 1);
  }, 15_000);
});

describe('an issuer in clear', () => {
  it('refuses to start with an --auth-issuer or --issuer-url on plain http:// that is not loopback, in one line naming it', async () => {
    const starts = (env: Record<string, string>) => startCli({ V2GW_PORT: String(0), ...env }, 10_000).then(async (cli) => (await cli.stop(), 'started'), (error: Error) => error.message);
    const native = { V2GW_MODE: 'native', V2GW_AUTH_AUDIENCE: AUDIENCE, V2GW_DATA_DIR: '' };
    const refused = await starts({ ...native, V2GW_AUTH_ISSUER: 'http://issuer.example' });
    expect(refused).toMatch(/--auth-issuer \/ V2GW_AUTH_ISSUER: must be an https:\/\/ URL: plain http:\/\/ is accepted only for a loopback address[^\n]*\n/);
    const sidecar = { V2GW_IDENTITY: `${'a'.repeat(40)}`, V2GW_IDENTITY_TOKEN_FILE: '/dev/null', V2GW_ISSUER_URL: 'http://10.0.0.7:8080' };
    expect(await starts(sidecar)).toContain('--issuer-url / V2GW_ISSUER_URL: must be an https:// URL');
    expect(await starts({ ...native, V2GW_AUTH_ISSUER: 'http://127.0.0.1:1', V2GW_PORT: String(await freePort()) })).toBe('started');
  }, 40_000);
});
