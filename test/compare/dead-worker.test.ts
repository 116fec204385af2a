/**
 * A gateway whose comparison worker dies keeps serving: its callers get their answers, the comparison
 * it had counts under errors and later ones under dropped, and the log says so once, without the
 * caller's token. The worker here is test/compare/dying-worker.ts, put in place of the gateway's.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/v1/index.ts';
import { captureLogs, Client, startGateway, TOKEN } from '../support/stack.ts';
import { methodOf, reportOf } from './report-client.ts';

vi.mock('node:worker_threads', async (real: () => Promise<typeof import('node:worker_threads')>) => {
  const threads = await real();
  class DyingWorker extends threads.Worker {
    constructor(_entry: URL, options: ConstructorParameters<typeof threads.Worker>[1]) {
      super(new URL('./dying-worker.ts', import.meta.url), options);
    }
  }
  return { ...threads, Worker: DyingWorker };
});

const GET_GROUP = 'chainguard.platform.iam.v2beta1.GroupsService/GetGroup';
let emulator: RunningEmulator;
let group: string;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  const org = emulator.state.createGroup(null, { name: 'dead-worker-org' }).id;
  group = emulator.state.createGroup(org, { name: 'served' }).id;
});

afterAll(async () => {
  await emulator?.close();
});

describe('a gateway whose comparison worker dies', () => {
  it('serves every caller, counts the lost comparison as an error and later ones as dropped, and logs it once without the token', async () => {
    const logs = captureLogs();
    // A candidate nobody listens on: the worker dies before it would ask.
    const primary = await startGateway(emulator.url, ['--log-level', 'warn', '--compare-with', 'http://127.0.0.1:1'], { logStream: logs.stream });
    try {
      const client = new Client(primary.url);
      expect((await client.get(`/iam/v2beta1/groups/${group}`)).status).toBe(200);
      let m: any;
      for (let i = 0; i < 200 && !(m = methodOf(await reportOf(primary.url), GET_GROUP))?.errors; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(m).toMatchObject({ errors: 1, dropped: 0, compared: 0 });
      for (let i = 0; i < 3; i++) expect((await client.get(`/iam/v2beta1/groups/${group}`)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(methodOf(await reportOf(primary.url), GET_GROUP)).toMatchObject({ errors: 1, dropped: 3, compared: 0 });
      const stopped = logs.lines.filter((line) => line.includes('worker thread stopped'));
      expect(stopped).toHaveLength(1);
      expect(logs.lines.join('\n')).not.toContain(TOKEN.slice('Bearer '.length));
    } finally {
      await primary.gateway.close();
    }
  });
});
