/**
 * Equivalence (test/support/equivalence.ts) for the registry: repos and their
 * readmes, tags, images (native mode: from the row the import copies) and
 * overlays with their bindings (kept in the store in both modes). The same operation over gRPC
 * and over REST answers the same message, or the same error; what a mode does
 * not serve is UNIMPLEMENTED alike on both.
 */
import { beforeAll, expect, it } from 'vitest';
import { describeEquivalence, expectSameMessage, itReadsAlike, itWritesAlike, rpc, type Ids } from '../../support/equivalence.ts';

const DIGEST = `sha256:${'ab'.repeat(32)}`;
const OVERLAYS = '/registry/v2beta1/overlays';
const BINDINGS = '/registry/v2beta1/overlayBindings';

describeEquivalence('registry', (eq) => {
  const ids: Ids = {};
  const rest = () => eq.rest();

  beforeAll(async () => {
    ids.org = await eq.made('/iam/v2beta1/groups', { name: 'equivalence' });
    ids.repo = await eq.stack().fixtures.repo(ids.org, { name: 'eq-repo', catalogTier: 'CATALOG_TIER_BASE' });
    ids.tag = await eq.stack().fixtures.tag(ids.repo, { name: 'latest', digest: DIGEST });
    await eq.stack().fixtures.image(ids.repo, DIGEST, { amd64: '31457280', arm64: '30408704' });
  });

  itReadsAlike(eq, ids, [
    ['ReposService', 'GetRepo', 'ListRepos', '/registry/v2beta1/repos', 'repo'],
    ['TagsService', 'GetTag', 'ListTags', '/registry/v2beta1/tags', 'tag'],
  ]);

  // A repo name names one repo in its group, so each create takes a new one.
  let written = 0;
  itWritesAlike(eq, ids, [
    ['ReposService', 'Repo', '/registry/v2beta1/repos', 'org',
      () => ({ name: `eq-written-${++written}`, catalogTier: 'CATALOG_TIER_AI', customOverlay: { accounts: { users: [{ username: 'u', uid: 7 }] } } }), () => ({ description: 'changed' })],
  ]);

  it('GetRepoReadme and UpdateRepoReadme', async () => {
    const output = rpc('ReposService.GetRepoReadme').output;
    const updated = await eq.call('ReposService.UpdateRepoReadme', { repoReadme: { uid: ids.repo!, content: '# eq' } });
    expectSameMessage(output, updated, (await rest().get(`/registry/v2beta1/repos/${ids.repo}/readme`)).body);
    const patched = await rest().patch(`/registry/v2beta1/repos/${ids.repo}/readme`, { content: '# rest' });
    expectSameMessage(output, await eq.call('ReposService.GetRepoReadme', { uid: ids.repo! }), patched.body);
  });

  it('CreateTag (twice: the upsert) and DeleteTag', async () => {
    const output = rpc('TagsService.GetTag').output;
    const created = await eq.call<{ uid: string }>('TagsService.CreateTag', { parent: ids.repo!, tag: { name: 'eq', digest: `sha256:${'c'.repeat(64)}` } });
    expectSameMessage(output, created, (await rest().get(`/registry/v2beta1/tags/${created.uid}`)).body);
    const replaced = await rest().post(`/registry/v2beta1/tags/${ids.repo}`, { name: 'eq', digest: `sha256:${'d'.repeat(64)}` });
    expect(replaced.body.uid).toBe(created.uid);
    expectSameMessage(output, await eq.call('TagsService.GetTag', { uid: created.uid }), replaced.body);
    const other = await eq.stack().fixtures.tag(ids.repo!, { name: 'eq-other', digest: DIGEST });
    await eq.same('TagsService.DeleteTag', { uid: created.uid }, () => rest().delete(`/registry/v2beta1/tags/${other}`));
  });

  it('GetArchitectures and GetSize of an image', async () => {
    const image = `/registry/v2beta1/repos/${ids.repo}/digests/${DIGEST}`;
    const request = { repoUid: ids.repo!, digest: DIGEST };
    const platforms = await eq.same<{ architectures: string[] }>('ImagesService.GetArchitectures', request, () => rest().get(`${image}/architectures`));
    expect(platforms.architectures.length).toBeGreaterThan(1);
    for (const architecture of platforms.architectures) {
      await eq.same('ImagesService.GetSize', { ...request, architecture }, () => rest().get(`${image}/size`, { architecture }));
    }
    await eq.sameError('ImagesService.GetSize', { ...request, architecture: 's390x' }, 5, () => rest().get(`${image}/size`, { architecture: 's390x' }));
  });

  let packages = 0;
  itWritesAlike(eq, ids, [
    ['OverlaysService', 'Overlay', OVERLAYS, 'org', () => ({ name: `eq-overlay-${++packages}`, config: { contents: { packages: ['curl', 'jq'] } } })],
  ]);

  it('GetOverlay and ListOverlays', async () => {
    const uid = await eq.made(`${OVERLAYS}/${ids.org}`, { name: 'eq-read', config: { contents: { packages: ['git'] } } });
    await eq.same('OverlaysService.GetOverlay', { uid }, () => rest().get(`${OVERLAYS}/${uid}`));
    await eq.same('OverlaysService.ListOverlays', { uidp: { childrenOf: ids.org! }, pageSize: 1 }, () => rest().get(OVERLAYS, { 'uidp.children_of': ids.org, page_size: 1 }));
  });

  it('CreateOverlayBinding, GetOverlayBinding, ListOverlayBindings and DeleteOverlayBinding (the overlay shown expanded)', async () => {
    const overlay = await eq.made(`${OVERLAYS}/${ids.org}`, { name: 'eq-bound', config: { contents: { packages: ['curl'] } } });
    const output = rpc('OverlayBindingsService.GetOverlayBinding').output;
    // gRPC binds by uid, read over REST; REST binds by name, read over gRPC.
    const created = await eq.call<{ uid: string }>('OverlayBindingsService.CreateOverlayBinding', { parent: ids.repo!, overlay, tags: ['latest'] });
    expectSameMessage(output, created, (await rest().get(`${BINDINGS}/${created.uid}`)).body);
    const made = await rest().post(`${BINDINGS}/${ids.repo}`, { overlay: 'eq-bound', tags: ['stable'] });
    expect(made.status).toBe(200);
    expectSameMessage(output, await eq.call('OverlayBindingsService.GetOverlayBinding', { uid: made.body.uid }), made.body);
    await eq.same('OverlayBindingsService.ListOverlayBindings', { overlay, pageSize: 1 }, () => rest().get(BINDINGS, { overlay, page_size: 1 }));
    await eq.same('OverlayBindingsService.DeleteOverlayBinding', { uid: created.uid }, () => rest().delete(`${BINDINGS}/${made.body.uid}`));
  });
});
