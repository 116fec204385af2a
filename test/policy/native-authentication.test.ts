/**
 * Native mode with an issuer authenticates every call, REST and gRPC alike,
 * against the emulator's issuer: real signed JWTs, refused one flaw at a
 * time, and a rotated key accepted.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIssuer, type RunningIssuer } from '../../src/emulator/issuer/index.ts';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { startMode, type ModeStack } from '../support/modes.ts';
import { aip } from '../support/stack.ts';
import { badTokens, type BadTokens } from '../support/tokens.ts';

const AUDIENCE = 'https://api.v2gw.test';
const GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService';
const CALLER = 'c'.repeat(40);

describe('native mode authenticates (REST and gRPC)', () => {
  let issuer: RunningIssuer;
  let untrusted: RunningIssuer;
  let stack: ModeStack;
  let grpc: GrpcClient;
  let bad: BadTokens;
  let good: string;
  beforeAll(async () => {
    issuer = await startIssuer();
    untrusted = await startIssuer();
    stack = await startMode('native', { flags: ['--auth-issuer', issuer.url, '--auth-audience', AUDIENCE, '--auth-jwks-cooldown-ms', '200'] });
    grpc = new GrpcClient(stack.url);
    bad = await badTokens(issuer, untrusted, CALLER, AUDIENCE);
    good = await issuer.apiToken(CALLER, AUDIENCE);
  });
  afterAll(async () => {
    grpc?.close();
    await stack?.close();
    await issuer?.close();
    await untrusted?.close();
  });

  const listAs = (token: string | null) => stack.client.get('/iam/v2beta1/groups', {}, { authorization: token === null ? null : `Bearer ${token}` });

  it('serves a verified caller', async () => {
    expect((await listAs(good)).status).toBe(200);
    expect(await grpc.call(GROUPS, 'ListGroups', {}, { authorization: `Bearer ${good}` })).toMatchObject({ groups: [] });
  });

  it('refuses a call without a token: 401 with WWW-Authenticate on REST, 16 on gRPC', async () => {
    const reply = await listAs(null);
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    expect(aip(reply).byType.ErrorInfo.reason).toBe('UNAUTHENTICATED');
    expect((await rejected(grpc.call(GROUPS, 'ListGroups', {}, { authorization: null }))).code).toBe(16);
  });

  it.each(['forged', 'expired', 'notYetValid', 'wrongAudience', 'wrongIssuer', 'algNone', 'unknownKey', 'hs256KeyConfusion'] as const)('refuses a %s token on both protocols', async (flaw) => {
    const reply = await listAs(bad[flaw]);
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(aip(reply).code).toBe(16);
    expect(reply.text).not.toContain(bad[flaw]);
    const failure = await rejected(grpc.call(GROUPS, 'ListGroups', {}, { authorization: `Bearer ${bad[flaw]}` }));
    expect(failure.code).toBe(16);
  });

  it('refuses a signed token whose sub is empty or blank: it names no caller (REST 401, gRPC 16)', async () => {
    for (const sub of ['', ' ']) {
      const token = await issuer.apiToken(sub, AUDIENCE);
      const reply = await listAs(token);
      expect(reply.status).toBe(401);
      expect(aip(reply).message).toContain('names no subject');
      expect((await rejected(grpc.call(GROUPS, 'ListGroups', {}, { authorization: `Bearer ${token}` }))).code).toBe(16);
    }
  });

  it('judges Connect and gRPC-Web calls alike', async () => {
    const connect = (token: string | null) => fetch(`${stack.url}/${GROUPS}/ListGroups`, {
      method: 'POST', body: '{}',
      headers: { 'content-type': 'application/json', 'connect-protocol-version': '1', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
    const refused = await connect(bad.forged);
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([401, 'unauthenticated']);
    expect((await connect(good)).status).toBe(200);
    const grpcWeb = async (token: string | null) => {
      const answer = await fetch(`${stack.url}/${GROUPS}/ListGroups`, {
        method: 'POST', body: new Uint8Array(5),
        headers: { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
      const body = Buffer.from(await answer.arrayBuffer()).toString('latin1');
      return answer.headers.get('grpc-status') ?? /grpc-status:\s*(\d+)/.exec(body)?.[1];
    };
    expect(await grpcWeb(null)).toBe('16');
    expect(await grpcWeb(bad.algNone)).toBe('16');
    expect(await grpcWeb(good)).toBe('0');
  });

  it('accepts a token signed by a rotated key, once the cooldown lets the keys be fetched again', async () => {
    expect((await listAs(good)).status).toBe(200);
    await issuer.api.keys.rotate();
    issuer.api.keys.forgetRetired();
    const rotated = await issuer.apiToken(CALLER, AUDIENCE);
    await sleep(250);
    expect((await listAs(rotated)).status).toBe(200);
    expect(await grpc.call(GROUPS, 'ListGroups', {}, { authorization: `Bearer ${await issuer.apiToken(CALLER, AUDIENCE, { claims: { jti: 'grpc' } })}` })).toMatchObject({ groups: [] });
  });

  it('writes no token to any log line', () => {
    const tokens = [good, ...Object.values(bad)];
    const leaks = stack.logs.filter((line) => tokens.some((token) => line.includes(token) || line.includes(token.split('.')[2] || '\u0000')));
    expect(leaks).toEqual([]);
  });
});
