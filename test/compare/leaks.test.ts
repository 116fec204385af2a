/**
 * The comparison leaks nothing, tried as an attacker would: a native gateway
 * with authentication, bound where anyone may reach its report, compares
 * (writes too, `--compare-unsafe`) with a fake candidate that counts what it
 * is sent. The report an unauthenticated reader gets holds no caller's
 * identity, claim, binding or invite code; the samples a bearer of the
 * samples secret gets have declared secrets redacted; a path that climbs out
 * of its route never reaches the candidate; the capture is its owner's alone
 * and carries no credential.
 */
import { createServer, type Server } from 'node:http';
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { startIssuer, type RunningIssuer } from '../../src/emulator/issuer/index.ts';
import { loadConfig } from '../../src/config.ts';
import { buildGateway } from '../../src/server.ts';
import { contract } from '../../src/contract/registry.ts';
import { climbsPath } from '../../src/compare/candidate-rest.ts';
import { methodByName } from '../../src/compare/request-of.ts';
import { declaredSecrets, redact, REDACTED } from '../../src/compare/redact.ts';
import { MAPPINGS } from '../../mappings/index.ts';
import { Client } from '../support/stack.ts';

const AUDIENCE = 'https://api.v2gw.test';
const ALICE = 'a'.repeat(40);
const SUBJECT = 'bob-subject-6f1e2d';
const CLIENT_SECRET = 'idp-client-secret-93b7c1';
const SAMPLES_SECRET = 'samples-reader-secret-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'v2gw-leaks-'));
const capture = join(dir, 'calls.jsonl');
const samplesToken = join(dir, 'samples-token');

let issuer: RunningIssuer;
let fake: Server;
const asked: string[] = [];
let gateway: FastifyInstance;
let client: Client;
let alice: string;
const made: { org?: string; code?: string; bob?: string } = {};

