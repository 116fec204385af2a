/**
 * The SCIM credential lifecycle of an identity provider, in every mode over
 * REST and gRPC: generate once, regenerate with the etag (make-before-break),
 * enable only with two owner bindings, revoke; the provider's `scim` block
 * follows; the token is shown once and never logged.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { ALL_MODES, describeModes } from '../support/modes.ts';
import { aip } from '../support/stack.ts';

const IDPS = 'chainguard.platform.iam.v2beta1.IdentityProvidersService';
const TOKEN = /^cgscim_[0-9a-f]{64}$/;

describeModes('SCIM tokens', (stack, mode) => {
  let grpc: GrpcClient;
  let org: string;
  let idp: string;
  let owner: string;
  const client = () => stack().client;
  const verb = (name: string, body: object = {}, uid = idp) => client().post(`/iam/v2beta1/identityProviders/${uid}:${name}`, body);
  const scimOf = async () => (await client().get(`/iam/v2beta1/identityProviders/${idp}`)).body.scim;
  const tokens: string[] = [];
  beforeAll(async () => {
    grpc = new GrpcClient(stack().url);
    org = (await client().post('/iam/v2beta1/groups', { name: 'scim-org' })).body.uid;
    const roles = (await client().get('/iam/v2beta1/roles', { 'uidp.in_root': true })).body.roles;
    owner = roles.find((r: any) => r.name === 'owner').uid;
    const viewer = roles.find((r: any) => r.name === 'viewer').uid;
    idp = (await client().post(`/iam/v2beta1/identityProviders/${org}`, { name: 'sso', defaultRole: viewer, oidc: { issuer: 'https://idp.example', clientId: 'c', clientSecret: 's' } })).body.uid;
  });
  afterAll(() => grpc?.close());

  let etag: string;
  it('generates the first token once, disabled, and refuses a second', async () => {
    const made = await verb('generateScimToken');
    expect(made.status).toBe(200);
    expect(made.body.token).toMatch(TOKEN);
    expect(made.body.identityProviderUid).toBe(idp);
    expect(made.body.endpointUrl).toContain(idp);
    expect(Date.parse(made.body.expireTime) - Date.now()).toBeGreaterThan(360 * 24 * 3600_000);
    tokens.push(made.body.token);
    etag = made.body.etag;
    expect(await scimOf()).toMatchObject({ enabled: false, credentialState: 'CREDENTIAL_STATE_LIVE', etag });
    const again = await rejected(grpc.call(IDPS, 'GenerateScimToken', { identityProviderUid: idp }));
    expect(again.code).toBe(9);
  });

  it('regenerates only with the current etag, keeping the live token for the overlap', async () => {
    expect(aip(await verb('regenerateScimToken', {})).byType.BadRequest.fieldViolations[0].field).toBe('etag');
    const stale = await verb('regenerateScimToken', { etag: 'not-the-etag' });
    expect(stale.status).toBe(409);
    expect(aip(stale).code).toBe(10);
    const rotated = await grpc.call(IDPS, 'RegenerateScimToken', { identityProviderUid: idp, etag, overlap: { seconds: 600 } });
    expect(rotated.token).toMatch(TOKEN);
    expect(rotated.token).not.toBe(tokens[0]);
    expect(rotated.requestedOverlap).toMatchObject({ seconds: '600' });
    expect(rotated.previousTokenExpireTime).toBeTruthy();
    tokens.push(rotated.token);
    etag = rotated.etag;
    expect(await scimOf()).toMatchObject({ credentialState: 'CREDENTIAL_STATE_ROTATING', etag });
  });

  it('enables provisioning only with two owner bindings in the organisation, and with the etag', async () => {
    const refused = await verb('setScimEnabled', { enabled: true, etag });
    expect(refused.status).toBe(400);
    expect(aip(refused).code).toBe(9);
    for (const name of ['owner-one', 'owner-two']) {
      const identity = (await client().post(`/iam/v2beta1/identities/${org}`, { name, claimMatch: { issuer: 'https://i.example', subject: name } })).body.uid;
      expect((await client().post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: identity, roleUid: owner })).status).toBe(200);
    }
    const enabled = await verb('setScimEnabled', { enabled: true, etag });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ identityProviderUid: idp, enabled: true });
    etag = enabled.body.etag;
    expect((await scimOf()).enabled).toBe(true);
    // false is a value, not a missing field: disabling and enabling again both take.
    const disabled = await grpc.call(IDPS, 'SetScimEnabled', { identityProviderUid: idp, enabled: false, etag });
    expect(disabled.enabled ?? false).toBe(false);
    const again = await verb('setScimEnabled', { enabled: true, etag: disabled.etag });
    expect(again.status).toBe(200);
    etag = again.body.etag;
  });

  it('revokes without an etag, leaving provisioning enabled', async () => {
    const revoked = await grpc.call(IDPS, 'RevokeScimToken', { identityProviderUid: idp });
    expect(revoked).toMatchObject({ identityProviderUid: idp, enabled: true });
    expect(revoked.revokeTime).toBeTruthy();
    expect(await scimOf()).toMatchObject({ enabled: true, credentialState: 'CREDENTIAL_STATE_REVOKED' });
  });

  it('refuses a provider that never had a token, and an expiry with neverExpires', async () => {
    const viewer = (await client().get(`/iam/v2beta1/identityProviders/${idp}`)).body.defaultRole;
    const fresh = (await client().post(`/iam/v2beta1/identityProviders/${org}`, { name: 'sso-two', defaultRole: viewer, oidc: { issuer: 'https://idp.example', clientId: 'c', clientSecret: 's' } })).body.uid;
    expect((await verb('regenerateScimToken', { etag: 'x' }, fresh)).status).toBe(404);
    expect((await verb('revokeScimToken', {}, fresh)).status).toBe(404);
    const both = await verb('generateScimToken', { expireTime: new Date(Date.now() + 86_400_000).toISOString(), neverExpires: true }, fresh);
    expect(both.status).toBe(400);
  });

  /** A new provider in the organisation, with no SCIM token yet. */
  const provider = async (name: string) => {
    const viewer = (await client().get(`/iam/v2beta1/identityProviders/${idp}`)).body.defaultRole;
    const made = await client().post(`/iam/v2beta1/identityProviders/${org}`, { name, defaultRole: viewer, oidc: { issuer: 'https://idp.example', clientId: 'c', clientSecret: 's' } });
    expect(made.status).toBe(200);
    return made.body.uid as string;
  };
  const scimAt = async (uid: string) => (await client().get(`/iam/v2beta1/identityProviders/${uid}`)).body.scim;

  it('an overlap ends no later than the previous token itself expires, and at most 24 h on', async () => {
    const uid = await provider('sso-overlap');
    const tenMinutes = new Date(Date.now() + 600_000).toISOString();
    const made = await verb('generateScimToken', { expireTime: tenMinutes }, uid);
    // The default overlap is an hour, but the previous token dies in ten minutes: that is when the overlap ends.
    const rotated = await verb('regenerateScimToken', { etag: made.body.etag }, uid);
    expect(rotated.status).toBe(200);
    expect(rotated.body.requestedOverlap).toBe('3600s');
    expect(Date.parse(rotated.body.previousTokenExpireTime)).toBe(Date.parse(tenMinutes));
    const long = await verb('regenerateScimToken', { etag: rotated.body.etag, overlap: '172800s' }, uid);
    expect(long.body.requestedOverlap).toBe('172800s');
    const end = Date.parse(long.body.previousTokenExpireTime) - Date.now();
    expect(end).toBeGreaterThan(23 * 3600_000);
    expect(end).toBeLessThanOrEqual(24 * 3600_000);
  });

  it('the credential state moves with time: a token past its expiry is EXPIRED, an overlap that ended leaves it LIVE', async () => {
    const expiring = await provider('sso-expiring');
    const rotating = await provider('sso-rotating');
    const soon = Date.now() + 1500;
    expect((await verb('generateScimToken', { expireTime: new Date(soon).toISOString() }, expiring)).status).toBe(200);
    const first = await verb('generateScimToken', {}, rotating);
    const rotated = await verb('regenerateScimToken', { etag: first.body.etag, overlap: '1s' }, rotating);
    const overlapEnd = Date.parse(rotated.body.previousTokenExpireTime);
    // Wait until both instants have passed (no write happens meanwhile): reads must tell the new state.
    await new Promise((resolve) => setTimeout(resolve, Math.max(soon, overlapEnd) - Date.now() + 50));
    expect(await scimAt(expiring)).toMatchObject({ credentialState: 'CREDENTIAL_STATE_EXPIRED', tokenExpireTime: new Date(soon).toISOString() });
    expect(await scimAt(rotating)).toMatchObject({ credentialState: 'CREDENTIAL_STATE_LIVE', previousTokenExpireTime: null });
  });

  it('a List leaves the token expiry and credential state out, which a Get shows', async () => {
    const uid = await provider('sso-listed');
    const made = await verb('generateScimToken', {}, uid);
    expect(made.body.expireTime).toMatch(/\.\d{3}Z$/); // milliseconds, as every read shows times (v1 sends microseconds)
    const listed = (await client().get('/iam/v2beta1/identityProviders', { 'uidp.children_of': org, name: 'sso-listed' })).body.identityProviders;
    expect(listed).toHaveLength(1);
    expect(listed[0].scim).toMatchObject({ etag: made.body.etag, tokenExpireTime: null, credentialState: 'CREDENTIAL_STATE_UNSPECIFIED' });
    const rpc = await grpc.call(IDPS, 'ListIdentityProviders', { uidp: { childrenOf: org }, name: 'sso-listed' });
    const row = rpc.identityProviders.find((p: any) => p.uid === uid);
    expect(row.scim).toMatchObject({ etag: made.body.etag, tokenExpireTime: null, credentialState: 'CREDENTIAL_STATE_UNSPECIFIED' });
    expect(await scimAt(uid)).toMatchObject({ credentialState: 'CREDENTIAL_STATE_LIVE', tokenExpireTime: made.body.expireTime });
  });

  if (mode !== 'translate') {
    // v1 leaves `scim` out until SCIM is set up ("reported when deployed"); native mode is the v2 service, which says so.
    it('before any token the block says NOT_ISSUED, with the endpoint', async () => {
      const uid = await provider('sso-fresh');
      const fresh = await scimAt(uid);
      expect(fresh).toMatchObject({ enabled: false, credentialState: 'CREDENTIAL_STATE_NOT_ISSUED', tokenExpireTime: null, etag: '' });
      expect(fresh.endpointUrl).toContain(uid);
    });
  }

  it('never writes a token to the log', () => {
    expect(tokens).toHaveLength(2);
    for (const token of tokens) expect(stack().logs.join('\n')).not.toContain(token);
  });
}, { modes: ALL_MODES });
