/**
 * docs/compare.md's way to compare translate mode against native mode on the
 * same data, run as written: the flags of each documented command, in the
 * documented order (the import, the native candidate, the translating
 * primary in a run of its own), over the v1 emulator's demo organisation and
 * one PostgreSQL store (a schema of its own). What a clean migration shows
 * then is no failing method: the differences by design are counted as
 * expected, with their reasons; and counts made in an earlier run, against
 * the store before the import, are not in this run's report.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/v1/index.ts';
import { loadConfig } from '../../src/config.ts';
import { buildGateway } from '../../src/server.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { MappingRegistry } from '../../src/port/registry.ts';
import { runImport } from '../../src/import/run-import.ts';
import { verified, verifyImport } from '../../src/import/verify-import.ts';
import { COPIES_FROM_V1, MAPPINGS } from '../../mappings/index.ts';
import { PG_URL, withPg } from '../support/modes.ts';
import { Client } from '../support/stack.ts';
import { reportOf } from './report-client.ts';

const DOC = readFileSync(new URL('../../docs/compare.md', import.meta.url), 'utf8');
const AUTH = 'Bearer translate-vs-native';
const GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService';

/** The documented commands, comments and variable assignments left out. */
function documented(): string[] {
  const start = DOC.indexOf('<!-- test: translate against native -->');
  expect(start, 'docs/compare.md has lost its translate-against-native commands').toBeGreaterThan(0);
  const block = /```sh\n([\s\S]*?)\n```/.exec(DOC.slice(start))![1]!;
  return block.split('\n').filter((line) => line.trim() && !line.startsWith('#') && !/^[A-Z0-9_]+=/.test(line));
}

/** A command's arguments after `--`, with the shell's quotes and the document's variables and ports replaced. */
function argsOf(line: string, values: Record<string, string>): string[] {
  const args = line.slice(line.indexOf(' -- ') + 4).split(/\s+/).map((arg) => arg.replace(/^"|"$/g, ''));
  return args.map((arg) => values[arg] ?? arg);
}

let emulator: RunningEmulator;
let store: Store;
let schema: string;
const gateways: FastifyInstance[] = [];

async function start(args: readonly string[]): Promise<string> {
  const config = loadConfig(['--log-level', 'silent', ...args], {});
  const app = await buildGateway({ ...config, port: 0 }, { store, env: {} });
  gateways.push(app);
  return app.listen({ port: 0, host: '127.0.0.1' });
}

beforeAll(async () => {
  emulator = await startEmulator({ seed: 'demo', port: 0 });
  schema = `v2gw_tvn_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withPg(async () => {});
  store = await openStore(PG_URL, { schema, poolSize: 4 });
}, 30_000);

afterAll(async () => {
  for (const app of gateways) await app.close();
  await store?.close();
  await withPg((client) => client.query(`drop schema if exists ${schema} cascade`));
  await emulator?.close();
});

it('shows no failing method once the store holds v1\'s data, and counts made before in another run are not in it', { timeout: 60_000 }, async () => {
  const [importLine, nativeLine, translateLine] = documented();
  expect(importLine).toMatch(/^npm run import -- /);
  expect(nativeLine).toMatch(/^npm start -- --mode native /);
  expect(translateLine).toMatch(/^npm start -- .*--compare-with .*--compare-run /);
  const run = `cut-over-${randomBytes(4).toString('hex')}`;
  const values: Record<string, string> = { $V1: emulator.url, $STORE: PG_URL, 'cut-over-1': run };

  // 2, out of order, as an operator might: the native gateway on the empty store, compared in a run of its own.
  const nativeUrl = await start(argsOf(nativeLine!, values));
  values['http://127.0.0.1:8081'] = nativeUrl;
  const early = await start(argsOf(translateLine!, { ...values, 'cut-over-1': `${run}-early` }));
  const org = (await new Client(early).get('/iam/v2beta1/groups', {}, { authorization: AUTH })).body.groups[0].uid as string;
  expect((await new Client(early).get(`/iam/v2beta1/groups/${org}`, {}, { authorization: AUTH })).status).toBe(200);
  await waitFor(early, `${GROUPS}/GetGroup`, 1);
  expect((await reportOf(early)).methods.find((m: any) => m.method === `${GROUPS}/GetGroup`).verdict.decision).toBe('fail');

  // 1. The import, verified.
  const importArgs = argsOf(importLine!, values);
  expect(importArgs).toEqual(expect.arrayContaining(['--verify', '--store', PG_URL]));
  const registry = new MappingRegistry(MAPPINGS);
  await runImport({ source: { url: emulator.url, authorization: AUTH, timeoutMs: 10_000 }, store, registry, copies: COPIES_FROM_V1, roots: [] });
  expect(verified(await verifyImport({ v1Url: emulator.url, authorization: AUTH, store, registry, roots: [] }))).toBe(true);

  // 3. The translating primary, in the documented run.
  const primary = await start(argsOf(translateLine!, values));
  const client = new Client(primary);
  const as = { authorization: AUTH };
  const reads = [`/iam/v2beta1/groups/${org}`, '/iam/v2beta1/groups', '/iam/v2beta1/roles', '/iam/v2beta1/roleBindings', '/iam/v2beta1/identityProviders', '/registry/v2beta1/repos'];
  const repos = (await client.get('/registry/v2beta1/repos', {}, as)).body.repos as { uid: string }[];
  expect(repos.length).toBeGreaterThan(0);
  for (const path of [...reads, ...repos.map((r) => `/registry/v2beta1/repos/${r.uid}`)]) expect((await client.get(path, {}, as)).status, path).toBe(200);
  await waitFor(primary, 'chainguard.platform.registry.v2beta1.ReposService/GetRepo', repos.length);
  await waitFor(primary, 'chainguard.platform.iam.v2beta1.IdentityProvidersService/ListIdentityProviders', 1);

  const report = await reportOf(primary);
  expect(report.run).toBe(run);
  // The early run's failure is not in this run: GetGroup counts this run's one comparison only.
  expect(report.methods.find((m: any) => m.method === `${GROUPS}/GetGroup`)).toMatchObject({ compared: 1, equal: 1 });
  expect(report.methods.filter((m: any) => m.verdict.decision === 'fail').map((m: any) => [m.method, m.fields])).toEqual([]);
  expect(report.methods.flatMap((m: any) => m.fields.filter((f: any) => f.class !== 'expected').map((f: any) => `${m.method} ${f.path}`))).toEqual([]);
  // A repo's update time, which v1 lacks, is the one kept in the shared store: the same on both sides.
  expect(report.methods.find((m: any) => m.method.endsWith('/GetRepo'))).toMatchObject({ compared: repos.length, equal: repos.length, expected: 0, fields: [] });
});

async function waitFor(url: string, method: string, count: number): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const m = (await reportOf(url)).methods.find((x: any) => x.method === method);
    if (m && m.compared + m.errors >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${method}: fewer than ${count} comparisons`);
}