beforeAll(async () => {
  issuer = await startIssuer();
  // The candidate answers every call with an empty message, so every answer differs and is kept as a sample.
  fake = createServer((request, response) => {
    asked.push(`${request.method} ${request.url}`);
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  writeFileSync(capture, '');
  chmodSync(capture, 0o644);
  writeFileSync(samplesToken, `${SAMPLES_SECRET}\n`);
  const config = loadConfig([
    '--mode', 'native', '--log-level', 'silent', '--auth-issuer', issuer.url, '--auth-audience', AUDIENCE,
    '--compare-with', `http://127.0.0.1:${(fake.address() as AddressInfo).port}`, '--compare-unsafe', '--compare-retry-ms', '0',
    '--compare-samples-token-file', samplesToken, '--capture', capture,
  ], {});
  gateway = await buildGateway(config);
  client = new Client(await gateway.listen({ port: 0, host: '127.0.0.1' }));
  alice = `Bearer ${await issuer.apiToken(ALICE, AUDIENCE)}`;
  const as = { authorization: alice };
  made.org = (await client.post('/iam/v2beta1/groups', { name: 'victim-org' }, as)).body.uid;
  const roles = (await client.get('/iam/v2beta1/roles', {}, as)).body.roles as { uid: string; name: string }[];
  const viewer = roles.find((r) => r.name === 'viewer')!.uid;
  made.bob = (await client.post(`/iam/v2beta1/identities/${made.org}`, { name: 'bob', claimMatch: { issuer: 'https://idp.example', subject: SUBJECT } }, as)).body.uid;
  expect((await client.post(`/iam/v2beta1/roleBindings/${made.org}`, { identityUid: made.bob, roleUid: viewer }, as)).status).toBe(200);
  expect((await client.get(`/iam/v2beta1/identities/${made.bob}`, {}, as)).status).toBe(200);
  expect((await client.get('/iam/v2beta1/roleBindings', { 'uidp.children_of': made.org }, as)).status).toBe(200);
  const invite = await client.post(`/iam/v2beta1/groupInvites/${made.org}`, { roleUid: viewer, ttl: '3600s' }, as);
  expect(invite.status).toBe(200);
  made.code = invite.body.code;
  expect(made.code).toBeTruthy();
  const idp = await client.post(`/iam/v2beta1/identityProviders/${made.org}`, { name: 'sso', defaultRole: viewer, oidc: { issuer: 'https://idp.example', clientId: 'c', clientSecret: CLIENT_SECRET } }, as);
  expect(idp.status).toBe(200);
  // Every call above compared (or counted): the candidate has been asked them all.
  for (let i = 0; i < 200; i++) {
    const report = await (await fetch(`${client.baseUrl}/_gateway/compare/report`)).json() as any;
    const settled = report.methods.filter((m: any) => m.compared > 0).length;
    if (settled >= 7) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}, 30_000);

afterAll(async () => {
  await gateway?.close();
  await new Promise((resolve) => fake?.close(resolve));
  await issuer?.close();
});

async function reportText(headers: Record<string, string> = {}): Promise<string> {
  const reply = await fetch(`${client.baseUrl}/_gateway/compare/report`, { headers });
  expect(reply.status).toBe(200);
  return reply.text();
}

describe('the report to a reader without the samples secret', () => {
  it('holds counts, field paths and verdicts, and no caller\'s identity, claim, binding or invite code', async () => {
    for (const headers of [{}, { authorization: alice }, { authorization: 'Bearer not-the-secret-0000000000' }] as Record<string, string>[]) {
      const text = await reportText(headers);
      const report = JSON.parse(text);
      expect(report.methods.some((m: any) => m.method.endsWith('/GetIdentity') && m.compared === 1 && m.fields.length > 0)).toBe(true);
      for (const secret of [SUBJECT, made.bob!, made.org!, made.code!, CLIENT_SECRET, 'https://idp.example', 'victim-org']) expect(text).not.toContain(secret);
      expect(report.methods.every((m: any) => m.samples.length === 0 && m.fields.every((f: any) => f.example === undefined))).toBe(true);
    }
  });
});

describe('the samples, to a bearer of the samples secret', () => {
  it('shows the pairs, with the invite code and the client secret redacted (--compare-unsafe sent both writes)', async () => {
    const text = await reportText({ authorization: `Bearer ${SAMPLES_SECRET}` });
    const report = JSON.parse(text);
    const invites = report.methods.find((m: any) => m.method.endsWith('/CreateGroupInvite'));
    expect(invites.samples).toHaveLength(1);
    expect(invites.samples[0].primary.message.code).toBe(REDACTED);
    expect(text).toContain(SUBJECT);
    expect(text).not.toContain(made.code!);
    expect(text).not.toContain(CLIENT_SECRET);
    expect(asked.some((line) => line.startsWith('POST /iam/v2beta1/groupInvites/'))).toBe(true);
  });
});

describe('a path that climbs out of its route', () => {
  it('never reaches the candidate, raw or percent-encoded', async () => {
    const before = asked.length;
    for (const path of [
      '/iam/v2beta1/groups/..%2F..%2F..%2Finternal%2Fadmin',
      '/iam/v2beta1/groups/%2e%2e%2F%2e%2e%2Finternal',
      '/iam/v2beta1/groups/%252e%252e%252finternal',
      '/iam/v2beta1/groups/.%2F..%5Cinternal',
    ]) {
      const reply = await client.get(path, {}, { authorization: alice });
      expect(reply.status).toBeGreaterThanOrEqual(400);
    }
    // The worker refuses them, and its findings come back in batches (up to a second later): read until counted.
    let refused = 0;
    for (let i = 0; i < 200 && refused < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      refused = JSON.parse(await reportText()).methods.find((m: any) => m.method.endsWith('/GetGroup'))?.refused ?? 0;
    }
    expect(refused).toBeGreaterThanOrEqual(4);
    expect(asked.slice(before)).toEqual([]);
  });

  it('is found in every spelling, the request alone deciding (whatever the primary answered)', () => {
    const getGroup = methodByName('chainguard.platform.iam.v2beta1.GroupsService/GetGroup')!;
    for (const uid of ['../../../internal/admin', '..', '.', 'a/./b', '%2e%2e/x', '..%2Fx', '%252e%252e', 'a\\..\\b']) expect(climbsPath(getGroup, { uid }), uid).toBe(true);
    for (const uid of [`${'a'.repeat(40)}/0123456789abcdef`, 'a..b', '...x']) expect(climbsPath(getGroup, { uid }), uid).toBe(false);
  });
});

describe('the capture', () => {
  it('is readable by its owner only, a file made before included', () => {
    expect(statSync(capture).mode & 0o777).toBe(0o600);
  });

  it('carries no credential a request held, and no Authorization', () => {
    const text = readFileSync(capture, 'utf8');
    const lines = text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    const idp = lines.find((l) => l.method.endsWith('/CreateIdentityProvider'));
    expect(idp.request.identityProvider.oidc).toMatchObject({ clientId: 'c', clientSecret: REDACTED });
    expect(text).not.toContain(CLIENT_SECRET);
    expect(text).not.toContain(alice.slice('Bearer '.length));
  });
});

describe('redaction follows the declarations', () => {
  it('takes an invite\'s one-time code from the mapping (createAnswerOnly) and the client secret from the contract', () => {
    const invite = contract.getMessage('chainguard.platform.iam.v2beta1.GroupInvite')!;
    const code = invite.fields.find((f) => f.jsonName === 'code')!;
    expect(declaredSecrets(MAPPINGS).has(code)).toBe(true);
    expect(declaredSecrets([]).has(code)).toBe(false);
    expect(redact({ uid: 'u', code: 'one-time', keyId: 'k' }, invite)).toEqual({ uid: 'u', code: REDACTED, keyId: 'k' });
    const provider = contract.getMessage('chainguard.platform.iam.v2beta1.IdentityProvider')!;
    const secret = provider.fields.find((f) => f.jsonName === 'oidc')!.message!.fields.find((f) => f.jsonName === 'clientSecret')!;
    expect(declaredSecrets([]).has(secret)).toBe(true);
  });
});
