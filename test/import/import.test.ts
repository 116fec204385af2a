/**
 * `npm run import`: v1's data into the native store, over real HTTP from the
 * emulator, into SQLite and PostgreSQL; then native mode must serve what
 * translate mode serves over the same v1 (`--verify`, which reads both through
 * the gateway itself).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COPIES_FROM_V1, MAPPINGS } from '../../mappings/index.ts';
import { loadConfig } from '../../src/config.ts';
import { buildGateway } from '../../src/server.ts';
import { startEmulator, type RunningEmulator } from '../../src/emulator/v1/index.ts';
import { MappingRegistry } from '../../src/port/registry.ts';
import { runImport, type ResourceSummary } from '../../src/import/run-import.ts';
import { verified, verifyImport, type ResourceDifferences } from '../../src/import/verify-import.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { PG_URL, withPg } from '../support/modes.ts';

const CLI = new URL('../../src/import/cli.ts', import.meta.url).pathname;
const registry = new MappingRegistry(MAPPINGS);
const AUTH = 'Bearer import-test';

/** Every difference verification found, as `resource.field` or `resource: only in …`; those the mappings declare expected are not among them. */
function unexpected(results: readonly ResourceDifferences[]): string[] {
  return results.flatMap((r) => [
    ...r.onlyInV1.map((uid) => `${r.resource}: only in v1 ${uid}`),
    ...r.onlyInStore.map((uid) => `${r.resource}: only in the store ${uid}`),
    ...r.different.flatMap((d) => d.fields.map((f) => `${r.resource}.${f}`)),
  ]);
}

function byResource(summaries: readonly ResourceSummary[]): Record<string, ResourceSummary> {
  return Object.fromEntries(summaries.map((s) => [s.resource, s]));
}

type Engine = 'sqlite' | 'postgres';

