/**
 * The comparison runs on a worker thread (src/compare/off-thread.ts, worker.ts): a gateway asks its
 * candidate and reads a differing answer again while its own thread, the caller's, is blocked; the
 * thread carries its name; findings come back and are counted before a drain resolves; what is handed
 * over is bounded; a worker that dies or cannot start loses its comparisons as errors, says so once,
 * without the caller's token.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/v1/index.ts';
import type { Finding } from '../../src/compare/comparer.ts';
import { OffThreadComparisons, WORKER_NAME, type ShadowJob } from '../../src/compare/off-thread.ts';
import type { WorkerSettings } from '../../src/compare/worker-messages.ts';
import { Client, startGateway } from '../support/stack.ts';

const GET_GROUP = 'chainguard.platform.iam.v2beta1.GroupsService/GetGroup';

/**
 * A candidate on a thread of its own (so a blocked test thread does not block it): it answers every
 * call with an empty message, and counts the calls in shared memory the test thread can wait on.
 */
const CANDIDATE = `
const { parentPort, workerData } = require('node:worker_threads');
const seen = new Int32Array(workerData.seen);
require('node:http').createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    Atomics.add(seen, 0, 1);
    Atomics.notify(seen, 0);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
}).listen(0, '127.0.0.1', function () { parentPort.postMessage(this.address().port); });
`;

let emulator: RunningEmulator;
let candidate: Worker;
const seen = new Int32Array(new SharedArrayBuffer(4));
let candidateUrl: string;
let group: string;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  const org = emulator.state.createGroup(null, { name: 'off-thread-org' }).id;
  group = emulator.state.createGroup(org, { name: 'compared', description: 'the compared team' }).id;
  candidate = new Worker(CANDIDATE, { eval: true, workerData: { seen: seen.buffer } });
  candidateUrl = `http://127.0.0.1:${await new Promise<number>((resolve) => candidate.once('message', resolve))}`;
});

afterAll(async () => {
  await candidate?.terminate();
  await emulator?.close();
});

