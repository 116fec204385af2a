/**
 * A gateway whose comparison worker stops keeps serving and starts another: its callers get their
 * answers, the comparison the worker had counts under errors and those offered before the next one runs
 * under dropped, both shown as the stop's in the report (a method whose chosen calls were all lost so is
 * undecided, not "not compared"), the restart is counted in /metrics, comparisons resume, and the log
 * says each stop and each return without the caller's token. The worker here is a test's own (the
 * gateway's, exiting on its second batch; or one that fails as it loads), put in place of the gateway's.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/v1/index.ts';
import { captureLogs, Client, startGateway, TOKEN } from '../support/stack.ts';
import { methodOf, reportOf } from './report-client.ts';

/** The worker entry the gateway's comparison starts, in place of its own. */
const workers = vi.hoisted(() => ({ entry: './exiting-worker.ts' }));

vi.mock('node:worker_threads', async (real: () => Promise<typeof import('node:worker_threads')>) => {
  const threads = await real();
  class TestWorker extends threads.Worker {
    constructor(_entry: URL, options: ConstructorParameters<typeof threads.Worker>[1]) {
      super(new URL(workers.entry, import.meta.url), options);
    }
  }
  return { ...threads, Worker: TestWorker };
});

const GET_GROUP = 'chainguard.platform.iam.v2beta1.GroupsService/GetGroup';
const LIST_GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService/ListGroups';
type Gateway = Awaited<ReturnType<typeof startGateway>>;
let emulator: RunningEmulator;
let candidate: Gateway;
let org: string;
let group: string;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  org = emulator.state.createGroup(null, { name: 'dead-worker-org' }).id;
  group = emulator.state.createGroup(org, { name: 'served' }).id;
  // The candidate compares nothing itself: it starts no worker.
  candidate = await startGateway(emulator.url, ['--log-level', 'silent']);
});

afterAll(async () => {
  await candidate?.gateway.close();
  await emulator?.close();
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 8000): Promise<T> {
  for (const end = Date.now() + ms; ; await new Promise((resolve) => setTimeout(resolve, 10))) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
  }
}

/** One sample of the gateway's /metrics, by its name and labels as exposed (`name{labels}`, or the bare name). */
async function metric(url: string, series: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const RESTARTS_AFTER_RUNNING = 'v2gw_compare_worker_restarts_total{after="running"}';
const RESTARTS_AFTER_STARTING = 'v2gw_compare_worker_restarts_total{after="starting"}';

describe('a gateway whose comparison worker stops', () => {
  it('serves every caller, counts what the stop took as errors and dropped and as the stop\'s, starts another, and compares again', async () => {
    workers.entry = './exiting-worker.ts';
    const logs = captureLogs();
    const primary = await startGateway(emulator.url, ['--log-level', 'info', '--compare-with', candidate.url, '--compare-retry-ms', '0'], { logStream: logs.stream });
    try {
      const client = new Client(primary.url);
      const get = async () => expect((await client.get(`/iam/v2beta1/groups/${group}`)).status).toBe(200);
      await get();
      await until(() => reportOf(primary.url), (r) => methodOf(r, GET_GROUP)?.compared === 1, 'the first comparison');
      expect(await metric(primary.url, 'v2gw_compare_worker_up')).toBe(1);
      expect(await metric(primary.url, RESTARTS_AFTER_RUNNING)).toBe(0);

      // The worker's second batch: it exits holding it.
      await get();
      let m = methodOf(await until(() => reportOf(primary.url), (r) => methodOf(r, GET_GROUP)?.errors === 1, 'the lost comparison'), GET_GROUP);
      expect(m).toMatchObject({ compared: 1, errors: 1, dropped: 0, workerStop: { errors: 1, dropped: 0 } });
      expect(await metric(primary.url, 'v2gw_compare_worker_up')).toBe(0);

      // Within the first second's back-off no worker runs: these are dropped at once, their callers served.
      for (let i = 0; i < 3; i++) await get();
      expect((await client.get('/iam/v2beta1/groups', { 'uidp.children_of': org })).status).toBe(200);
      const report = await until(() => reportOf(primary.url), (r) => methodOf(r, LIST_GROUPS)?.dropped === 1, 'the list dropped');
      expect(methodOf(report, GET_GROUP)).toMatchObject({ compared: 1, errors: 1, dropped: 3, workerStop: { errors: 1, dropped: 3 } });
      // The list was chosen and lost to the stop: no evidence, and not "nothing to compare" either.
      expect(methodOf(report, LIST_GROUPS)).toMatchObject({ compared: 0, dropped: 1, workerStop: { errors: 0, dropped: 1 }, verdict: { decision: 'undecided' } });

      await until(() => metric(primary.url, 'v2gw_compare_worker_up'), (up) => up === 1, 'the worker running again');
      expect(await metric(primary.url, RESTARTS_AFTER_RUNNING)).toBe(1);
      expect(await metric(primary.url, RESTARTS_AFTER_STARTING)).toBe(0);
      await get();
      m = methodOf(await until(() => reportOf(primary.url), (r) => methodOf(r, GET_GROUP)?.compared === 2, 'a comparison after the restart'), GET_GROUP);
      expect(m).toMatchObject({ compared: 2, errors: 1, dropped: 3, workerStop: { errors: 1, dropped: 3 } });

      const stopped = logs.lines.filter((line) => line.includes('worker thread stopped'));
      expect(stopped).toHaveLength(1);
      expect(stopped[0]).toContain('"level":40');
      expect(stopped[0]).toContain('stopped while running (exited with code 3); 1 comparison(s) under way count as errors');
      expect(stopped[0]).toContain('starting it again in 1 s');
      expect(logs.lines.filter((line) => line.includes('worker thread is running again (restart 1)'))).toHaveLength(1);
      expect(logs.lines.join('\n')).not.toContain(TOKEN.slice('Bearer '.length));
    } finally {
      await primary.gateway.close();
    }
  });

  it('whose worker fails as it loads, serves every caller, drops what is offered, and keeps trying, the wait doubling', async () => {
    workers.entry = './failing-worker.ts';
    const logs = captureLogs();
    const primary = await startGateway(emulator.url, ['--log-level', 'warn', '--compare-with', candidate.url], { logStream: logs.stream });
    try {
      const client = new Client(primary.url);
      expect((await client.get(`/iam/v2beta1/groups/${group}`)).status).toBe(200);
      await until(() => reportOf(primary.url), (r) => methodOf(r, GET_GROUP)?.dropped === 1, 'the comparison dropped');
      expect(methodOf(await reportOf(primary.url), GET_GROUP)).toMatchObject({ compared: 0, errors: 0, workerStop: { errors: 0, dropped: 1 }, verdict: { decision: 'undecided' } });
      // The first start again is due 1 s after the first failure, the next 2 s after that one's.
      await until(() => metric(primary.url, RESTARTS_AFTER_STARTING), (n) => n === 1, 'a start again');
      await until(async () => logs.lines.filter((line) => line.includes('worker thread stopped')), (lines) => lines.length === 2, 'the second failure');
      const stopped = logs.lines.filter((line) => line.includes('worker thread stopped'));
      expect(stopped[0]).toContain('stopped while starting (Error); 0 comparison(s) under way');
      expect(stopped[0]).toContain('starting it again in 1 s');
      expect(stopped[1]).toContain('starting it again in 2 s');
      expect(await metric(primary.url, 'v2gw_compare_worker_up')).toBe(0);
      expect(logs.lines.join('\n')).not.toContain('start-secret-token-77');
    } finally {
      await primary.gateway.close();
    }
  });
});
