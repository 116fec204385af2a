/**
 * A translate-mode gateway assuming a workload identity (--identity,
 * --identity-token-file, --issuer-url) in front of the v1 emulator: requests
 * without a token reach v1 with the identity's API token, a caller's own
 * token wins, and with the STS down and no token held the answer is a clear
 * AIP-193 UNAVAILABLE on REST and gRPC. No token is logged.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIssuer, type RunningIssuer } from '../../src/emulator/issuer/index.ts';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { aip, startStack, TOKEN, type Stack } from '../support/stack.ts';
import { settled } from '../compare/report-client.ts';
import { closeLocal, listenLocal } from '../support/local-http.ts';

const IDENTITY = `${'a'.repeat(40)}/${'b'.repeat(16)}`;
const SUBJECT = 'system:serviceaccount:apps:web';
const GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService';

describe('the sidecar assumes its workload identity', () => {
  let issuer: RunningIssuer;
  let stack: Stack;
  let grpc: GrpcClient;
  const seen: string[] = [];
  let platformToken = '';
  // A comparison candidate (--compare-with) that records the Authorization each shadowed call brings.
  const candidateSaw: string[] = [];
  let candidate: Server;

  beforeAll(async () => {
    candidate = createServer((request, reply) => {
      candidateSaw.push(request.headers.authorization ?? '');
      reply.writeHead(200, { 'content-type': 'application/json' }).end('{"groups":[]}');
    });
    const candidateUrl = await listenLocal(candidate);
    issuer = await startIssuer();
    issuer.identities.set(IDENTITY, { issuer: issuer.platform.url, subject: SUBJECT });
    const file = join(mkdtempSync(join(tmpdir(), 'v2gw-sidecar-')), 'token');
    platformToken = await issuer.platformToken(SUBJECT);
    writeFileSync(file, platformToken);
    stack = await startStack({
      flags: ['--identity', IDENTITY, '--identity-token-file', file, '--issuer-url', issuer.url, '--compare-with', candidateUrl],
      emulator: { acceptToken: (token) => (seen.push(token), true) },
    });
    grpc = new GrpcClient(stack.url);
  });
  afterAll(async () => {
    grpc?.close();
    await stack?.close();
    await issuer?.close();
    if (candidate) await closeLocal(candidate);
  });

  it("answers with STS down and no token held: UNAVAILABLE with the reason, on REST and gRPC", async () => {
    issuer.unavailable = true;
    try {
      const reply = await stack.client.get('/iam/v2beta1/groups', {}, { authorization: null });
      expect(reply.status).toBe(503);
      expect(aip(reply).byType.ErrorInfo.reason).toBe('IDENTITY_TOKEN_UNAVAILABLE');
      const failure = await rejected(grpc.call(GROUPS, 'ListGroups', {}, { authorization: null }));
      expect(failure.code).toBe(14);
    } finally {
      issuer.unavailable = false;
    }
  });

  it("sends v1 the identity's API token for a request that brings none, once the STS is back", async () => {
    seen.length = 0;
    expect((await stack.client.get('/iam/v2beta1/groups', {}, { authorization: null })).status).toBe(200);
    await grpc.call(GROUPS, 'ListGroups', {}, { authorization: null });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const token of seen) expect(decodeJwt(token)).toMatchObject({ iss: issuer.url, sub: IDENTITY, aud: stack.emulator.url });
  });

  it("shadows a request that brings no token to the comparison candidate with the identity's token too", async () => {
    // The comparisons of the calls before (on the gateway's worker thread) have ended: the candidate sees this call's alone.
    await settled(stack.url, `${GROUPS}/ListGroups`, 2);
    candidateSaw.length = 0;
    expect((await stack.client.get('/iam/v2beta1/groups', {}, { authorization: null })).status).toBe(200);
    for (let waited = 0; candidateSaw.length === 0 && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(candidateSaw).toHaveLength(1);
    expect(decodeJwt(candidateSaw[0]!.replace(/^Bearer /, ''))).toMatchObject({ iss: issuer.url, sub: IDENTITY });
  });

  it("lets a caller's own token win", async () => {
    seen.length = 0;
    expect((await stack.client.get('/iam/v2beta1/groups')).status).toBe(200);
    expect(seen).toEqual([TOKEN.replace(/^Bearer /, '')]);
  });

  it("has what the store keeps judged by what v1 states for the identity's token", async () => {
    seen.length = 0;
    const org = stack.emulator.state.createGroup(null, { name: 'sidecar-org' }).id;
    // The identity is no registered one of the emulator's: its demo caller, owner of every organisation, or nothing.
    expect((await stack.client.post(`/registry/v2beta1/overlays/${org}`, { name: 'o', config: { contents: { packages: ['curl'] } } }, { authorization: null })).status).toBe(200);
    expect(seen.map((token) => decodeJwt(token).sub)).toContain(IDENTITY);
    stack.emulator.auth.demoCaller = false;
    try {
      expect((await stack.client.post(`/registry/v2beta1/overlays/${org}`, { name: 'p', config: { contents: { packages: ['curl'] } } }, { authorization: null })).status).toBe(403);
    } finally {
      stack.emulator.auth.demoCaller = undefined;
    }
  });

  it('writes neither token to any log line', () => {
    const secrets = [platformToken, platformToken.split('.')[2]!, ...seen, ...candidateSaw.map((header) => header.replace(/^Bearer /, ''))];
    expect(stack.logs.filter((line) => secrets.some((secret) => line.includes(secret)))).toEqual([]);
    expect(stack.logs.some((line) => line.includes('identity token'))).toBe(true);
  });
});
