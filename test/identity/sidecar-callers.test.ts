/**
 * A sidecar lending its workload identity (--identity) serves its own pod
 * only: a request naming a host that is not loopback (DNS rebinding) or
 * carrying Origin (a browser) is refused 403 PERMISSION_DENIED, on REST, the
 * v1 pass-through, gRPC, gRPC-Web and Connect; a REST write whose body is not
 * declared JSON (a browser's "simple" cross-origin text/plain POST) is
 * refused 400 and writes nothing. The start-up rule (no --identity beyond
 * loopback without --identity-allow-remote) is tested on the CLI as a process.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { H2CClient, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIssuer, type RunningIssuer } from '../../src/emulator/issuer/index.ts';
import { freePort, startCli } from '../support/cli-process.ts';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { startStack, type Stack } from '../support/stack.ts';

const IDENTITY = `${'a'.repeat(40)}/${'b'.repeat(16)}`;
const SUBJECT = 'system:serviceaccount:apps:web';
const GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService';

interface RawReply {
  status: number;
  body: any;
}

describe('the sidecar serves its own pod only', () => {
  let issuer: RunningIssuer;
  let stack: Stack;
  let port: number;
  let tokenFile: string;
  let v1Calls = 0;

  /** One HTTP/1.1 request with exactly these headers (fetch would set Host itself), no Authorization: the workload's identity is used. */
  const raw = (method: string, path: string, headers: Record<string, string>, body?: string) => new Promise<RawReply>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body);
  });
  const reason = (reply: RawReply) => reply.body.details.find((d: any) => String(d['@type']).endsWith('ErrorInfo'))?.reason;
  const groupNames = async () => ((await raw('GET', '/iam/v2beta1/groups', { host: 'localhost' })).body.groups as { name: string }[]).map((g) => g.name);

  beforeAll(async () => {
    issuer = await startIssuer();
    issuer.identities.set(IDENTITY, { issuer: issuer.platform.url, subject: SUBJECT });
    tokenFile = join(mkdtempSync(join(tmpdir(), 'v2gw-sidecar-callers-')), 'token');
    writeFileSync(tokenFile, await issuer.platformToken(SUBJECT));
    stack = await startStack({
      flags: ['--identity', IDENTITY, '--identity-token-file', tokenFile, '--issuer-url', issuer.url],
      emulator: { acceptToken: () => (v1Calls++, true) },
    });
    port = Number(new URL(stack.url).port);
  });
  afterAll(async () => {
    await stack?.close();
    await issuer?.close();
  });

  it('serves every loopback name, with or without a port', async () => {
    for (const host of ['localhost', `localhost:${port}`, `127.0.0.1:${port}`, '127.1.2.3', `[::1]:${port}`, 'LOCALHOST']) {
      expect((await raw('GET', '/iam/v2beta1/groups', { host })).status, host).toBe(200);
    }
  });

  it('refuses a Host that is not loopback (DNS rebinding) with 403 PERMISSION_DENIED, before v1 is asked', async () => {
    const before = v1Calls;
    for (const host of ['evil.example', `evil.example:${port}`, 'localhost.evil.example', '127.0.0.1.nip.io', '10.0.0.7', '[::2]:80']) {
      const reply = await raw('GET', '/iam/v2beta1/groups', { host });
      expect(reply.status, host).toBe(403);
      expect(reply.body.code).toBe(7);
      expect(reason(reply)).toBe('SIDECAR_HOST_NOT_LOOPBACK');
      expect(reply.body.message).toContain('loopback');
    }
    expect((await raw('GET', '/iam/v1/groups', { host: 'evil.example' })).status).toBe(403);
    expect(v1Calls).toBe(before);
  });

  it('refuses a request carrying Origin (a browser) with 403, on REST and the v1 pass-through', async () => {
    for (const path of ['/iam/v2beta1/groups', '/iam/v1/groups']) {
      const reply = await raw('GET', path, { host: 'localhost', origin: 'https://evil.example' });
      expect(reply.status).toBe(403);
      expect(reason(reply)).toBe('SIDECAR_BROWSER_REQUEST');
    }
    expect((await raw('GET', '/iam/v2beta1/groups', { host: 'localhost', origin: `http://localhost:${port}` })).status).toBe(403);
  });

  it('refuses a cross-origin "simple" POST (text/plain) that would create a group: 400, nothing created', async () => {
    const body = JSON.stringify({ name: 'made-by-a-web-page' });
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const reply = await raw('POST', '/iam/v2beta1/groups', { host: 'localhost', 'content-type': type }, body);
      expect(reply.status, type).toBe(400);
      expect(reply.body.code).toBe(3);
      expect(reply.body.message).toContain('application/json');
    }
    const noType = await raw('POST', '/iam/v2beta1/groups', { host: 'localhost' }, body);
    expect(noType.status).toBe(400);
    expect(await groupNames()).not.toContain('made-by-a-web-page');
    const json = await raw('POST', '/iam/v2beta1/groups', { host: 'localhost', 'content-type': 'application/json; charset=utf-8' }, JSON.stringify({ name: 'made-by-the-workload' }));
    expect(json.status).toBe(200);
    expect(await groupNames()).toContain('made-by-the-workload');
  });

  it('refuses gRPC naming another :authority, or carrying Origin (code 7), and serves it otherwise', async () => {
    const local = new GrpcClient(stack.url);
    const rebound = new GrpcClient(stack.url, undefined, { 'grpc.default_authority': 'evil.example' });
    try {
      expect(await local.call(GROUPS, 'ListGroups', {}, { authorization: null })).toHaveProperty('groups');
      const failure = await rejected(rebound.call(GROUPS, 'ListGroups', {}, { authorization: null }));
      expect(failure.code).toBe(7);
      expect(failure.details.find((d) => String(d['@type']).endsWith('ErrorInfo'))).toMatchObject({ reason: 'SIDECAR_HOST_NOT_LOOPBACK' });
      expect((await rejected(local.call(GROUPS, 'ListGroups', {}, { authorization: null, metadata: { origin: 'https://evil.example' } }))).code).toBe(7);
    } finally {
      local.close();
      rebound.close();
    }
  });

  it('refuses gRPC-Web and Connect from a browser (Origin) or another host', async () => {
    const grpcWeb = async (headers: Record<string, string>) => {
      const answer = await fetch(`${stack.url}/${GROUPS}/ListGroups`, { method: 'POST', body: new Uint8Array(5), headers: { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1', ...headers } });
      const body = Buffer.from(await answer.arrayBuffer()).toString('latin1');
      return answer.headers.get('grpc-status') ?? /grpc-status:\s*(\d+)/.exec(body)?.[1];
    };
    expect(await grpcWeb({})).toBe('0');
    expect(await grpcWeb({ origin: 'https://evil.example' })).toBe('7');
    const connect = await fetch(`${stack.url}/${GROUPS}/ListGroups`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'connect-protocol-version': '1', origin: 'https://evil.example' } });
    expect([connect.status, ((await connect.json()) as { code: string }).code]).toEqual([403, 'permission_denied']);
    // Over HTTP/2 the host is `:authority` alone, which the gateway hands ConnectRPC as Host.
    const h2 = new H2CClient(stack.url);
    try {
      const served = await undiciFetch(`${stack.url}/${GROUPS}/ListGroups`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'connect-protocol-version': '1' }, dispatcher: h2 });
      expect(served.status).toBe(200);
    } finally {
      await h2.close();
    }
  });

  it('refuses to start with --identity on 0.0.0.0, naming the risk, and starts with --identity-allow-remote', async () => {
    const env = { V2GW_PORT: String(await freePort()), V2GW_HOST: '0.0.0.0', V2GW_IDENTITY: IDENTITY, V2GW_IDENTITY_TOKEN_FILE: tokenFile, V2GW_ISSUER_URL: issuer.url };
    const refusal = await startCli(env, 10_000).then(async (cli) => (await cli.stop(), ''), (error: Error) => error.message);
    expect(refusal).toContain('would lend the workload identity to every caller that can reach this address');
    expect(refusal).toContain('--identity-allow-remote');
    const cli = await startCli({ ...env, V2GW_IDENTITY_ALLOW_REMOTE: 'true' });
    await cli.stop();
    expect(cli.output()).toContain('v2gw listening');
    expect(cli.output()).toContain(`--identity-allow-remote: every caller that reaches 0.0.0.0 without a token acts as identity ${IDENTITY}`);
  }, 40_000);
});
