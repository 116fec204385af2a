/**
 * What native mode serves from rows only the import writes — v1's public
 * advisory feed, what v1 says of each image, which package is whose
 * subpackage for the advisories `origin` filter — answers as translate mode
 * does over the same v1. Each native engine is filled the way the import
 * fills it (the v1 routes read over HTTP, each row stored with the mapping's
 * own recipe: FEED_FROM_V1, manifestFromV1 and manifestRow, originRows) from the very
 * emulator a translate gateway serves, then both gateways are asked the same
 * questions over REST and gRPC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEED_FROM_V1 } from '../../mappings/methods/advisory-feed.ts';
import { IMAGE_MANIFESTS_KIND, manifestFromV1, manifestRow } from '../../mappings/methods/images.ts';
import { ORIGIN_FROM_V1, originRows } from '../../mappings/methods/package-origins.ts';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { startMode, type ModeStack } from '../support/modes.ts';
import { Client, aip } from '../support/stack.ts';

const FEED = 'chainguard.platform.advisory.v2beta1.SecurityAdvisoryService';
const IMAGES = 'chainguard.platform.registry.v2beta1.ImagesService';
const DIGEST = `sha256:${'cd'.repeat(32)}`;

/** v1's feed: two documents, and seven vulnerabilities (more than one v1 page of the import's reads below). */
function seedFeed(v1: ModeStack): void {
  const feed = v1.emulator!.advisoryFeed;
  feed.addDocument({
    id: 'openssl',
    advisories: [{
      id: 'CGA-aaaa-bbbb-cccc', aliases: ['CVE-2026-0001', 'GHSA-aaaa-bbbb-cccc'], packageNamespace: 'wolfi',
      events: [
        { timestamp: '2026-01-02T03:04:05.123456Z', falsePositiveDetermination: { type: 'FPT_TYPE_VULNERABLE_CODE_NOT_IN_EXECUTION_PATH', note: 'n' } },
        { timestamp: '2026-01-03T03:04:05Z', fixed: { fixedVersion: '3.0.1' } },
      ],
    }],
  });
  feed.addDocument({ id: 'curl', advisories: [{ id: 'CGA-dddd-eeee-ffff', aliases: ['CVE-2026-0002'], packageNamespace: 'wolfi', events: [] }] });
  for (let i = 0; i < 7; i++) {
    feed.addMetadata({
      id: `CVE-2026-000${i}`, summary: `s${i}`, details: 'd',
      references: [{ type: 'ADVISORY', url: `https://example.com/${i}` }],
      severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N' }, { type: 'UBUNTU', score: 'medium' }],
    });
  }
}

/** v1's answer, or a failure naming the route. */
async function v1Get(v1: Client, path: string, query?: Record<string, string>): Promise<any> {
  const reply = await v1.get(path, query);
  if (reply.status !== 200) throw new Error(`v1 ${path}: ${reply.status} ${reply.text}`);
  return reply.body;
}

