/**
 * The fuzz suite as CI runs it: seeded and bounded. Each mode (translate,
 * native on SQLite, native on PostgreSQL) gets a fresh gateway and a world of
 * real resources; then random and mutated requests over every route and RPC of
 * the contract (REST, gRPC, raw HTTP/2 gRPC framing, Connect) are judged by
 * the rules in harness.ts. After the run:
 *
 * - the gateway still answers (health, and a real read over REST and gRPC);
 * - it logged no error: a request that reaches the error log is a crash caught
 *   in time, even when its answer looked right;
 * - the heap, after a forced collection, is back near where it started.
 *
 * The same file is the long run (`npm run fuzz -- --help`), which sets the
 * V2GW_FUZZ_* variables below. A failure names each bad request, its answer's
 * problems and the command that replays it alone.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectedHeapMb } from '../support/memory.ts';
import { ALL_MODES, startMode, type ModeName, type ModeStack } from '../support/modes.ts';
import { TOKEN } from '../support/stack.ts';
import { generate } from './generators.ts';
import { describe as describeRequest, exact, GrpcChannel, Http2Channel, send, type Channels, type Outcome } from './harness.ts';
import { Rand, streamSeed } from './random.ts';
import { buildWorld, type World } from './world.ts';

const env = process.env;
/** CI's seed is fixed so a red run is reproducible; the long run picks a random one and prints it. */
const SEED = Number(env.V2GW_FUZZ_SEED ?? (env.V2GW_FUZZ_REQUESTS ? Math.floor(Math.random() * 2 ** 31) : 20_261_124));
/** Per mode. CI's number keeps the file under half a minute on a busy two-core machine. */
const REQUESTS = Number(env.V2GW_FUZZ_REQUESTS ?? 1_000);
const MODES = (env.V2GW_FUZZ_MODES?.split(',').map((m) => m.trim()).filter(Boolean) ?? ALL_MODES) as ModeName[];
const ONLY = env.V2GW_FUZZ_ONLY?.split(',').map(Number);
const CONCURRENCY = Number(env.V2GW_FUZZ_CONCURRENCY ?? 4);
const TRACE = env.V2GW_FUZZ_TRACE === '1';
const MEMTRACE = env.V2GW_FUZZ_MEMTRACE === '1';
/** How far the heap may stay above its start once the run is over and collected: caches (hydration, tokens) fill a little, a leak grows without end. */
const HEAP_SLACK_MB = 48;
const LONG_RUN = REQUESTS > 2_000;

for (const mode of MODES) {
  if (!ALL_MODES.includes(mode)) throw new Error(`unknown mode ${mode}; the modes are ${ALL_MODES.join(', ')}`);
}

const heapMb = collectedHeapMb;

interface Failure {
  index: number;
  request: string;
  exact: string;
  outcome: Outcome;
}

/** Runs `indices` through `work` with at most `limit` in flight. */
async function pool(indices: number[], limit: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, indices.length) }, async () => {
    while (next < indices.length) await work(indices[next++]!);
  }));
}

/** Error-level lines of the gateway's log (pino: 50 error, 60 fatal). */
const errorLines = (logs: string[]) => logs.filter((line) => /"level":(50|60)\b/.test(line));

function report(mode: ModeName, failures: Failure[], logErrors: string[]): string {
  const file = join(tmpdir(), `v2gw-fuzz-${SEED}-${mode}.json`);
  writeFileSync(file, JSON.stringify(failures.map((f) => ({ index: f.index, request: JSON.parse(f.exact), answer: f.outcome })), null, 2));
  const shown = failures.slice(0, 12).map((f) => [
    `#${f.index} → ${f.outcome.summary}${f.outcome.requestId ? ` (request id ${f.outcome.requestId})` : ''}`,
    `  ${f.request}`,
    ...f.outcome.problems.map((p) => `  ✗ ${p}`),
    `  replay: npm run fuzz -- --seed ${SEED} --modes ${mode} --only ${f.index}`,
  ].join('\n'));
  return [
    `${failures.length} request(s) broke the rules in ${mode} (seed ${SEED}); every one is in ${file}`,
    ...shown,
    ...(failures.length > shown.length ? [`… and ${failures.length - shown.length} more`] : []),
    ...(logErrors.length ? [`${logErrors.length} error log line(s), the first: ${logErrors[0]!.slice(0, 1_500)}`] : []),
  ].join('\n\n');
}

describe(`fuzz (seed ${SEED}, ${REQUESTS} requests per mode)`, () => {
  for (const mode of MODES) {
    describe(mode, () => {
      let stack: ModeStack;
      let world: World;
      let channels: Channels;

      beforeAll(async () => {
        stack = await startMode(mode);
        try {
          world = await buildWorld(stack);
        } catch (error) {
          // The gateway's side of a failed set-up is in its log.
          throw new Error(`${(error as Error).message}\n${errorLines(stack.logs).join('\n').slice(0, 4_000)}`);
        }
        channels = { url: new URL(stack.url), grpc: new GrpcChannel(stack.url), http2: new Http2Channel(stack.url) };
      }, 60_000);

      afterAll(async () => {
        channels?.http2.close();
        await stack?.close();
      });

      it('answers every request by the rules, stays up, logs no error and gives its memory back', async () => {
        const logsBefore = stack.logs.length;
        const startMb = heapMb();
        const failures: Failure[] = [];
        const indices = ONLY ?? Array.from({ length: REQUESTS }, (_, i) => i);
        let done = 0;
        await pool(indices, CONCURRENCY, async (index) => {
          const request = generate(new Rand(streamSeed(SEED, index)), world);
          const outcome = await send(channels, request);
          if (TRACE) console.log(`#${index} ${describeRequest(request)}\n  → ${outcome.summary}${outcome.problems.map((p) => `\n  ✗ ${p}`).join('')}`);
          if (outcome.problems.length) failures.push({ index, request: describeRequest(request), exact: exact(request), outcome });
          if (MEMTRACE && ++done % 1_000 === 0) console.log(`${mode}: ${done} requests, heap ${heapMb().toFixed(1)} MB (started at ${startMb.toFixed(1)})`);
        });

        // Alive: liveness, and a real read over each protocol.
        expect((await stack.client.get('/healthz')).status).toBe(200);
        expect((await stack.client.get(`/iam/v2beta1/groups/${world.org}`)).status).toBe(200);
        const grpcRead = await send(channels, { channel: 'grpc', rpc: 'chainguard.platform.iam.v2beta1.GroupsService/GetGroup', message: { uid: world.org }, authorization: TOKEN });
        expect(grpcRead).toMatchObject({ summary: 'grpc 0', problems: [] });

        const logErrors = errorLines(stack.logs.slice(logsBefore));
        failures.sort((a, b) => a.index - b.index);
        if (failures.length || logErrors.length) expect.fail(report(mode, failures, logErrors));

        const endMb = heapMb();
        if (LONG_RUN || MEMTRACE) console.log(`${mode}: heap ${startMb.toFixed(1)} → ${endMb.toFixed(1)} MB after ${indices.length} requests (seed ${SEED})`);
        expect(endMb - startMb, `heap grew from ${startMb.toFixed(1)} to ${endMb.toFixed(1)} MB`).toBeLessThan(HEAP_SLACK_MB);
      }, LONG_RUN ? 3_600_000 : 240_000);
    });
  }
});
