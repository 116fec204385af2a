/**
 * Repo and tag writes over a real gRPC client, in every mode: the codes and
 * google.rpc.Status details the rules produce (taken names, synced repos,
 * overlay prefixes, OCI grammars, deleting a repo that holds tags).
 */
import { afterAll, expect, it } from 'vitest';
import { describeModes } from '../../support/modes.ts';
import { GrpcClient, rejected } from '../../support/grpc.ts';

const REPOS = 'chainguard.platform.registry.v2beta1.ReposService';
const TAGS = 'chainguard.platform.registry.v2beta1.TagsService';
const byType = (details: any[]) => Object.fromEntries(details.map((d) => [String(d['@type']).split('.').pop(), d]));
const fields = (details: any[]) => byType(details).BadRequest.fieldViolations.map((v: any) => v.field);

describeModes('repo and tag writes over gRPC', (stack) => {
  let grpc: GrpcClient;
  let org: string;
  const rpc = (service: string, method: string, request: object) => {
    grpc ??= new GrpcClient(stack().url);
    return grpc.call(service, method, request);
  };
  afterAll(() => grpc?.close());

  it('creates, updates with a mask and deletes a repo', async () => {
    org = (await stack().client.post('/iam/v2beta1/groups', { name: 'grpc-registry' })).body.uid;
    const repo = await rpc(REPOS, 'CreateRepo', { parent: org, repo: { name: 'app', catalogTier: 'CATALOG_TIER_BASE', customOverlay: { environment: { A: 'b' } } } });
    expect(repo.uid.startsWith(`${org}/`)).toBe(true);
    expect(repo).toMatchObject({ name: 'app', catalogTier: 'CATALOG_TIER_BASE', customOverlay: { environment: { A: 'b' } } });
    const updated = await rpc(REPOS, 'UpdateRepo', { repo: { uid: repo.uid, description: 'd', name: 'ignored' }, updateMask: { paths: ['description'] } });
    expect(updated).toMatchObject({ name: 'app', description: 'd', catalogTier: 'CATALOG_TIER_BASE' });
    expect(await rpc(REPOS, 'DeleteRepo', { uid: repo.uid })).toEqual({});
    expect((await rejected(rpc(REPOS, 'GetRepo', { uid: repo.uid }))).code).toBe(5);
  });

  it('reads and writes the readme sub-resource; a missing repo has none (NOT_FOUND)', async () => {
    const repo = (await rpc(REPOS, 'CreateRepo', { parent: org, repo: { name: 'readme' } })).uid;
    expect(await rpc(REPOS, 'GetRepoReadme', { uid: repo })).toEqual({ uid: repo, content: '' });
    expect(await rpc(REPOS, 'UpdateRepoReadme', { repoReadme: { uid: repo, content: '# Hi' } })).toEqual({ uid: repo, content: '# Hi' });
    expect(await rpc(REPOS, 'GetRepoReadme', { uid: repo })).toEqual({ uid: repo, content: '# Hi' });
    const missing = await rejected(rpc(REPOS, 'GetRepoReadme', { uid: `${org}/0123456789abcdef` }));
    expect(missing.code).toBe(5);
    expect(byType(missing.details).ResourceInfo.resourceType).toBe('registry.chainguard.dev/RepoReadme');
    expect((await rejected(rpc(REPOS, 'UpdateRepoReadme', { repoReadme: { uid: 'nope', content: 'x' } }))).code).toBe(3);
  });

  it('refuses a taken name (ALREADY_EXISTS), reserved overlay keys and a changed inherited field (INVALID_ARGUMENT)', async () => {
    await rpc(REPOS, 'CreateRepo', { parent: org, repo: { name: 'once' } });
    expect((await rejected(rpc(REPOS, 'CreateRepo', { parent: org, repo: { name: 'once' } }))).code).toBe(6);
    const reserved = await rejected(rpc(REPOS, 'CreateRepo', { parent: org, repo: { name: 'r', customOverlay: { annotations: { 'dev.chainguard.x': '1' } } } }));
    expect(reserved.code).toBe(3);
    expect(fields(reserved.details)).toEqual(['customOverlay.annotations']);
    const source = (await rpc(REPOS, 'CreateRepo', { parent: org, repo: { name: 'src' } })).uid;
    const synced = await stack().fixtures.repo(org, { name: 'synced', catalogTier: 'CATALOG_TIER_BASE', sync_config: { source } });
    const inherited = await rejected(rpc(REPOS, 'UpdateRepo', { repo: { uid: synced, catalogTier: 'CATALOG_TIER_FIPS' }, updateMask: { paths: ['catalog_tier'] } }));
    expect(inherited.code).toBe(3);
    expect(fields(inherited.details)).toEqual(['catalogTier']);
    expect((await rpc(REPOS, 'UpdateRepo', { repo: { uid: synced, description: 'ok' } })).catalogTier).toBe('CATALOG_TIER_BASE');
  });

  it('CreateTag upserts by name; DeleteTag; a repo holding tags is not deleted (FAILED_PRECONDITION)', async () => {
    const repo = (await rpc(REPOS, 'CreateRepo', { parent: org, repo: { name: 'tagged' } })).uid;
    const tag = await rpc(TAGS, 'CreateTag', { parent: repo, tag: { name: 'latest', digest: `sha256:${'1'.repeat(64)}` } });
    const again = await rpc(TAGS, 'CreateTag', { parent: repo, tag: { name: 'latest', digest: `sha256:${'2'.repeat(64)}`, deprecated: true } });
    expect(again).toMatchObject({ uid: tag.uid, digest: `sha256:${'2'.repeat(64)}`, deprecated: true });
    const bad = await rejected(rpc(TAGS, 'CreateTag', { parent: repo, tag: { name: '.x', digest: 'nope' } }));
    expect(bad.code).toBe(3);
    expect(fields(bad.details).sort()).toEqual(['digest', 'name']);
    const busy = await rejected(rpc(REPOS, 'DeleteRepo', { uid: repo }));
    expect(busy.code).toBe(9);
    expect(byType(busy.details).PreconditionFailure.violations[0].type).toBe('RESOURCE_NOT_EMPTY');
    expect(await rpc(TAGS, 'DeleteTag', { uid: tag.uid })).toEqual({});
    expect((await rejected(rpc(TAGS, 'DeleteTag', { uid: tag.uid }))).code).toBe(5);
    expect(await rpc(REPOS, 'DeleteRepo', { uid: repo })).toEqual({});
  });
});
