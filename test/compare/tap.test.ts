/**
 * The tap (src/compare/tap.ts) on the caller's thread: a settled call is only noted on the caller's
 * turn; the calls noted within the hand-over's time are considered (the request message read, the job
 * offered) together once it is up, or at once when a drain or a close asks, so a drain counts them.
 */
import { createServer, type Server } from 'node:http';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Binding } from '../../src/contract/bindings.ts';
import { contract } from '../../src/contract/registry.ts';
import type { Comparisons, ShadowJob } from '../../src/compare/off-thread.ts';
import { Shadowing, type ShadowingSettings } from '../../src/compare/shadowing.ts';
import { ComparingRunner, HANDOVER_MS } from '../../src/compare/tap.ts';
import type { Operation } from '../../src/port/operation.ts';
import type { Runner } from '../../src/port/runner.ts';
import { requestContext, sentAs } from '../../src/request/context.ts';
import type { ComparisonCounterStore } from '../../src/store/types.ts';
import type { Json } from '../../src/vocabulary/json.ts';
import { closeLocal, listenLocal } from '../support/local-http.ts';

const GET_GROUP = 'chainguard.platform.iam.v2beta1.GroupsService/GetGroup';
const getGroup = contract.getService('chainguard.platform.iam.v2beta1.GroupsService')!.methods.find((m) => m.name === 'GetGroup')!;
const binding = { method: getGroup, mapping: {}, kind: 'get', rules: [], body: '', target: 'uid' } as unknown as Binding;
/** The answer of every call: the group asked for. */
const primary: Runner = { execute: async (op) => ({ uid: (op as { uid: string }).uid, name: 'team' }) };

/** A Get of `uid` as a transport makes it, counting each time its request message is read. */
function getOf(uid: string, read: { count: number }): Operation {
  return { kind: 'get', mapping: {} as never, uid, call: { binding, message: () => (read.count++, { uid }) } };
}

const context = (uid: string) => requestContext({ authorization: 'Bearer tap-token-0123456789', requestId: `tap-${uid}`, budgetMs: 5000 });

describe('the tap', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function tapped(inner: Runner = primary) {
    const offered: Array<{ uid: string; run: number }> = [];
    const jobs: ShadowJob[] = [];
    // Offers handed over together share a number: that of their hand-over.
    let handOvers = 0;
    const comparisons: Comparisons = {
      offer(job: ShadowJob) {
        jobs.push(job);
        offered.push({ uid: (job.request as { uid: string }).uid, run: handOvers + 1 });
        return true;
      },
      handOver() {
        handOvers++;
      },
    };
    const runner = new ComparingRunner(inner, { bindings: [binding], comparisons, counters: new Map(), sample: 1, unsafe: false, budgetMs: 5000, onDropped: () => {} });
    return { runner, offered, jobs, handOvers: () => handOvers };
  }

  it('only notes a settled call on the caller\'s turn, and considers those of the hand-over\'s time together once it is up', async () => {
    vi.useFakeTimers();
    const { runner, offered } = tapped();
    const read = { count: 0 };
    await Promise.all(['a', 'b', 'c'].map((uid) => runner.execute(getOf(uid, read), context(uid))));
    // The turns after the answers (an immediate among them) pass before the hand-over's time is up: nothing read or offered.
    await vi.advanceTimersByTimeAsync(HANDOVER_MS - 1);
    expect(read.count).toBe(0);
    expect(offered).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(read.count).toBe(3);
    expect(offered).toEqual([{ uid: 'a', run: 1 }, { uid: 'b', run: 1 }, { uid: 'c', run: 1 }]);
    // A later call waits its own hand-over's time.
    await runner.execute(getOf('d', read), context('d'));
    await vi.advanceTimersByTimeAsync(HANDOVER_MS - 1);
    expect(offered).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(offered.at(-1)).toEqual({ uid: 'd', run: 2 });
  });

  it('hands over the text its answer was sent in, kept on the request\'s context, and not the document', async () => {
    vi.useFakeTimers();
    const text = '{"uid":"a","name":"team"}';
    // As the REST routes of a comparing gateway do once the answer is serialized.
    const sending: Runner = { execute: async (op, ctx) => primary.execute(op, ctx).then((document) => (sentAs(ctx, text), document)) };
    const { runner, jobs, handOvers } = tapped(sending);
    await runner.execute(getOf('a', { count: 0 }), context('a'));
    await vi.advanceTimersByTimeAsync(HANDOVER_MS);
    expect(jobs.map((job) => job.primaryText)).toEqual([text]);
    expect(handOvers()).toBe(1);
  });

  it('offers a request that must not be sent like any other: the worker refuses it', async () => {
    const { runner, offered } = tapped();
    await runner.execute(getOf('..%2F..%2Finternal', { count: 0 }), context('climbs'));
    runner.considerSettled();
    expect(offered).toEqual([{ uid: '..%2F..%2Finternal', run: 1 }]);
  });

  it('considers what it has noted at once when asked (a drain, a close)', async () => {
    const { runner, offered } = tapped();
    const read = { count: 0 };
    await runner.execute(getOf('a', read), context('a'));
    runner.considerSettled();
    expect(offered).toEqual([{ uid: 'a', run: 1 }]);
    // Nothing is considered twice when the hand-over's time is up.
    await new Promise((resolve) => setTimeout(resolve, HANDOVER_MS * 5));
    expect(read.count).toBe(1);
    expect(offered).toHaveLength(1);
  });
});

describe('a drain of the comparisons', () => {
  let candidate: Server;
  let url: string;

  beforeAll(async () => {
    candidate = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"uid":"a","name":"team"}');
    });
    url = await listenLocal(candidate);
  });

  afterAll(async () => {
    await closeLocal(candidate);
  });

  it('counts the calls the tap has noted and not yet considered', async () => {
    const rows = new Map<string, Map<string, number>>();
    const counts: ComparisonCounterStore = {
      async add(_run, method, added) {
        const keys = rows.get(method) ?? new Map<string, number>();
        for (const [key, by] of added) keys.set(key, (keys.get(key) ?? 0) + by);
        rows.set(method, keys);
      },
      read: async () => rows,
    };
    const settings: ShadowingSettings = {
      compareWith: url, compareProtocol: 'rest', compareSample: 1, compareUnsafe: false, compareNoise: false, compareTargetRate: 0.01,
      compareQueue: 10, compareConcurrency: 2, compareTimeoutMs: 5000, compareRetryMs: 0, compareSamples: 0,
    };
    const shadowing = await Shadowing.start(settings, new Registry(), counts);
    try {
      const runner = shadowing.tap([binding], 5000)(primary);
      const answer: Json = await runner.execute(getOf('a', { count: 0 }), context('a'));
      expect(answer).toEqual({ uid: 'a', name: 'team' });
      await shadowing.drained();
      const report = await shadowing.report();
      expect(report.methods.find((m) => m.method === GET_GROUP)).toMatchObject({ compared: 1, equal: 1 });
    } finally {
      await shadowing.close();
    }
  });
});
