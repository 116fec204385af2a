/**
 * Replicas that share a PostgreSQL store add up: each counts its own
 * comparisons, and the report any of them serves is the sum, kept in the
 * store the replicas were given (its schema), not beside it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/v1/index.ts';
import { Client, startGateway } from '../support/stack.ts';
import { PG_URL, withPg } from '../support/modes.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { methodOf, reportOf } from './report-client.ts';

const GET_GROUP = 'chainguard.platform.iam.v2beta1.GroupsService/GetGroup';
type Gateway = Awaited<ReturnType<typeof startGateway>>;
let emulator: RunningEmulator;
let candidate: Gateway;
let replicas: Gateway[];
// Each replica opens its own pool on one schema of this file's own, as two processes would.
const schema = `v2gw_shared_${process.pid}_${randomBytes(4).toString('hex')}`;
const stores: Store[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  candidate = await startGateway(emulator.url, ['--log-level', 'silent']);
  const flags = ['--log-level', 'silent', '--store', PG_URL, '--page-token-key', 'shared-page-token-key', '--compare-with', candidate.url];
  for (let i = 0; i < 2; i++) stores.push(await openStore(PG_URL, { schema, poolSize: 4 }));
  replicas = [];
  for (const store of stores) replicas.push(await startGateway(emulator.url, flags, { store }));
}, 30_000);

afterAll(async () => {
  for (const replica of replicas ?? []) await replica.gateway.close();
  await candidate?.gateway.close();
  await emulator?.close();
  for (const store of stores) await store.close();
  await withPg((client) => client.query(`drop schema if exists ${schema} cascade`));
});

const comparedAt = async (url: string) => methodOf(await reportOf(url), GET_GROUP)?.compared ?? 0;

it('reports the comparisons of every replica, from any of them', async () => {
  const org = emulator.state.createGroup(null, { name: 'shared-org' }).id;
  const before = await comparedAt(replicas[0]!.url);
  for (const [replica, calls] of [[replicas[0]!, 2], [replicas[1]!, 3]] as const) {
    for (let i = 0; i < calls; i++) expect((await new Client(replica.url).get(`/iam/v2beta1/groups/${org}`)).status).toBe(200);
  }
  let seen = before;
  for (let i = 0; i < 200 && seen < before + 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    seen = await comparedAt(replicas[0]!.url);
  }
  expect(seen - before).toBe(5);
  expect(await comparedAt(replicas[1]!.url)).toBe(seen);
  const kept = await withPg((client) => client.query<{ value: string }>(`select value from ${schema}.v2gw_compare_counters where run = '' and method = $1 and key = 'compared'`, [GET_GROUP]));
  expect(Number(kept.rows[0]?.value)).toBe(seen);
});