for (const engine of ['native', 'native-pg'] as const) {
  describe(`native mode serves the import's copies as translate mode serves v1 [${engine}]`, () => {
    let v1: ModeStack;
    let native: ModeStack;
    let grpcV1: GrpcClient;
    let grpcNative: GrpcClient;
    const repos = { translate: '', native: '' };
    const ADVISORIES = '/vulnerabilities/v2beta1/advisories';
    const PACKAGES = ['openssl', 'libssl3', 'libcrypto3', 'curl'];

    beforeAll(async () => {
      [v1, native] = await Promise.all([startMode('translate'), startMode(engine)]);
      grpcV1 = new GrpcClient(v1.url);
      grpcNative = new GrpcClient(native.url);
      seedFeed(v1);
      for (const stack of [v1, native]) {
        const org = (await stack.client.post('/iam/v2beta1/groups', { name: 'copies-org' })).body.uid;
        const repo = await stack.fixtures.repo(org, { name: 'app' });
        await stack.fixtures.tag(repo, { name: 'latest', digest: DIGEST });
        repos[stack === v1 ? 'translate' : 'native'] = repo;
        for (const artifactName of PACKAGES) {
          await stack.fixtures.advisory(org, { author: 'a', artifactType: 'apk', artifactName, artifactArchitecture: 'x86_64', aliases: [`CVE-2026-${artifactName}`] });
        }
      }
      // v1's own index: openssl's subpackages (curl and openssl itself are their own origins).
      v1.emulator!.registerSubpackages('openssl', ['libssl3', 'libcrypto3']);

      // As the import copies them: every row of each feed route (following v1's own pages), then the image.
      const source = new Client(v1.emulatorUrl!);
      source.checkContract = false;
      const now = new Date().toISOString();
      for (const copied of FEED_FROM_V1) {
        let token = '';
        do {
          const query: Record<string, string> = copied.paging ? { [copied.paging.pageSize]: '3', ...(token ? { [copied.paging.pageToken]: token } : {}) } : {};
          const answer = await v1Get(source, copied.v1Path, query);
          for (const row of answer.items) await native.store!.resources.insert(copied.row(row, now));
          token = copied.paging ? answer.nextPageToken ?? '' : '';
        } while (token);
      }
      for (const origin of PACKAGES) {
        const answer = await v1Get(source, ORIGIN_FROM_V1.v1Path, { [ORIGIN_FROM_V1.param]: origin });
        for (const row of originRows(origin, answer.items, now)) await native.store!.resources.insert(row);
      }
      const manifest = await manifestFromV1((path, query) => v1Get(source, path, query), repos.translate, DIGEST);
      await native.store!.resources.insert(manifestRow(repos.native, DIGEST, manifest, now));
    });
    afterAll(async () => {
      grpcV1?.close();
      grpcNative?.close();
      await Promise.all([v1?.close(), native?.close()]);
    });

    /**
     * An answer as both modes must agree on it: a page token is each mode's own (sealed, bound to the mode's walk), so
     * only whether there is one; v1 lists documents in no stated order, so they compare by id.
     */
    const comparable = (body: any) => ({
      ...body,
      ...(body.documents ? { documents: [...body.documents].sort((a: any, b: any) => a.id.localeCompare(b.id)) } : {}),
      ...('nextPageToken' in body ? { nextPageToken: body.nextPageToken !== '' } : {}),
    });

    /** The same REST question to both gateways: both answer it, alike. */
    async function sameOverRest(path: string, query: Record<string, unknown> = {}): Promise<any> {
      const [fromV1, fromStore] = await Promise.all([v1.client.get(path, query as never), native.client.get(path, query as never)]);
      expect(fromStore.status).toBe(fromV1.status);
      expect(comparable(fromStore.body)).toEqual(comparable(fromV1.body));
      return fromStore.body;
    }

    async function sameOverGrpc(service: string, method: string, request: object): Promise<any> {
      const [fromV1, fromStore] = await Promise.all([grpcV1.call(service, method, request), grpcNative.call(service, method, request)]);
      expect(comparable(fromStore)).toEqual(comparable(fromV1));
      return fromStore;
    }

    it('ListDocuments: every document, one by id, those that mention a CVE by id or alias', async () => {
      const all = await sameOverRest('/advisory/v2beta1/documents');
      expect(all.documents.map((d: any) => d.id).sort()).toEqual(['curl', 'openssl']);
      const [openssl] = (await sameOverRest('/advisory/v2beta1/documents', { id: 'openssl' })).documents;
      expect(openssl.advisories[0].events[0]).toEqual({
        timestamp: '2026-01-02T03:04:05.123Z', falsePositiveDetermination: { type: 'TYPE_VULNERABLE_CODE_NOT_IN_EXECUTION_PATH', note: 'n' },
      });
      expect((await sameOverRest('/advisory/v2beta1/documents', { cves: 'GHSA-aaaa-bbbb-cccc' })).documents.map((d: any) => d.id)).toEqual(['openssl']);
      expect((await sameOverRest('/advisory/v2beta1/documents', { cves: ['CVE-2026-0002', 'CVE-2026-0001'] })).documents).toHaveLength(2);
      expect((await sameOverRest('/advisory/v2beta1/documents', { id: 'zlib' })).documents).toEqual([]);
      const byCve = await sameOverGrpc(FEED, 'ListDocuments', { cves: ['CVE-2026-0002'] });
      expect(byCve.documents.map((d: any) => d.id)).toEqual(['curl']);
    });

    it('ListVulnerabilityMetadata: pages, counts, skips, orders and selects as v1 does', async () => {
      const first = await sameOverRest('/advisory/v2beta1/metadata', { page_size: 2, skip: 1 });
      expect(first.vulnerabilityMetadata.map((m: any) => m.id)).toEqual(['CVE-2026-0001', 'CVE-2026-0002']);
      expect(first).toMatchObject({ totalCount: '7', skipped: 1 });
      expect(first.vulnerabilityMetadata[0].severities).toEqual([{ type: 'TYPE_CVSS_V3', score: 'CVSS:3.1/AV:N' }, { type: 'TYPE_UNSPECIFIED', score: 'medium' }]);
      // Each mode walks on with its own token; a skip on the next page skips on from where the page ended, and
      // what was skipped adds up across the pages.
      const next = async (stack: ModeStack) => {
        const page = await stack.client.get('/advisory/v2beta1/metadata', { page_size: 2, skip: 1 });
        return (await stack.client.get('/advisory/v2beta1/metadata', { page_size: 2, skip: 1, page_token: page.body.nextPageToken })).body;
      };
      const [secondV1, second] = await Promise.all([next(v1), next(native)]);
      expect(second.vulnerabilityMetadata.map((m: any) => m.id)).toEqual(['CVE-2026-0004', 'CVE-2026-0005']);
      expect(comparable(second)).toEqual(comparable(secondV1));
      expect(second.skipped).toBe(2);
      // A token is the gateway's own: one the translate gateway sealed (around v1's) means nothing to native mode.
      const v1Token = (await v1.client.get('/advisory/v2beta1/metadata', { page_size: 2 })).body.nextPageToken;
      const foreign = await native.client.get('/advisory/v2beta1/metadata', { page_size: 2, page_token: v1Token });
      expect(foreign.status).toBe(400);
      expect(aip(foreign).byType.BadRequest.fieldViolations[0].field).toBe('page_token');

      const desc = await sameOverGrpc(FEED, 'ListVulnerabilityMetadata', { orderBy: 'id desc', pageSize: 3 });
      expect(desc.vulnerabilityMetadata.map((m: any) => m.id)).toEqual(['CVE-2026-0006', 'CVE-2026-0005', 'CVE-2026-0004']);
      const picked = await sameOverRest('/advisory/v2beta1/metadata', { ids: ['CVE-2026-0003', 'CVE-2026-0000', 'CVE-2099-0000'] });
      expect(picked.vulnerabilityMetadata.map((m: any) => m.id)).toEqual(['CVE-2026-0000', 'CVE-2026-0003']);
      expect((await sameOverRest('/advisory/v2beta1/metadata', { id: 'CVE-2026-0006' })).vulnerabilityMetadata).toHaveLength(1);
    });

    it('ListVulnerabilityMetadata refuses an order it cannot give, naming order_by', async () => {
      const refused = await native.client.get('/advisory/v2beta1/metadata', { order_by: 'summary' });
      expect(refused.status).toBe(400);
      expect(aip(refused).byType.BadRequest.fieldViolations[0].field).toBe('order_by');
      expect((await v1.client.get('/advisory/v2beta1/metadata', { order_by: 'summary' })).status).toBe(400);
    });

    it('the advisories origin filter selects an origin\'s advisories and its subpackages, in place of artifact_names', async () => {
      const artifacts = async (stack: ModeStack, query: Record<string, unknown>) => {
        const reply = await stack.client.get(ADVISORIES, query as never);
        expect(reply.status).toBe(200);
        return reply.body.advisories.map((a: any) => a.artifactName).sort();
      };
      for (const [query, expected] of [
        [{ origin: 'openssl' }, ['libcrypto3', 'libssl3', 'openssl']],
        [{ origin: 'curl' }, ['curl']],
        // A subpackage is no origin; a package no advisory names has none.
        [{ origin: 'libssl3' }, []],
        [{ origin: 'zlib' }, []],
        [{ origin: 'openssl', artifact_names: 'curl' }, ['libcrypto3', 'libssl3', 'openssl']],
      ] as const) {
        const [fromV1, fromStore] = await Promise.all([artifacts(v1, query), artifacts(native, query)]);
        expect(fromV1).toEqual(expected);
        expect(fromStore).toEqual(expected);
      }
      const overGrpc = await grpcNative.call('chainguard.platform.vulnerabilities.v2beta1.AdvisoriesService', 'ListAdvisories', { origin: 'openssl', orderBy: 'uid desc', pageSize: 2 });
      expect(overGrpc.advisories).toHaveLength(2);
      expect(overGrpc.totalCount).toBe('3');
    });

    it('GetArchitectures and GetSize answer what v1 said of the image', async () => {
      const ask = (mode: 'translate' | 'native', what: string, query?: Record<string, string>) =>
        (mode === 'translate' ? v1 : native).client.get(`/registry/v2beta1/repos/${repos[mode]}/digests/${DIGEST}/${what}`, query);
      for (const [what, query] of [['architectures'], ['size'], ['size', { architecture: 'arm64' }]] as const) {
        const [fromV1, fromStore] = await Promise.all([ask('translate', what, query), ask('native', what, query)]);
        expect(fromV1.status).toBe(200);
        expect(fromStore.body).toEqual(fromV1.body);
      }
      expect((await ask('native', 'architectures')).body).toEqual({ architectures: ['amd64', 'arm64'] });
      const [sizeV1, sizeNative] = await Promise.all([
        grpcV1.call(IMAGES, 'GetSize', { repoUid: repos.translate, digest: DIGEST, architecture: 'arm64' }),
        grpcNative.call(IMAGES, 'GetSize', { repoUid: repos.native, digest: DIGEST, architecture: 'arm64' }),
      ]);
      expect(sizeNative).toEqual(sizeV1);
      expect(sizeNative.size).toMatch(/^[1-9]\d*$/);
    });

    it('an architecture the image lacks, an image never copied and a repo not there are NOT_FOUND', async () => {
      const base = `/registry/v2beta1/repos/${repos.native}/digests`;
      expect((await native.client.get(`${base}/${DIGEST}/size`, { architecture: 's390x' })).status).toBe(404);
      expect((await native.client.get(`${base}/sha256:${'0'.repeat(64)}/architectures`)).status).toBe(404);
      const missingRepo = await rejected(grpcNative.call(IMAGES, 'GetArchitectures', { repoUid: `${repos.native.split('/')[0]}/0123456789abcdef`, digest: DIGEST }));
      expect(missingRepo.code).toBe(5);
      expect((await native.client.get(`/registry/v2beta1/repos/not-a-uidp/digests/${DIGEST}/architectures`)).status).toBe(404);
    });

    it('the image\'s row goes with its repo', async () => {
      const tags = (await native.client.get('/registry/v2beta1/tags', { 'uidp.children_of': repos.native })).body.tags;
      expect(tags).toHaveLength(1);
      for (const tag of tags) expect((await native.client.delete(`/registry/v2beta1/tags/${tag.uid}`)).status).toBe(200);
      expect(await native.store!.resources.get(IMAGE_MANIFESTS_KIND, `${repos.native}@${DIGEST}`)).toBeDefined();
      expect((await native.client.delete(`/registry/v2beta1/repos/${repos.native}`)).status).toBe(200);
      expect(await native.store!.resources.get(IMAGE_MANIFESTS_KIND, `${repos.native}@${DIGEST}`)).toBeUndefined();
    });
  });
}
