/**
 * The comparison runs on a worker thread (src/compare/off-thread.ts, worker.ts): a gateway asks its
 * candidate and reads a differing answer again while its own thread, the caller's, is blocked; the
 * thread carries its name; findings come back and are counted before a drain resolves; what is handed
 * over is bounded; a worker that dies or cannot start loses its comparisons as errors, says so without
 * the caller's token, and is started again after a back-off that doubles to its cap, the comparisons
 * offered meanwhile dropped.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/v1/index.ts';
import type { Finding } from '../../src/compare/comparer.ts';
import { OffThreadComparisons, WORKER_NAME, type ShadowJob, type WorkerPhase } from '../../src/compare/off-thread.ts';
import type { WorkerSettings } from '../../src/compare/worker-messages.ts';
import type { RestartPolicy } from '../../src/compare/worker-restart.ts';
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

function comparisons(options: { entry?: URL; restart?: RestartPolicy; settings?: Partial<WorkerSettings> } = {}) {
  const { settings, ...rest } = options;
  const found: Array<[string, Finding['result']]> = [];
  const told: Array<{ finding: Finding; times: number }> = [];
  const dropped: string[] = [];
  const warnings: string[] = [];
  const infos: string[] = [];
  /** What stopTook was told: the result a stop's comparisons counted under, each time it was told. */
  const tookByStop: Array<['errors' | 'dropped', number]> = [];
  const ups: boolean[] = [];
  const restarts: WorkerPhase[] = [];
  const offThread = new OffThreadComparisons({
    settings: { ...SETTINGS, ...settings },
    // The worker may count comparisons that ended alike as one finding `times` over: each is told here.
    record: (name, finding, times) => {
      told.push({ finding, times });
      found.push(...Array.from({ length: times }, (): [string, Finding['result']] => [name, finding.result]));
    },
    dropped: (name, times) => dropped.push(...Array.from({ length: times }, () => name)),
    stopTook: (_name, result, times) => tookByStop.push([result, times]),
    health: { up: (loaded) => ups.push(loaded), restarted: (after) => restarts.push(after) },
    warn: (message) => warnings.push(message),
    info: (message) => infos.push(message),
    ...rest,
  });
  return { offThread, found, told, dropped, warnings, infos, tookByStop, ups, restarts };
}

async function until(done: () => boolean, what: string, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; !done(); await new Promise((resolve) => setTimeout(resolve, 5))) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
  }
}

