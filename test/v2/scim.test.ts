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

describeModes('SCIM tokens', (stack) => {
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

  it('never writes a token to the log', () => {
    expect(tokens).toHaveLength(2);
    for (const token of tokens) expect(stack().logs.join('\n')).not.toContain(token);
  });
}, { modes: ALL_MODES });
