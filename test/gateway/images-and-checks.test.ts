/**
 * ImagesService (an image's architectures and size by repo and digest) and
 * AccountAssociationsService.CheckAccountAssociation, over REST and gRPC in
 * both modes. Translate mode reads images from v1, native mode from the row
 * the import copies of what v1 said (here a fixture); native mode makes no
 * token exchange with a provider (NOT_READY, saying why).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { describeModes } from '../support/modes.ts';
import { aip } from '../support/stack.ts';

const IMAGES = 'chainguard.platform.registry.v2beta1.ImagesService';
const ASSOCIATIONS = 'chainguard.platform.iam.v2beta1.AccountAssociationsService';
const DIGEST = `sha256:${'ab'.repeat(32)}`;

describeModes('images and account checks', (stack, mode) => {
  let grpc: GrpcClient;
  let org: string;
  let repo: string;
  beforeAll(async () => {
    grpc = new GrpcClient(stack().url);
    org = (await stack().client.post('/iam/v2beta1/groups', { name: 'images-org' })).body.uid;
    repo = await stack().fixtures.repo(org, { name: 'app' });
    await stack().fixtures.tag(repo, { name: 'latest', digest: DIGEST });
    await stack().fixtures.image(repo, DIGEST, { amd64: '31457280', arm64: '30408704' });
  });
  afterAll(() => grpc?.close());

  it('GetArchitectures lists the platforms of an image index, renamed from v1', async () => {
    const rest = await stack().client.get(`/registry/v2beta1/repos/${repo}/digests/${DIGEST}/architectures`);
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual({ architectures: ['amd64', 'arm64'] });
    expect(await grpc.call(IMAGES, 'GetArchitectures', { repoUid: repo, digest: DIGEST })).toEqual({ architectures: ['amd64', 'arm64'] });
  });

  it('GetSize answers an int64 size for the architecture asked, amd64 by default', async () => {
    const byDefault = await stack().client.get(`/registry/v2beta1/repos/${repo}/digests/${DIGEST}/size`);
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.architecture).toBe('amd64');
    expect(byDefault.body.size).toMatch(/^[1-9]\d*$/);
    const arm = await grpc.call(IMAGES, 'GetSize', { repoUid: repo, digest: DIGEST, architecture: 'arm64' });
    expect(arm.architecture).toBe('arm64');
    expect(arm.size).toMatch(/^[1-9]\d*$/);
    const rest = await stack().client.get(`/registry/v2beta1/repos/${repo}/digests/${DIGEST}/size`, { architecture: 'arm64' });
    expect(rest.body).toEqual(arm);
    expect((await stack().client.get(`/registry/v2beta1/repos/${repo}/digests/${DIGEST}/size`, { architecture: 's390x' })).status).toBe(404);
  });

  it('an unknown digest is NOT_FOUND, a missing one INVALID_ARGUMENT, and the digest route is not GetRepo', async () => {
    const unknown = await stack().client.get(`/registry/v2beta1/repos/${repo}/digests/sha256:${'0'.repeat(64)}/architectures`);
    expect(unknown.status).toBe(404);
    const missing = await rejected(grpc.call(IMAGES, 'GetArchitectures', { repoUid: repo }));
    expect(missing.code).toBe(3);
    expect(JSON.stringify(missing.details)).toContain('digest');
  });

  it('CheckAccountAssociation reports whether the provider is ready', async () => {
    const made = await stack().client.post(`/iam/v2beta1/accountAssociations/${org}`, { name: 'cloud', amazon: { account: '123456789012' } });
    expect(made.status).toBe(200);
    const path = `/iam/v2beta1/accountAssociations/${org}:checkAccountAssociation`;
    const amazon = await stack().client.post(path, { providerType: 'ACCOUNT_PROVIDER_TYPE_AMAZON' });
    expect(amazon.status).toBe(200);
    const google = await grpc.call(ASSOCIATIONS, 'CheckAccountAssociation', { uid: org, providerType: 'ACCOUNT_PROVIDER_TYPE_GOOGLE' });
    expect(google.status).toBe('CHECK_STATUS_NOT_READY');
    expect(google.reason).toBe('NOT_CONFIGURED');
    if (mode === 'translate') {
      expect(amazon.body).toMatchObject({ status: 'CHECK_STATUS_READY', reason: 'OK' });
    } else {
      expect(amazon.body).toMatchObject({ status: 'CHECK_STATUS_NOT_READY', reason: 'NOT_CHECKED' });
      expect(amazon.body.message).toContain('no token exchange');
    }
  });

  it('CheckAccountAssociation needs a provider, and an association that exists', async () => {
    const none = await stack().client.post(`/iam/v2beta1/accountAssociations/${org}:checkAccountAssociation`, {});
    expect(none.status).toBe(400);
    expect(aip(none).byType.BadRequest.fieldViolations[0].field).toBe('providerType');
    const wrongType = await stack().client.post(`/iam/v2beta1/accountAssociations/${org}:checkAccountAssociation`, { providerType: 'AMAZON' });
    expect(wrongType.status).toBe(400);
    const team = (await stack().client.post(`/iam/v2beta1/groups/${org}`, { name: 'no-associations' })).body.uid;
    const missing = await rejected(grpc.call(ASSOCIATIONS, 'CheckAccountAssociation', { uid: team, providerType: 'ACCOUNT_PROVIDER_TYPE_AMAZON' }));
    expect(missing.code).toBe(5);
  });
});