/** The waits before each start again, as the warnings said them, in ms. */
const waitsOf = (warnings: string[]) => warnings.map((w) => Math.round(Number(/again in ([\d.]+) s/.exec(w)?.[1]) * 1000));

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

  it('leave when the tap hands them over, the first and a later one alike, with no drain to send them', async () => {
    const { offThread } = comparisons({ settings: { url: candidateUrl } });
    try {
      await offThread.ready();
      Atomics.store(seen, 0, 0);
      for (const expected of [1, 2]) {
        expect(offThread.offer(job())).toBe(true);
        offThread.handOver();
        // The worker asks the candidate only once the job is handed over.
        for (let i = 0; i < 500 && Atomics.load(seen, 0) < expected; i++) await new Promise((resolve) => setTimeout(resolve, 5));
        expect(Atomics.load(seen, 0)).toBe(expected);
      }
    } finally {
      await offThread.close();
    }
  });

  it('come back at once when half of what may be handed over has ended, whatever the batch\'s time', async () => {
    // A queue of 1 and 1 running: each result comes back alone, not after the batch's minute.
    const { offThread, found } = comparisons({ settings: { url: candidateUrl, batchMs: 60_000 } });
    try {
      await offThread.ready();
      expect(offThread.offer(job())).toBe(true);
      offThread.handOver();
      await until(() => found.length === 1, 'the result back, with no drain to send it');
      expect(offThread.pending).toBe(0);
    } finally {
      await offThread.close();
    }
  });

  it('that must not be sent are refused by the worker and counted so, the candidate never asked', async () => {
    const { offThread, told } = comparisons({ settings: { url: candidateUrl, capacity: 10 } });
    try {
      await offThread.ready();
      Atomics.store(seen, 0, 0);
      // A path that climbs out of its route, and a request the primary refused as malformed.
      expect(offThread.offer({ ...job(), request: { uid: '..%2F..%2Finternal' } })).toBe(true);
      expect(offThread.offer({ ...job(), primary: { kind: 'error', code: 3, reason: 'INVALID_ARGUMENT', detailTypes: ['google.rpc.ErrorInfo'] } })).toBe(true);
      await offThread.drained();
      expect(told).toEqual([{ finding: { result: 'refused', differences: [] }, times: 2 }]);
      expect(Atomics.load(seen, 0)).toBe(0);
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

describe('a worker that stops', () => {
  it('is started again after the back-off: the comparisons resume, the stop\'s under way ones count as errors and those offered meanwhile as dropped', async () => {
    const { offThread, found, warnings, infos, tookByStop, ups, restarts } = comparisons({
      entry: new URL('./exiting-worker.ts', import.meta.url),
      // A candidate that answers, so a comparison made ends otherwise than one lost (errors).
      settings: { ...SETTINGS, url: candidateUrl },
      restart: { firstMs: 200, maxMs: 800, healthyMs: 60_000 },
    });
    try {
      await offThread.ready();
      expect(offThread.offer(job('Bearer the-callers-token-31'))).toBe(true);
      await offThread.drained();
      expect(found).toHaveLength(1);
      expect(found[0]![1]).not.toBe('errors');
      // Its second batch: the worker exits holding it.
      expect(offThread.offer(job('Bearer the-callers-token-31'))).toBe(true);
      await offThread.drained();
      expect(found.slice(1)).toEqual([[GET_GROUP, 'errors']]);
      expect(tookByStop).toEqual([['errors', 1]]);
      // None runs until the back-off is over: an offer is dropped, at once, and told as the stop's.
      expect(offThread.offer(job())).toBe(false);
      expect(offThread.pending).toBe(0);
      expect(tookByStop).toEqual([['errors', 1], ['dropped', 1]]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/worker thread stopped while running \(exited with code 3\); 1 comparison\(s\) under way count as errors/);
      expect(waitsOf(warnings)).toEqual([200]);
      expect(warnings.join('\n')).not.toContain('the-callers-token-31');
      expect(restarts).toEqual([]);

      await until(() => ups.at(-1) === true && restarts.length === 1, 'the worker started again');
      expect(restarts).toEqual(['running']);
      expect(offThread.restarts).toBe(1);
      expect(ups).toEqual([false, true, false, true]);
      expect(infos).toEqual(['comparison: its worker thread is running again (restart 1); comparing again']);
      expect(offThread.offer(job())).toBe(true);
      await offThread.drained();
      expect(found).toHaveLength(3);
      expect(found[2]![1]).not.toBe('errors');
      expect(tookByStop).toHaveLength(2);
    } finally {
      await offThread.close();
    }
  });

  it('that stops while the gateway closes is not started again, and the log says so; a close of its own says nothing', async () => {
    const { offThread, found, warnings, restarts } = comparisons({
      entry: new URL('./exiting-worker.ts', import.meta.url),
      settings: { ...SETTINGS, url: candidateUrl },
      restart: { firstMs: 50, maxMs: 50, healthyMs: 60_000 },
    });
    await offThread.ready();
    expect(offThread.offer(job())).toBe(true);
    await offThread.drained();
    // Its second batch leaves with the close's drain: the worker exits holding it.
    expect(offThread.offer(job())).toBe(true);
    await offThread.close();
    expect(found.slice(1)).toEqual([[GET_GROUP, 'errors']]);
    expect(warnings).toEqual(['comparison: its worker thread stopped while the gateway closes (exited with code 3); 1 comparison(s) under way count as errors']);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(restarts).toEqual([]);

    const quiet = comparisons({ settings: { ...SETTINGS, url: candidateUrl } });
    await quiet.offThread.ready();
    await quiet.offThread.close();
    expect(quiet.warnings).toEqual([]);
  });

  it('that fails as it loads is tried again and again, the wait doubling to its cap, its comparisons all counted and its error\'s text never logged', async () => {
    const { offThread, found, warnings, tookByStop, ups, restarts } = comparisons({
      entry: new URL('./failing-worker.ts', import.meta.url),
      restart: { firstMs: 20, maxMs: 80, healthyMs: 60_000 },
    });
    let offered = 0;
    let accepted = 0;
    try {
      await offThread.ready();
      await until(() => warnings.length >= 5, 'five failed starts');
      // Offered whatever the moment: while none runs (dropped) or while one starts (then lost with it).
      for (let i = 0; i < 3; i++, offered++) if (offThread.offer(job())) accepted++;
    } finally {
      await offThread.close();
    }
    expect(waitsOf(warnings).slice(0, 5)).toEqual([20, 40, 80, 80, 80]);
    for (const warning of warnings) expect(warning).toMatch(/stopped while starting \(Error\)/);
    expect(warnings.join('\n')).not.toContain('start-secret-token-77');
    expect(restarts.length).toBeGreaterThanOrEqual(4);
    expect(new Set(restarts)).toEqual(new Set(['starting']));
    expect(ups).not.toContain(true);
    // Every offer is counted once: accepted ones as errors when their worker failed, the others as dropped.
    expect(found).toEqual(Array.from({ length: accepted }, () => [GET_GROUP, 'errors']));
    const told = (result: string) => tookByStop.filter(([r]) => r === result).reduce((n, [, times]) => n + times, 0);
    expect(told('errors')).toBe(accepted);
    expect(told('dropped')).toBe(offered - accepted);
    expect(offThread.pending).toBe(0);
  });
});