describe('a gateway comparing', () => {
  it('asks its candidate, and reads a differing answer again, while the caller\'s thread is blocked', async () => {
    const primary = await startGateway(emulator.url, ['--log-level', 'silent', '--compare-with', candidateUrl, '--compare-retry-ms', '200']);
    try {
      Atomics.store(seen, 0, 0);
      expect((await new Client(primary.url).get(`/iam/v2beta1/groups/${group}`)).status).toBe(200);
      for (let i = 0; i < 500 && Atomics.load(seen, 0) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(Atomics.load(seen, 0)).toBe(1);
      // The candidate's answer differs ({}), so the comparison reads it again 200 ms later. This thread,
      // the gateway's event loop, now blocks: only a comparison off it can make that second call.
      const woke = Atomics.wait(seen, 0, 1, 5000);
      expect(woke).not.toBe('timed-out');
      expect(Atomics.load(seen, 0)).toBe(2);
    } finally {
      await primary.gateway.close();
    }
  });

  it.skipIf(!existsSync('/proc/self/task'))('names its thread, as the OS lists it (where a benchmark finds its CPU)', async () => {
    const threads = () => readdirSync('/proc/self/task').map((tid) => readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim());
    expect(threads()).not.toContain(WORKER_NAME);
    const primary = await startGateway(emulator.url, ['--log-level', 'silent', '--compare-with', candidateUrl]);
    try {
      // The thread is named once it runs, a moment after the gateway made it.
      for (let i = 0; i < 300 && !threads().includes(WORKER_NAME); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(threads()).toContain(WORKER_NAME);
    } finally {
      await primary.gateway.close();
    }
  });
});

const SETTINGS: WorkerSettings = {
  url: 'http://127.0.0.1:1', protocol: 'rest', capacity: 1, concurrency: 1, timeoutMs: 2000, noise: false, retryMs: 0, keepSamples: false, batchMs: 100, batchSize: 64,
};

function job(authorization = 'Bearer test-token-0123456789'): ShadowJob {
  return {
    name: GET_GROUP,
    request: { uid: 'ab'.repeat(20) },
    primary: { kind: 'answer', message: { uid: 'ab'.repeat(20), name: 'x' } },
    authorization,
    readOnly: true,
    protocol: 'rest',
    askPrimary: async () => ({ kind: 'unanswered', why: 'not asked in this test' }),
  };
}

function comparisons(options: { entry?: URL; settings?: Partial<WorkerSettings> } = {}) {
  const found: Array<[string, Finding['result']]> = [];
  const told: Array<{ finding: Finding; times: number }> = [];
  const dropped: string[] = [];
  const warnings: string[] = [];
  const offThread = new OffThreadComparisons({
    settings: { ...SETTINGS, ...options.settings },
    // The worker may count comparisons that ended alike as one finding `times` over: each is told here.
    record: (name, finding, times) => {
      told.push({ finding, times });
      found.push(...Array.from({ length: times }, (): [string, Finding['result']] => [name, finding.result]));
    },
    dropped: (name, times) => dropped.push(...Array.from({ length: times }, () => name)),
    warn: (message) => warnings.push(message),
    ...(options.entry ? { entry: options.entry } : {}),
  });
  return { offThread, found, told, dropped, warnings };
}

describe('the comparisons handed to the worker', () => {
  it('are counted here before a drain resolves, at most the queue and the running ones handed over', async () => {
    const { offThread, found, dropped, warnings } = comparisons();
    try {
      // Capacity 1 and concurrency 1: two handed over, the third dropped on this thread, never waited for.
      expect([offThread.offer(job()), offThread.offer(job()), offThread.offer(job())]).toEqual([true, true, false]);
      await offThread.drained();
      expect(offThread.pending).toBe(0);
      expect(found).toEqual([[GET_GROUP, 'errors'], [GET_GROUP, 'errors']]);
      expect(dropped).toEqual([]);
      expect(warnings).toEqual([]);
    } finally {
      await offThread.close();
    }
  });

  it('that differ alike come back as one finding and their count; one with a sample to keep comes back alone', async () => {
    // The candidate answers {} to every call: each comparison finds the same two fields missing there.
    const differences = [{ path: 'uid', class: 'dataLoss' }, { path: 'name', class: 'dataLoss' }];
    const alike = comparisons({ settings: { url: candidateUrl, capacity: 10 } });
    try {
      for (let i = 0; i < 3; i++) expect(alike.offThread.offer(job())).toBe(true);
      await alike.offThread.drained();
      expect(alike.told).toEqual([{ finding: { result: 'dataLoss', differences }, times: 3 }]);
    } finally {
      await alike.offThread.close();
    }
    const sampled = comparisons({ settings: { url: candidateUrl, capacity: 10, keepSamples: true } });
    try {
      for (let i = 0; i < 2; i++) expect(sampled.offThread.offer(job())).toBe(true);
      await sampled.offThread.drained();
      expect(sampled.told.map(({ finding, times }) => [finding.result, finding.sample !== undefined, times])).toEqual([['dataLoss', true, 1], ['dataLoss', true, 1]]);
    } finally {
      await sampled.offThread.close();
    }
  });

  it('leave within the hand-over\'s time, the first and a later one alike, with no drain to send them', async () => {
    const { offThread } = comparisons({ settings: { url: candidateUrl } });
    try {
      await offThread.ready();
      Atomics.store(seen, 0, 0);
      for (const expected of [1, 2]) {
        expect(offThread.offer(job())).toBe(true);
        // The worker asks the candidate only once the job is handed over: HANDOVER_MS after the offer.
        for (let i = 0; i < 500 && Atomics.load(seen, 0) < expected; i++) await new Promise((resolve) => setTimeout(resolve, 5));
        expect(Atomics.load(seen, 0)).toBe(expected);
      }
    } finally {
      await offThread.close();
    }
  });

  it('that will not clone fail alone, the others of their turn handed over', async () => {
    const { offThread, found, warnings } = comparisons();
    try {
      const uncloneable = { ...job(), request: { uid: 'ab'.repeat(20), read: () => 'a function' } } as unknown as ShadowJob;
      expect([offThread.offer(uncloneable), offThread.offer(job())]).toEqual([true, true]);
      await offThread.drained();
      expect(found).toEqual([[GET_GROUP, 'errors'], [GET_GROUP, 'errors']]);
      expect(warnings).toEqual([]);
      expect(offThread.offer(job())).toBe(true);
      await offThread.drained();
    } finally {
      await offThread.close();
    }
  });

  it('keep a process that has nothing else to do up until its worker is ready', () => {
    const out = execFileSync(process.execPath, [fileURLToPath(new URL('./ready-alone.ts', import.meta.url))], { encoding: 'utf8', timeout: 15_000 });
    expect(out.trim()).toBe('ready');
  });

  it('lost with a worker that dies count as errors, later ones are dropped, and the log says so once without the token', async () => {
    const { offThread, found, warnings } = comparisons({ entry: new URL('./dying-worker.ts', import.meta.url) });
    expect(offThread.offer(job('Bearer very-secret-token-42'))).toBe(true);
    await offThread.drained();
    expect(found).toEqual([[GET_GROUP, 'errors']]);
    expect(offThread.offer(job())).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('worker thread stopped');
    expect(warnings[0]).not.toContain('very-secret-token-42');
    await offThread.close();
  });

  it('with a worker that cannot start, say so once and hand nothing more over', async () => {
    const { offThread, warnings } = comparisons({ entry: new URL('./no-such-worker.ts', import.meta.url) });
    offThread.offer(job());
    await offThread.drained();
    for (let i = 0; i < 200 && warnings.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(warnings).toHaveLength(1);
    expect(offThread.offer(job())).toBe(false);
    await offThread.close();
  });
});
