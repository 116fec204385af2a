/** Every failure leaves as AIP-193 with the matching HTTP status — bad input, v1 errors, v1 down or slow, bugs. */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { buildGateway } from '../../../src/server.ts';
import { Client, aip, startGateway, startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
let org: string;

beforeAll(async () => {
  stack = await startStack({ flags: ['--body-limit', '2048'] });
  org = stack.emulator.state.createGroup(null, { name: 'errors-org' }).id;
});
afterAll(() => stack.close());

describe('bad input', () => {
  it('malformed JSON → INVALID_ARGUMENT on body', async () => {
    const reply = await stack.client.call('POST', `/iam/v2beta1/groups/${org}`, { raw: '{"name": ' });
    expect(reply.status).toBe(400);
    const error = aip(reply);
    expect(error.code).toBe(3);
    expect(error.byType.BadRequest.fieldViolations[0].field).toBe('body');
  });

  it('a body that is not an object → INVALID_ARGUMENT', async () => {
    expect((await stack.client.call('POST', `/iam/v2beta1/groups/${org}`, { raw: '["a"]' })).status).toBe(400);
  });

  it('a body over the configured limit → INVALID_ARGUMENT naming the limit', async () => {
    const reply = await stack.client.post(`/iam/v2beta1/groups/${org}`, { name: 'big', description: 'x'.repeat(5000) });
    expect(reply.status).toBe(400);
    expect(aip(reply).message).toContain('2048');
  });

  it('any Content-Type is read as JSON, as grpc-gateway does', async () => {
    const reply = await stack.client.call('POST', `/iam/v2beta1/groups/${org}`, { raw: '{"name":"plain"}', headers: { 'content-type': 'text/plain' } });
    expect(reply.status).toBe(200);
  });

  it('a parent that is not a UIDP → INVALID_ARGUMENT on parent', async () => {
    const reply = await stack.client.post('/iam/v2beta1/identities/acme', { name: 'nope' });
    expect(aip(reply).byType.BadRequest.fieldViolations[0].field).toBe('parent');
  });

  it('an unknown route → NOT_FOUND in AIP-193 form', async () => {
    const reply = await stack.client.get('/iam/v2beta1/widgets');
    expect(reply.status).toBe(404);
    expect(aip(reply).byType.ErrorInfo).toMatchObject({ reason: 'NOT_FOUND', domain: 'iam.chainguard.dev' });
  });

  it('a custom verb is not mistaken for a uid: it reaches its own RPC, and creates nothing', async () => {
    const groups = stack.emulator.state.listGroups({}).length;
    const reply = await stack.client.post(`/iam/v2beta1/groups/${org}:requestGroupAccess`, { name: 'not-a-group' });
    // RequestGroupAccess answered (this caller's token names no organisation): not CreateGroup under `<org>:requestGroupAccess`.
    expect(reply.status).toBe(404);
    expect(aip(reply).byType.ErrorInfo.reason).toBe('NOT_FOUND');
    expect(stack.emulator.state.listGroups({})).toHaveLength(groups);
    expect(stack.emulator.state.listGroups({ id: org })).toHaveLength(1);
  });

  it('a malformed %-escape in the URL → INVALID_ARGUMENT in AIP-193 form, on v2 and pass-through paths alike', async () => {
    for (const path of ['/iam/v2beta1/groups/%zz', '/iam/v1/groups/%zz']) {
      const reply = await stack.client.get(path);
      expect(reply.status).toBe(400);
      expect(aip(reply).byType.ErrorInfo.reason).toBe('INVALID_ARGUMENT');
    }
  });

  it('registry paths carry the registry domain', async () => {
    const reply = await stack.client.get('/registry/v2beta1/repos/not-a-uidp');
    expect(aip(reply).byType.ErrorInfo.domain).toBe('registry.chainguard.dev');
  });

  it('a Get that v1 answers with an empty list → NOT_FOUND with ResourceInfo', async () => {
    const reply = await stack.client.get(`/iam/v2beta1/roles/${org}/0123456789abcdef`);
    expect(reply.status).toBe(404);
    const error = aip(reply);
    expect(error.code).toBe(5);
    expect(error.byType.ResourceInfo.resourceType).toBe('iam.chainguard.dev/Role');
  });
});

describe('authentication', () => {
  it('no bearer token → UNAUTHENTICATED with WWW-Authenticate, and v1 is not called', async () => {
    const before = stack.emulator.state.counts().groups;
    const reply = await stack.client.post(`/iam/v2beta1/groups/${org}`, { name: 'anon' }, { authorization: null });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    expect(aip(reply).code).toBe(16);
    expect(stack.emulator.state.counts().groups).toBe(before);
  });

  it('a non-bearer scheme → UNAUTHENTICATED', async () => {
    expect((await stack.client.get('/iam/v2beta1/groups', {}, { authorization: 'Basic dXNlcjpwYXNz' })).status).toBe(401);
  });

  it("the caller's token is forwarded to v1, which judges it", async () => {
    const strict = await startStack({ emulator: { acceptToken: (token) => token === 'good' } });
    try {
      expect((await strict.client.get('/iam/v2beta1/groups', {}, { authorization: 'Bearer good' })).status).toBe(200);
      const refused = await strict.client.get('/iam/v2beta1/groups', {}, { authorization: 'Bearer bad' });
      expect(refused.status).toBe(401);
      expect(aip(refused).code).toBe(16);
    } finally {
      await strict.close();
    }
  });

  it('tokens never reach the log', async () => {
    const secret = 'Bearer sk-live-do-not-log-4d3c2b1a';
    const headers = { cookie: 'session=cookie-do-not-log', 'x-goog-iap-jwt-assertion': 'iap-do-not-log' };
    await stack.client.get('/iam/v2beta1/groups', {}, { authorization: secret, headers });
    await stack.client.get('/iam/v2beta1/groups/zzz', {}, { authorization: secret, headers });
    const text = stack.logs.join('\n');
    expect(text).toContain('"authorization":"[REDACTED]"');
    expect(text).toContain('"cookie":"[REDACTED]"');
    expect(text).toContain('"user-agent"');
    for (const leaked of ['sk-live-do-not-log', 'cookie-do-not-log', 'iap-do-not-log']) expect(text).not.toContain(leaked);
  });
});

describe('v1 failures', () => {
  let fake: FastifyInstance;
  let fakeUrl: string;
  let client: Client;
  let gateway: FastifyInstance;

  beforeAll(async () => {
    // A v1 that answers every list with the grpc-gateway error named in the `code` query parameter.
    fake = Fastify();
    fake.get('/iam/v1/groups', async (request, reply) => {
      const code = Number((request.query as { 'uidp.childrenOf'?: string })['uidp.childrenOf']?.slice(-2) ?? 13);
      const status = ({ 3: 400, 5: 404, 7: 403, 8: 429, 9: 400, 10: 409, 13: 500, 14: 503, 16: 401 } as Record<number, number>)[code] ?? 500;
      return reply.code(status).send({ code, message: `v1 says ${code}`, details: [] });
    });
    fake.get('/iam/v1/roles', async (_request, reply) => reply.code(500).type('text/html').send('<html>server error</html>'));
    // A proxy in front of v1 that cannot reach it.
    fake.get('/iam/v1/identityProviders', async (_request, reply) => reply.code(502).type('text/html').send('<html>bad gateway</html>'));
    // Fails the first read of each id with 503, then answers: a retried GET must hide the blip.
    const attempts = new Map<string, number>();
    fake.get('/iam/v1/identities', async (request, reply) => {
      const id = String((request.query as { id?: string }).id);
      attempts.set(id, (attempts.get(id) ?? 0) + 1);
      if (attempts.get(id) === 1) return reply.code(503).send({ code: 14, message: 'warming up', details: [] });
      return { items: [{ id, name: 'flaky', description: '', createdAt: '2026-01-01T00:00:00Z' }] };
    });
    fake.delete('/iam/v1/identities/*', async (_request, reply) => reply.code(503).send({ code: 14, message: 'busy', details: [] }));
    fakeUrl = await fake.listen({ port: 0, host: '127.0.0.1' });
    ({ gateway } = await startGateway(fakeUrl));
    client = new Client(`http://127.0.0.1:${(gateway.server.address() as { port: number }).port}`);
  });
  afterAll(async () => {
    await gateway.close();
    await fake.close();
  });

  const uidEndingIn = (code: number) => `${'a'.repeat(38)}${String(code).padStart(2, '0')}`;

  for (const [code, status] of [[3, 400], [5, 404], [7, 403], [8, 429], [9, 400], [10, 409], [13, 500], [14, 503], [16, 401]] as const) {
    it(`v1 code ${code} leaves as code ${code}, HTTP ${status}, with ErrorInfo`, async () => {
      const reply = await client.get('/iam/v2beta1/groups', { 'uidp.children_of': uidEndingIn(code) });
      expect(reply.status).toBe(status);
      const error = aip(reply);
      expect(error.code).toBe(code);
      expect(error.message).toContain(`v1 says ${code}`);
      expect(error.byType.ErrorInfo.domain).toBe('iam.chainguard.dev');
    });
  }

  it('a v1 error without a JSON body is decoded from its HTTP status', async () => {
    const reply = await client.get('/iam/v2beta1/roles');
    expect(reply.status).toBe(500);
    expect(aip(reply).code).toBe(13);
  });

  it("a proxy's 502 in front of v1 is UNAVAILABLE, as gRPC maps it (and as the read retry already treats it)", async () => {
    const reply = await client.get('/iam/v2beta1/identityProviders');
    expect(reply.status).toBe(503);
    expect(aip(reply)).toMatchObject({ code: 14, message: 'Unavailable: v1 answered HTTP 502' });
  });

  it('a read that v1 refuses once with 503 is retried', async () => {
    const reply = await client.get(`/iam/v2beta1/identities/${'b'.repeat(40)}`);
    expect(reply.status).toBe(200);
    expect(reply.body.name).toBe('flaky');
  });

  it('a write is not retried: v1’s 503 reaches the client', async () => {
    const reply = await client.delete(`/iam/v2beta1/identities/${'b'.repeat(40)}`);
    expect(reply.status).toBe(503);
    expect(aip(reply).message).toContain('busy');
  });

  it('v1 unreachable → UNAVAILABLE 503 with RetryInfo', async () => {
    const { gateway: lonely } = await startGateway('http://127.0.0.1:9');
    try {
      const reply = await new Client(`http://127.0.0.1:${(lonely.server.address() as { port: number }).port}`).get('/iam/v2beta1/groups');
      expect(reply.status).toBe(503);
      const error = aip(reply);
      expect(error.code).toBe(14);
      expect(error.byType.RetryInfo).toBeDefined();
    } finally {
      await lonely.close();
    }
  });

  it('v1 slower than the deadline → DEADLINE_EXCEEDED 504', async () => {
    const slow = await startStack({ emulator: { latencyMs: 400 }, flags: ['--v1-timeout-ms', '100'] });
    try {
      const reply = await slow.client.get('/iam/v2beta1/groups');
      expect(reply.status).toBe(504);
      expect(aip(reply).code).toBe(4);
    } finally {
      await slow.close();
    }
  });
});

describe('bugs', () => {
  it('an unexpected exception → INTERNAL 500 without a stack trace or its message', async () => {
    const app = await buildGateway({ ...loadConfig(['--log-level', 'silent'], {}), v1Url: stack.emulator.url });
    // Not part of the product: a route that fails the way a bug would.
    app.get('/iam/v2beta1/boom', async () => {
      throw new TypeError('secret internal detail');
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const reply = await new Client(url).get('/iam/v2beta1/boom');
      expect(reply.status).toBe(500);
      const error = aip(reply);
      expect(error.code).toBe(13);
      expect(reply.text).not.toContain('secret internal detail');
      expect(reply.text).not.toMatch(/\bat \S+ \(/);
      expect(error.byType.ErrorInfo.metadata.requestId).toBe(reply.headers.get('x-request-id'));
    } finally {
      await app.close();
    }
  });
});

describe('health', () => {
  it('/healthz answers without a token; /readyz reflects v1', async () => {
    expect((await stack.client.get('/healthz', {}, { authorization: null })).status).toBe(200);
    expect((await stack.client.get('/readyz', {}, { authorization: null })).body).toEqual({ status: 'ready' });
    const { gateway } = await startGateway('http://127.0.0.1:9');
    try {
      const client = new Client(`http://127.0.0.1:${(gateway.server.address() as { port: number }).port}`);
      expect((await client.get('/healthz')).status).toBe(200);
      const notReady = await client.get('/readyz', {}, { authorization: null });
      expect(notReady.status).toBe(503);
      expect(aip(notReady).code).toBe(14);
    } finally {
      await gateway.close();
    }
  });
});
