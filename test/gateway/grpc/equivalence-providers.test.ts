/**
 * Equivalence (test/support/equivalence.ts) for identity providers (their SCIM
 * tokens included), external group role mappings and account associations:
 * the same operation over gRPC and over REST answers the same message, or the
 * same error.
 */
import { beforeAll, expect, it } from 'vitest';
import { describeEquivalence, expectSameMessage, itReadsAlike, itWritesAlike, rpc, type Ids } from '../../support/equivalence.ts';

const NOT_FOUND = 5;
const FAILED_PRECONDITION = 9;
const ABORTED = 10;
const IDPS = '/iam/v2beta1/identityProviders';
const MAPPINGS = '/iam/v2beta1/externalGroupRoleMappings';

describeEquivalence('providers', (eq, mode) => {
  const ids: Ids = {};
  const rest = () => eq.rest();
  const oidc = (name: string) => ({ name, defaultRole: ids.role!, oidc: { issuer: 'https://sso.example', clientId: 'c', clientSecret: 'never-shown', additionalScopes: ['email'] } });

  beforeAll(async () => {
    ids.org = await eq.made('/iam/v2beta1/groups', { name: 'equivalence' });
    ids.group = await eq.made(`/iam/v2beta1/groups/${ids.org}`, { name: 'eq-group' });
    ids.role = await eq.made(`/iam/v2beta1/roles/${ids.org}`, { name: 'eq-role', capabilities: ['CAP_IAM_GROUPS_LIST', 'CAP_REPO_LIST'] });
    ids.idp = await eq.made(`${IDPS}/${ids.org}`, oidc('eq-sso'));
    ids.association = await eq.made(`/iam/v2beta1/accountAssociations/${ids.group}`, { name: 'eq-cloud', amazon: { account: '123456789012' } });
    ids.viewer = (await rest().get('/iam/v2beta1/roles', { name: 'viewer' })).body.roles[0].uid;
    ids.mapping = await eq.made(`${MAPPINGS}/${ids.idp}`, { externalGroupId: 'engineers', roleUid: ids.viewer, scope: ids.org });
  });

  itReadsAlike(eq, ids, [
    ['IdentityProvidersService', 'GetIdentityProvider', 'ListIdentityProviders', IDPS, 'idp'],
    ['AccountAssociationsService', 'GetAccountAssociation', 'ListAccountAssociations', '/iam/v2beta1/accountAssociations', 'association'],
    ['ExternalGroupRoleMappingsService', 'GetExternalGroupRoleMapping', 'ListExternalGroupRoleMappings', MAPPINGS, 'mapping'],
  ]);

  let written = 0;
  itWritesAlike(eq, ids, [
    ['IdentityProvidersService', 'IdentityProvider', IDPS, 'org', () => oidc(`eq-written-${++written}`), () => ({ description: 'changed' })],
  ]);

  it('CreateAccountAssociation, UpdateAccountAssociation, DeleteAccountAssociation', async () => {
    const service = 'AccountAssociationsService';
    const output = rpc(`${service}.GetAccountAssociation`).output;
    const target = await eq.made(`/iam/v2beta1/groups/${ids.org}`, { name: 'eq-aa' });
    const created = await eq.call(`${service}.CreateAccountAssociation`, { parent: target, accountAssociation: { name: 'aa', amazon: { account: '1' } } });
    expectSameMessage(output, created, (await rest().get(`/iam/v2beta1/accountAssociations/${target}`)).body);
    const updated = await eq.call(`${service}.UpdateAccountAssociation`, { accountAssociation: { uid: target, description: 'changed' } });
    expectSameMessage(output, updated, (await rest().get(`/iam/v2beta1/accountAssociations/${target}`)).body);
    const other = await eq.made(`/iam/v2beta1/groups/${ids.org}`, { name: 'eq-aa-2' });
    await eq.made(`/iam/v2beta1/accountAssociations/${other}`, { name: 'aa', amazon: { account: '1' } });
    await eq.same(`${service}.DeleteAccountAssociation`, { uid: target }, () => rest().delete(`/iam/v2beta1/accountAssociations/${other}`));
  });

  it('CheckAccountAssociation, of a provider set up and of one not, and of a group with none', async () => {
    const check = (uid: string, providerType: string) => () => rest().post(`/iam/v2beta1/accountAssociations/${uid}:checkAccountAssociation`, { providerType });
    const amazon = await eq.same<{ status: number }>('AccountAssociationsService.CheckAccountAssociation', { uid: ids.group!, providerType: 'ACCOUNT_PROVIDER_TYPE_AMAZON' },
      check(ids.group!, 'ACCOUNT_PROVIDER_TYPE_AMAZON'));
    expect(amazon.status).toBe(mode === 'translate' ? 1 : 2); // READY over v1; native mode makes no token exchange: NOT_READY
    await eq.same('AccountAssociationsService.CheckAccountAssociation', { uid: ids.group!, providerType: 'ACCOUNT_PROVIDER_TYPE_GOOGLE' },
      check(ids.group!, 'ACCOUNT_PROVIDER_TYPE_GOOGLE'));
    await eq.sameError('AccountAssociationsService.CheckAccountAssociation', { uid: ids.org!, providerType: 'ACCOUNT_PROVIDER_TYPE_AMAZON' }, NOT_FOUND,
      check(ids.org!, 'ACCOUNT_PROVIDER_TYPE_AMAZON'));
  });

  it('CreateExternalGroupRoleMapping and DeleteExternalGroupRoleMapping answer what a read over the other protocol shows', async () => {
    const service = 'ExternalGroupRoleMappingsService';
    const output = rpc(`${service}.GetExternalGroupRoleMapping`).output;
    const created = await eq.call<{ uid: string }>(`${service}.CreateExternalGroupRoleMapping`, {
      parent: ids.idp!, externalGroupRoleMapping: { externalGroupId: 'grpc-made', roleUid: ids.viewer!, scope: ids.org! },
    });
    expectSameMessage(output, created, (await rest().get(`${MAPPINGS}/${created.uid}`)).body);
    const made = await rest().post(`${MAPPINGS}/${ids.idp}`, { externalGroupId: 'rest-made', roleUid: ids.viewer, scope: ids.org });
    expectSameMessage(output, await eq.call(`${service}.GetExternalGroupRoleMapping`, { uid: made.body.uid }), made.body);
    await eq.same(`${service}.DeleteExternalGroupRoleMapping`, { uid: created.uid }, () => rest().delete(`${MAPPINGS}/${made.body.uid}`));
  });

  it('BatchDeleteExternalGroupRoleMappings answers what it deleted, and refuses another provider\'s the same way', async () => {
    const service = 'ExternalGroupRoleMappingsService';
    const other = await eq.made(`${IDPS}/${ids.org}`, oidc('eq-other-sso'));
    const foreign = await eq.made(`${MAPPINGS}/${other}`, { externalGroupId: 'foreign', roleUid: ids.viewer, scope: ids.org });
    const mapping = (name: string) => eq.made(`${MAPPINGS}/${ids.idp}`, { externalGroupId: name, roleUid: ids.viewer, scope: ids.org });
    const [a, b] = [await mapping('a'), await mapping('b')];
    await eq.sameError(`${service}.BatchDeleteExternalGroupRoleMappings`, { parent: ids.idp!, names: [a, foreign] }, 3,
      () => rest().post(`${MAPPINGS}:batchDelete`, { parent: ids.idp, names: [a, foreign] }));
    // What gRPC deletes is what a REST read showed; REST then deletes b, which gRPC read.
    const shown = (await rest().get(`${MAPPINGS}/${a}`)).body;
    const deleted = await eq.call(`${service}.BatchDeleteExternalGroupRoleMappings`, { parent: ids.idp!, names: [a] });
    expectSameMessage(rpc(`${service}.BatchDeleteExternalGroupRoleMappings`).output, deleted, { parent: ids.idp, externalGroupRoleMappings: [shown] });
    const read = await eq.call(`${service}.GetExternalGroupRoleMapping`, { uid: b });
    const restDeleted = await rest().post(`${MAPPINGS}:batchDelete`, { parent: ids.idp, names: [b] });
    expectSameMessage(rpc(`${service}.BatchDeleteExternalGroupRoleMappings`).output, { ...deleted, externalGroupRoleMappings: [read] } as never, restDeleted.body);
  });

  // The SCIM verbs write a provider's `scim` block; each answer is compared with that block as the other protocol reads it.
  const scimOf = async (uid: string) => (await rest().get(`${IDPS}/${uid}`)).body.scim;
  const verb = (uid: string, name: string, body: object) => () => rest().post(`${IDPS}/${uid}:${name}`, body);
  it('GenerateScimToken answers the token once with what a read shows, and a second is FAILED_PRECONDITION on both', async () => {
    const uid = await eq.made(`${IDPS}/${ids.org}`, oidc('eq-scim-generate'));
    const made = await eq.call<{ token: string }>('IdentityProvidersService.GenerateScimToken', { identityProviderUid: uid });
    expect(made.token).toMatch(/^cgscim_/);
    const scim = await scimOf(uid);
    expectSameMessage(rpc('IdentityProvidersService.GenerateScimToken').output, made,
      { token: made.token, endpointUrl: scim.endpointUrl, expireTime: scim.tokenExpireTime, identityProviderUid: uid, etag: scim.etag });
    await eq.sameError('IdentityProvidersService.GenerateScimToken', { identityProviderUid: uid }, FAILED_PRECONDITION, verb(uid, 'generateScimToken', {}));
  });

  it('RegenerateScimToken answers what a read shows; a stale etag is ABORTED on both', async () => {
    const uid = await eq.made(`${IDPS}/${ids.org}`, oidc('eq-scim-regenerate'));
    expect((await verb(uid, 'generateScimToken', {})()).status).toBe(200);
    const stale = { identityProviderUid: uid, etag: 'not-the-etag' };
    await eq.sameError('IdentityProvidersService.RegenerateScimToken', stale, ABORTED, verb(uid, 'regenerateScimToken', stale));
    const rotated = await eq.call<{ token: string }>('IdentityProvidersService.RegenerateScimToken', { identityProviderUid: uid, etag: (await scimOf(uid)).etag, overlap: '600s' });
    const scim = await scimOf(uid);
    expectSameMessage(rpc('IdentityProvidersService.RegenerateScimToken').output, rotated, {
      token: rotated.token, endpointUrl: scim.endpointUrl, expireTime: scim.tokenExpireTime, identityProviderUid: uid, etag: scim.etag,
      previousTokenExpireTime: scim.previousTokenExpireTime, requestedOverlap: '600s',
    });
  });

  it('SetScimEnabled answers what a read shows; without two owners it is FAILED_PRECONDITION on both', async () => {
    const org = await eq.made('/iam/v2beta1/groups', { name: 'eq-scim-org' });
    const owner = (await rest().get('/iam/v2beta1/roles', { name: 'owner' })).body.roles[0].uid;
    // A default role of its own organisation (or a built-in one): another organisation's role is refused.
    const uid = await eq.made(`${IDPS}/${org}`, { ...oidc('eq-scim-enable'), defaultRole: owner });
    const etag = (await verb(uid, 'generateScimToken', {})()).body.etag as string;
    const enable = { identityProviderUid: uid, enabled: true, etag };
    await eq.sameError('IdentityProvidersService.SetScimEnabled', enable, FAILED_PRECONDITION, verb(uid, 'setScimEnabled', enable));
    for (const name of ['owner-one', 'owner-two']) {
      const identity = await eq.made(`/iam/v2beta1/identities/${org}`, { name, claimMatch: { issuer: 'https://i.example', subject: name } });
      await eq.made(`/iam/v2beta1/roleBindings/${org}`, { identityUid: identity, roleUid: owner });
    }
    const enabled = await eq.call('IdentityProvidersService.SetScimEnabled', enable);
    const scim = await scimOf(uid);
    expect(scim.enabled).toBe(true);
    expectSameMessage(rpc('IdentityProvidersService.SetScimEnabled').output, enabled, { identityProviderUid: uid, enabled: scim.enabled, etag: scim.etag });
  });

  it('RevokeScimToken answers what a read shows; a provider without a token is NOT_FOUND on both', async () => {
    const uid = await eq.made(`${IDPS}/${ids.org}`, oidc('eq-scim-revoke'));
    await eq.sameError('IdentityProvidersService.RevokeScimToken', { identityProviderUid: uid }, NOT_FOUND, verb(uid, 'revokeScimToken', {}));
    expect((await verb(uid, 'generateScimToken', {})()).status).toBe(200);
    const revoked = await eq.call<{ revokeTime: unknown }>('IdentityProvidersService.RevokeScimToken', { identityProviderUid: uid });
    const scim = await scimOf(uid);
    expect(scim.credentialState).toBe('CREDENTIAL_STATE_REVOKED');
    expect(revoked.revokeTime).toBeDefined();
    expectSameMessage(rpc('IdentityProvidersService.RevokeScimToken').output, { ...revoked, revokeTime: undefined } as never,
      { identityProviderUid: uid, enabled: scim.enabled, etag: scim.etag });
  });
});
