import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/v1/index.ts';
import { client, useEmulator } from './helpers.ts';

const ROUTES: [string, string][] = [
  ['GET', '/iam/v1/groups'],
  ['POST', '/iam/v1/groups'],
  ['PUT', '/iam/v1/identities/abc'],
  ['DELETE', '/iam/v1/roles/abc'],
  ['GET', '/iam/v1/identities/lookup?issuer=a&subject=b'],
  ['POST', '/iam/v1/rolebindings/batch/abc'],
  ['GET', '/registry/v1/repos'],
  ['POST', '/iam/v1/identityProviders/abc'],
  ['PUT', '/iam/v1/account_associations/abc'],
  ['GET', '/iam/v1/group_invites'],
  ['DELETE', '/registry/v1/tags/abc'],
  ['POST', '/vulnerabilities/v1/advisories'],
  ['GET', '/vulnerabilities/v1/advisories/abc/events'],
  ['PUT', '/vulnerabilities/v1/advisory_events/abc'],
];

describe('v1 HTTP conventions', () => {
  const ctx = useEmulator();

  it.each(ROUTES)('%s %s without a bearer token is 16 UNAUTHENTICATED (401)', async (method, path) => {
    const anonymous = client(ctx.emu.url, null);
    const res = await anonymous.call(method, path, method === 'GET' || method === 'DELETE' ? undefined : method === 'POST' && path.includes('batch') ? [] : { name: 'n' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 16, message: expect.any(String), details: [] });
    expect(res.headers.get('www-authenticate')).toBe(res.body.message);
  });

  it('an empty bearer token is refused too', async () => {
    const res = await client(ctx.emu.url, '').get('/iam/v1/groups');
    expect(res.body.code).toBe(16);
  });

  it('bad JSON is 3 INVALID_ARGUMENT (400), decided before authentication as in grpc-gateway', async () => {
    const authed = await ctx.api.call('POST', '/iam/v1/groups', '{"name":');
    expect(authed).toMatchObject({ status: 400, body: { code: 3, details: [] } });
    const anonymous = await client(ctx.emu.url, null).call('POST', '/iam/v1/groups', '{"name":');
    expect(anonymous.body.code).toBe(3);
    const wrongType = await ctx.api.post('/iam/v1/groups', { name: 42 });
    expect(wrongType.body.code).toBe(3);
    const notObject = await ctx.api.post('/iam/v1/groups', [1]);
    expect(notObject.body.code).toBe(3);
  });

  it('an unknown route is 404 with code 5 "Not Found", authenticated or not', async () => {
    for (const path of ['/iam/v1/nope', '/', '/iam/v2beta1/groups']) {
      const res = await client(ctx.emu.url, null).get(path);
      expect(res).toMatchObject({ status: 404, body: { code: 5, message: 'Not Found', details: [] } });
    }
  });

  it('a known path with another method is 405 with code 12 "Method Not Allowed"', async () => {
    for (const [method, path] of [['PATCH', '/iam/v1/groups/abc'], ['GET', '/iam/v1/groups/abc'], ['PATCH', '/registry/v1/repos'], ['GET', '/registry/v1/repos/abc']]) {
      const res = await ctx.api.call(method!, path!);
      expect(res).toMatchObject({ status: 405, body: { code: 12, message: 'Method Not Allowed', details: [] } });
    }
  });

  it('answers application/json and reads bodies whatever their content type', async () => {
    const res = await ctx.api.call('POST', '/iam/v1/groups', JSON.stringify({ name: 'typed' }), { 'content-type': 'text/plain' });
    expect(res.body.name).toBe('typed');
    expect(res.headers.get('content-type')).toBe('application/json');
  });

  it('query strings: unknown keys ignored, several values for a singular field refused, bools parsed like Go', async () => {
    expect((await ctx.api.get('/iam/v1/groups?whatever=1&uidp.nothing=2')).status).toBe(200);
    expect((await ctx.api.get('/iam/v1/groups?id=a&id=b')).body.code).toBe(3);
    expect((await ctx.api.get('/iam/v1/groups?uidp.inRoot=T')).status).toBe(200);
    expect((await ctx.api.get('/iam/v1/groups?uidp.inRoot=yes')).body.code).toBe(3);
  });

  it('acceptToken can refuse a token with 16', async () => {
    const emu = await startEmulator({ port: 0, acceptToken: (token) => token === 'good' });
    try {
      expect((await client(emu.url, 'bad').get('/iam/v1/groups')).status).toBe(401);
      expect((await client(emu.url, 'good').get('/iam/v1/groups')).status).toBe(200);
    } finally {
      await emu.close();
    }
  });

  it('latencyMs delays every response', async () => {
    const emu = await startEmulator({ port: 0, latencyMs: 120 });
    try {
      const api = client(emu.url);
      for (const path of ['/iam/v1/groups', '/not-a-route']) {
        const started = performance.now();
        await api.get(path);
        expect(performance.now() - started).toBeGreaterThanOrEqual(110);
      }
    } finally {
      await emu.close();
    }
  });
});