async function openEngine(engine: Engine): Promise<{ store: Store; location: string; drop: () => Promise<void> }> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'v2gw-import-'));
    return { store: await openStore(dir), location: dir, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `v2gw_import_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withPg(async () => {});
  return {
    store: await openStore(PG_URL, { schema, poolSize: 4 }),
    location: PG_URL,
    drop: async () => { await withPg((client) => client.query(`drop schema if exists ${schema} cascade`)); },
  };
}

describe.each<Engine>(['sqlite', 'postgres'])('import into %s', (engine) => {
  let emulator: RunningEmulator;
  let opened: Awaited<ReturnType<typeof openEngine>>;

  beforeAll(async () => {
    emulator = await startEmulator({ seed: 'demo' });
    opened = await openEngine(engine);
  });
  afterAll(async () => {
    await opened.store.close();
    await opened.drop();
    await emulator.close();
  });

  const run = () => runImport({ source: { url: emulator.url, authorization: AUTH, timeoutMs: 10_000 }, store: opened.store, registry, copies: COPIES_FROM_V1, roots: [] });

  it('copies the demo organisation, and native mode then serves what translate mode serves', async () => {
    const first = byResource(await run());
    expect(first.groups).toMatchObject({ read: 3, written: 3, unchanged: 0, refused: 0 });
    expect(first.roleBindings).toMatchObject({ read: 3, written: 3, refused: 0 });
    expect(first.advisories!.written).toBe(4);
    expect(first.identityProviders!.notCarried).toEqual(['oidc.clientSecret']);
    // Overlays are not v1's: nothing is read for them.
    expect(first.overlays).toBeUndefined();

    const results = await verifyImport({ v1Url: emulator.url, authorization: AUTH, store: opened.store, registry, roots: [] });
    expect(unexpected(results)).toEqual([]);
    const groups = results.find((r) => r.resource === 'groups')!;
    expect(groups).toMatchObject({ v1: 3, store: 3 });
    // Every row: the tags v2's default filters hide (a referrer, a dated and an epoch tag) too.
    expect(results.find((r) => r.resource === 'tags')).toMatchObject({ v1: 5, store: 5 });
    // Singletons: each repo's readme, read through both modes.
    const repos = results.find((r) => r.resource === 'repos')!;
    expect(repos.v1).toBeGreaterThan(0);
    expect(results.find((r) => r.resource === 'repoReadmes')).toMatchObject({ v1: repos.v1, store: repos.v1, onlyInV1: [], different: [] });
    // A repo's update time, which v1 lacks, is carried as translate mode shows it: no difference.
    expect(repos).toMatchObject({ different: [], expected: [] });
    // What differs by design is named, with its reason, and is no failure.
    expect(results.find((r) => r.resource === 'identityProviders')!.expected).toEqual([{ field: 'scim.endpointUrl', reason: expect.stringContaining('SCIM'), count: 1 }]);
    expect(verified(results)).toBe(true);
  });

  it('verifies the readmes it copied: a store without them is not verified', async () => {
    const other = await openEngine('sqlite');
    try {
      // An import that forgot the readmes: every other resource copied.
      await runImport({ source: { url: emulator.url, authorization: AUTH, timeoutMs: 10_000 }, store: other.store, registry: new MappingRegistry(MAPPINGS.filter((m) => m.name !== 'repoReadmes')), copies: COPIES_FROM_V1, roots: [] });
      const results = await verifyImport({ v1Url: emulator.url, authorization: AUTH, store: other.store, registry, roots: [] });
      // Native mode serves a readme never written as an empty one: the content is what is missing.
      expect(results.find((r) => r.resource === 'repoReadmes')!.different.map((d) => d.fields)).toContainEqual(['content']);
      expect(verified(results)).toBe(false);
    } finally {
      await other.store.close();
      await other.drop();
    }
  });

  it("copies what native mode serves only from v1's data: the feed, image manifests and subpackages, answered as translate mode answers", async () => {
    const feed = emulator.state.advisoryFeed;
    feed.addDocument({ id: 'openssl', advisories: [{ id: 'CGA-aaaa-bbbb-cccc', aliases: ['CVE-2026-0001'], packageNamespace: 'wolfi', events: [] }] } as never);
    // More vulnerabilities than one v1 page of the import's reads holds.
    for (let i = 0; i < 230; i++) feed.addMetadata({ id: `CVE-2026-${String(i).padStart(4, '0')}`, summary: `s${i}`, details: 'd' } as never);
    const copied = byResource(await run());
    expect(copied.vulnerabilityMetadata!.read).toBe(230);
    for (const kind of ['advisoryDocuments', 'vulnerabilityMetadata', 'imageManifests', 'packageOrigins']) {
      expect(copied[kind]!.read + copied[kind]!.unchanged, kind).toBeGreaterThan(0);
    }
    const base = loadConfig(['--log-level', 'silent'], {});
    const translate = await buildGateway({ ...base, mode: 'translate', v1Url: emulator.url }, { store: opened.store, env: {} });
    const native = await buildGateway({ ...base, mode: 'native' }, { store: opened.store, env: {} });
    try {
      const both = async (url: string) => {
        const [a, b] = await Promise.all([translate, native].map((app) => app.inject({ url, headers: { authorization: AUTH } })));
        expect(b!.statusCode, url).toBe(200);
        // Page tokens are sealed by each gateway for its own walk: alike in presence only.
        const { nextPageToken: tokenA, ...fromV1 } = a!.json();
        const { nextPageToken: tokenB, ...fromStore } = b!.json();
        expect(fromStore, url).toEqual(fromV1);
        expect(Boolean(tokenB), url).toBe(Boolean(tokenA));
      };
      await both('/advisory/v2beta1/documents');
      await both('/advisory/v2beta1/metadata?page_size=2');
      const tag = (await opened.store.resources.list({ kind: 'tags', filters: [], order: [{ field: 'uid', desc: false }], skip: 0, limit: 1 })).rows[0]!;
      await both(`/registry/v2beta1/repos/${tag.parent}/digests/${tag.body.digest}/architectures`);
    } finally {
      await translate.close();
      await native.close();
    }
  });

  it('changes nothing when run again, and carries a change made in v1 since', async () => {
    await run();
    const again = await run();
    for (const summary of again) expect({ [summary.resource]: summary.written }).toEqual({ [summary.resource]: 0 });
    const team = emulator.demo!.groups.platform;
    emulator.state.updateGroup(team, { name: 'platform', description: 'renamed in v1' });
    const third = byResource(await run());
    expect(third.groups).toMatchObject({ written: 1, unchanged: 2 });
    const stored = await opened.store.resources.get('groups', team);
    expect(stored!.body.description).toBe('renamed in v1');
  });

  it('counts what v1 deleted since, and deletes it from the store only when told to', async () => {
    await run();
    const invite = emulator.demo!.groupInvites.editor;
    emulator.state.deleteGroupInvite(invite);
    const counted = byResource(await run());
    expect(counted.groupInvites).toMatchObject({ stale: 1, pruned: 0 });
    expect(await opened.store.resources.get('groupInvites', invite)).toBeDefined();
    // The built-in roles native mode seeds are its own, never v1's to prune.
    expect(counted.roles!.stale).toBe(0);
    const pruned = byResource(await runImport({ source: { url: emulator.url, authorization: AUTH, timeoutMs: 10_000 }, store: opened.store, registry, roots: [], prune: true }));
    expect(pruned.groupInvites).toMatchObject({ stale: 1, pruned: 1 });
    expect(await opened.store.resources.get('groupInvites', invite)).toBeUndefined();
  });
});

describe('a 10,000-group v1', () => {
  let emulator: RunningEmulator;
  let dir: string;
  let tokenFile: string;

  beforeAll(async () => {
    emulator = await startEmulator({ seed: 'large', groups: 10_000 });
    dir = mkdtempSync(join(tmpdir(), 'v2gw-import-large-'));
    tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'import-test\n');
  });
  afterAll(async () => {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is killed halfway, run again, finishes without duplicates, and a third run changes nothing', { timeout: 120_000 }, async () => {
    const data = join(dir, 'data');
    const args = ['--v1-url', emulator.url, '--token-file', tokenFile, '--data-dir', data, '--batch', '200'];

    // Killed (SIGKILL: no chance to tidy up) once some batches have committed.
    const killed = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = once(killed, 'exit');
    const probe = await openStore(data);
    try {
      for (let tries = 0; ; tries++) {
        const { total } = await probe.resources.list({ kind: 'groups', filters: [], order: [{ field: 'uid', desc: false }], skip: 0, limit: 1 });
        if (total > 0) break;
        if (tries > 2000) throw new Error('the import wrote no group');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      killed.kill('SIGKILL');
      await exited;
      const { total: partial } = await probe.resources.list({ kind: 'groups', filters: [], order: [{ field: 'uid', desc: false }], skip: 0, limit: 1 });
      expect(partial).toBeGreaterThan(0);
      expect(partial).toBeLessThan(10_000);
    } finally {
      await probe.close();
    }

    const resumed = await runCli(args);
    expect(resumed.code).toBe(0);
    const groupsLine = resumed.out.split('\n').find((line) => line.startsWith('groups '))!;
    const [read, written, unchanged] = groupsLine.trim().split(/\s+/).slice(1).map((n) => Number(n.replace(/,/g, '')));
    expect(read).toBe(10_000);
    expect(written! + unchanged!).toBe(10_000);
    expect(unchanged).toBeGreaterThan(0);

    const check = await openStore(data);
    try {
      const { total } = await check.resources.list({ kind: 'groups', filters: [], order: [{ field: 'uid', desc: false }], skip: 0, limit: 1 });
      expect(total).toBe(10_000);
      const bindings = await check.resources.list({ kind: 'roleBindings', filters: [], order: [{ field: 'uid', desc: false }], skip: 0, limit: 1 });
      expect(bindings.total).toBe(999);
    } finally {
      await check.close();
    }

    const third = await runCli([...args, '--verify']);
    expect(third.code, third.out).toBe(0);
    expect(third.out).toMatch(/^groups\s+10,000\s+0\s+10,000\s+0$/m);
    expect(third.out).toMatch(/^groups\s+10,000\s+10,000\s+0\s+0\s+0$/m);
  });

  it('into PostgreSQL too, and native mode serves every group, identity and binding as translate mode does', { timeout: 120_000 }, async () => {
    const opened = await openEngine('postgres');
    try {
      const summaries = byResource(await runImport({ source: { url: emulator.url, authorization: AUTH, timeoutMs: 30_000 }, store: opened.store, registry, roots: [] }));
      expect(summaries.groups).toMatchObject({ read: 10_000, written: 10_000, refused: 0 });
      expect(summaries.roleBindings).toMatchObject({ read: 999, written: 999 });
      const results = await verifyImport({ v1Url: emulator.url, authorization: AUTH, store: opened.store, registry, roots: [] });
      expect(unexpected(results)).toEqual([]);
      expect(results.find((r) => r.resource === 'groups')).toMatchObject({ v1: 10_000, store: 10_000 });
    } finally {
      await opened.store.close();
      await opened.drop();
    }
  });

  it('refuses a bad command line in one line, and never prints the token', async () => {
    const missing = await runCli(['--v1-url', emulator.url, '--data-dir', join(dir, 'x')]);
    expect(missing.code).toBe(2);
    expect(missing.out).toContain('import: --token-file is required');
    const refused = await runCli(['--v1-url', 'http://127.0.0.1:1', '--token-file', tokenFile, '--data-dir', join(dir, 'y')]);
    expect(refused.code).toBe(2);
    expect(refused.out).toMatch(/import: stopped: v1 \/iam\/v1\/groups: no answer: ECONNREFUSED/);
    expect(refused.out).not.toContain('import-test');
    const expectFile = join(dir, 'expected.json');
    writeFileSync(expectFile, JSON.stringify([{ method: 'chainguard.platform.iam.v2beta1.GroupsService/GetGroup', field: 'description' }]));
    const unreasoned = await runCli(['--v1-url', emulator.url, '--token-file', tokenFile, '--data-dir', join(dir, 'z'), '--verify', '--compare-expect', expectFile]);
    expect(unreasoned.code).toBe(2);
    expect(unreasoned.out).toContain('entry 0 needs a non-empty "reason"');
  });
});

async function runCli(args: readonly string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (out += chunk));
  const [code] = await once(child, 'exit');
  return { code: code as number | null, out };
}
