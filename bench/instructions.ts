/**
 * Instructions per answer of the gateway and of the floors (the raw one, the same forward in Fastify,
 * the translating ones, with the default duties on the Get, gRPC's), counted by callgrind (bench/lib/callgrind.ts): the figure of `npm run bench` that does not
 * move with what else the host runs. Each server starts under valgrind, alone on its core (pinned as
 * in `npm run bench`), answers `--warm` requests at `--connections` (50; a List 8) (h2load: HTTP/1.1 for REST, h2c for
 * gRPC), has its counters zeroed, answers `--requests` more, and is counted for those. Its ratio to the floor of the same protocol
 * (on the Get, the translating floor with the default duties when counted, bench/lib/least-duties.ts) is the Get target's
 * question asked in instructions: CPU time also pays for how the instructions run (cache misses,
 * a larger heap), which this does not see, so read it beside `npm run bench`, not instead of it.
 *
 * `npm run bench:instructions -- [--scenario get|list] [--requests 3000] [--warm 3000] [--no-pin] [--only <server,…>] [--stages] [--keep-dumps] [--gateway-flag <flag>…]`.
 * `--gateway-flag`: a src/config.ts flag for every gateway counted (repeatable): `--gateway-flag=--list-scan-cache-bytes=0`
 * counts a List read afresh, the `list` part's figure against the translating floor. `--node-arg`: a Node
 * flag for every gateway counted, after the image's (repeatable), as `npm run bench` takes it.
 * `--stages`: each gateway's instructions told apart by the stage that spent them (bench/lib/get-stages.ts), on
 * the event loop's thread and, apart, on the comparison's worker thread (callgrind dumps each thread apart);
 * V8's other threads by the job they ran (optimising compiles, garbage collection, other).
 * `--keep-dumps`: callgrind's dumps are left where they were written (the path is printed), to be read further.
 * Needs valgrind and h2load (`apt-get install valgrind nghttp2-client`). A Get takes ~2 minutes a
 * server under valgrind; a List page is ~10x a Get (use fewer requests).
 *
 * `--before <commit> [--repeat 3]`: the gateway of that commit (a worktree, built as this checkout is)
 * against this checkout's, over REST and gRPC, each counted `--repeat` times in alternating order
 * (bench/lib/instruction-ab.ts): what a change did to a Get, told apart from the few % a single
 * count moves by. No floors are counted then.
 *
 * `--compare equal[,differ]` (the Get): the REST gateway counted with comparison off, then comparing every
 * request (`--compare-sample 1`) with a candidate whose answers equal its own, or differ in one field (each
 * candidate a gateway over a v1 of its own with the same rows, not counted, beside the load generator);
 * each read against the gateway off: the instructions a compared request adds to the one it compares.
 * With `equal`, the least comparison too (bench/translation-floor-process.ts): the translating floor off,
 * comparing every request with the equal candidate on its event loop, and on a worker thread
 * (`--compare-on-worker`), each read against the floor off; `floor translating compared on a worker (a
 * message a turn)` (`--compare-window-ms 0`) is counted only when `--only` names it. Each comparing
 * server's count is also told by thread: the event loop's, the worker's, V8's others.
 * With `--before`, both gateways compare with the first kind named (`--only "gateway REST"`: REST alone).
 * Loaded at 2 connections, not 50.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { callgrindAvailable, dumpCounts, underCallgrind, zeroCounts, type ThreadDump } from './lib/callgrind.ts';
import { readProfile } from './lib/callgrind-profile.ts';
import { helperKinds, isWorkerThread, stageRows } from './lib/get-stages.ts';
import { envOf, GATEWAY_ENV, GATEWAY_NODE_ARGS, gatewayFlags } from './lib/gateway-defaults.ts';
import { h2loadAvailable, h2loadRequests, type H2loadCall } from './lib/h2load-load.ts';
import { pinning, pinSelf } from './lib/pin.ts';
import { scenario as scenarioOf, SCENARIO_KEYS, type ScenarioKey } from './lib/scenarios.ts';
import { CHECKOUT } from './lib/built.ts';
import { comparisonRow, countingOrder, summarise, thousands } from './lib/instruction-ab.ts';
import { FLOORS, startEmulator, startFloor, startGateway, startGrpcFloor, type GatewayOptions, type Server } from './lib/stack.ts';
import { addWorktree } from './lib/worktree.ts';
import { AUTHORIZATION, h2loadGrpcCall, probeGrpc, probeRest, probeUrl, type GrpcSettings } from './lib/targets.ts';

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'get' },
    requests: { type: 'string', default: '3000' },
    warm: { type: 'string', default: '3000' },
    'no-pin': { type: 'boolean', default: false },
    before: { type: 'string' },
    repeat: { type: 'string', default: '3' },
    stages: { type: 'boolean', default: false },
    only: { type: 'string' },
    'gateway-flag': { type: 'string', multiple: true, default: [] },
    'node-arg': { type: 'string', multiple: true, default: [] },
    compare: { type: 'string' },
    connections: { type: 'string' },
    'keep-dumps': { type: 'boolean', default: false },
  },
  strict: true,
});
const key = values.scenario as ScenarioKey;
if (!SCENARIO_KEYS.includes(key)) throw new Error(`--scenario: expected ${SCENARIO_KEYS.join(' or ')}, got ${values.scenario}`);
const requests = Number(values.requests);
const warm = Number(values.warm);
for (const [flag, n] of [['--requests', requests], ['--warm', warm]] as const) {
  if (!Number.isInteger(n) || n < 50 || n > 1_000_000) throw new Error(`${flag}: expected 50..1000000, got ${n}`);
}
const compareKinds = values.compare === undefined ? [] : values.compare.split(',');
if (compareKinds.some((kind) => kind !== 'equal' && kind !== 'differ') || (compareKinds.length > 0 && key !== 'get')) throw new Error('--compare: equal and/or differ, with the get scenario');
const repeat = Number(values.repeat);
if (!Number.isInteger(repeat) || repeat < 1 || repeat > 20) throw new Error(`--repeat: expected 1..20, got ${values.repeat}`);
if (!callgrindAvailable() || !h2loadAvailable()) throw new Error('bench:instructions needs valgrind and h2load (apt-get install valgrind nghttp2-client)');

// Under valgrind a comparing gateway at 50 or 8 connections reset some of them (h2load: "stream failed or
// reset"): 2. A List page costs ~10 Gets, and 50 of them in flight outlast the answers' deadline: 8.
const CONNECTIONS = values.connections !== undefined ? Number(values.connections) : compareKinds.length > 0 ? 2 : key === 'list' ? 8 : 50;
if (!Number.isInteger(CONNECTIONS) || CONNECTIONS < 1 || CONNECTIONS > 1000) throw new Error(`--connections: expected 1..1000, got ${values.connections}`);
// A server under valgrind runs ~50x slower: minutes to start, minutes per few thousand answers.
const START_MS = 300_000;
const LOAD_MS = 3_600_000;

const pin = pinning(!values['no-pin']);
pinSelf(pin);
const dir = mkdtempSync(join(tmpdir(), 'v2gw-callgrind-'));
const counted = underCallgrind(dir, (command, args) => pin.command('server', command, args));
// --stages: V8 writes where it put each compiled function (/tmp/perf-<pid>.map), which names the dump's addresses.
const gatewayOptions = { nodeArgs: [...GATEWAY_NODE_ARGS, ...values['node-arg'], ...(values.stages ? ['--perf-basic-prof'] : [])], env: envOf(GATEWAY_ENV), flags: [...gatewayFlags('info'), ...values['gateway-flag']], launch: counted, timeoutMs: START_MS };

const support = (command: string, args: string[]) => pin.command('support', command, args);
// --compare: the candidates' v1 must hold the same rows (bench/emulator-process.ts --same-data).
const emulator = await startEmulator(1000, { launch: support, sameData: compareKinds.length > 0 });
const candidates = new Map<string, { url: string; stop: () => Promise<void> }>();
for (const kind of compareKinds) {
  const v1 = await startEmulator(1000, { launch: support, sameData: true, ...(kind === 'differ' ? { descriptionSuffix: ' (as the candidate has it)' } : {}) });
  const candidate = await startGateway(`candidate-${kind}`, v1.url, { nodeArgs: [...GATEWAY_NODE_ARGS], env: envOf(GATEWAY_ENV), flags: gatewayFlags('info'), launch: support });
  candidates.set(kind, { url: candidate.url, stop: async () => { await candidate.child.stop(); await v1.child.stop(); } });
}
/** A gateway's flags to compare every request with the `kind` candidate (a differing answer asked once, not read again). */
const comparing = (kind: string): string[] => ['--compare-with', candidates.get(kind)!.url, '--compare-sample', '1', ...(kind === 'differ' ? ['--compare-retry-ms', '0'] : [])];
const scenario = scenarioOf(key, emulator.org, emulator.group);
const rest = (url: string): H2loadCall => ({ url, headers: { authorization: AUTHORIZATION }, http1: true });
// Probes, and the size every OK gRPC answer has (h2load does not read trailers: a call with no message failed), by grpc-js.
const probing: GrpcSettings = { client: 'grpc-js', callers: 1, sessions: 1, acceptGzip: false };
const grpc = (url: string): Promise<H2loadCall> => h2loadGrpcCall(url, scenario, probing);

interface Counted {
  name: string;
  start: () => Promise<Server>;
  probe: (url: string) => Promise<void>;
  call: (url: string) => Promise<H2loadCall>;
  /** Its instructions told apart by stage (--stages), from the dump. */
  stages?: boolean;
  /** What it says of itself once counted (a comparing gateway: its comparisons' counts). */
  after?: (url: string) => Promise<string>;
  /** Counted only when `--only` names it. */
  optional?: boolean;
}

/** A count's instructions per answer: all of them, and the event loop's thread's, a Node worker thread's, V8's other threads'. */
interface PerAnswer {
  all: number;
  main: number;
  worker: number;
  others: number;
}

/**
 * A dump's threads told apart: the event loop's (main), a Node worker's (src/compare/worker.ts, the least
 * comparison's), V8's others; a worker is looked for (each thread's dump read) only when comparing.
 */
function byThread(threads: readonly ThreadDump[], answers: number): PerAnswer {
  const each = { all: 0, main: 0, worker: 0, others: 0 };
  for (const thread of threads) {
    each.all += thread.instructions;
    if (thread.main) each.main += thread.instructions;
    else if (compareKinds.length > 0 && isWorkerThread(readProfile(thread.file))) each.worker += thread.instructions;
    else each.others += thread.instructions;
  }
  return { all: each.all / answers, main: each.main / answers, worker: each.worker / answers, others: each.others / answers };
}

/**
 * Stages of one dump, as rows of a markdown table (instructions per answer, share of the whole): the
 * event loop's thread stage by stage; a Node worker thread's (the comparison's, src/compare/worker.ts)
 * the same, apart; V8's other threads (its optimising compiler, the GC's helpers) in one row.
 */
function printStages(name: string, threads: readonly ThreadDump[], pid: number, total: number): void {
  const perfMap = `/tmp/perf-${pid}.map`;
  const rows: Array<[string, number]> = [];
  let others = 0;
  const helpers = new Map<string, number>();
  for (const thread of threads) {
    if (thread.main) {
      rows.unshift(...stageRows(readProfile(thread.file, perfMap), thread.instructions, requests));
      continue;
    }
    const costs = readProfile(thread.file, perfMap);
    if (isWorkerThread(costs)) {
      rows.push(...stageRows(costs, thread.instructions, requests, 'native, on the worker thread and not caused by script').map(([stage, each]): [string, number] => [`worker thread: ${stage}`, each]));
      continue;
    }
    others += thread.instructions;
    for (const [kind, ir] of helperKinds(costs, thread.instructions)) helpers.set(kind, (helpers.get(kind) ?? 0) + ir);
  }
  for (const [kind, ir] of helpers) rows.push([kind, ir / requests]);
  console.log(`\n| ${name}: stage | instructions per answer | share |`);
  console.log('|:--|--:|--:|');
  for (const [stage, each] of rows) if (each > 0 || !stage.startsWith('worker thread: ')) console.log(`| ${stage} | ${thousands(each)} | ${((each * requests * 100) / total).toFixed(1)} % |`);
  const main = threads.find((t) => t.main)?.instructions ?? 0;
  const worker = threads.filter((t) => !t.main).reduce((sum, t) => sum + t.instructions, 0) - others;
  console.log(`| the event loop's thread | ${thousands(main / requests)} | ${((main * 100) / total).toFixed(1)} % |`);
  if (worker > 0) console.log(`| the worker thread | ${thousands(worker / requests)} | ${((worker * 100) / total).toFixed(1)} % |`);
  console.log(`| all | ${thousands(total / requests)} | 100 % |\n`);
}

/**
 * The server's probe, asked again (up to three times) when it times out: a List's first answer, before V8
 * has compiled anything, can take longer under valgrind than a probe waits.
 */
async function probePatiently(server: Counted, url: string): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      return await server.probe(url);
    } catch (error) {
      if (tries >= 3 || (error as Error).name !== 'TimeoutError') throw error;
      process.stderr.write(`bench: ${server.name}: the probe timed out (try ${tries}), asking again\n`);
    }
  }
}

/** A server, fresh, its answer checked once as `npm run bench` checks it, warmed, then counted: instructions per answer. */
async function count(server: Counted): Promise<number> {
  return (await countByThread(server)).all;
}

/** The same, told by thread. */
async function countByThread(server: Counted): Promise<PerAnswer> {
  const running = await server.start();
  try {
    await probePatiently(server, running.url);
    const call = await server.call(running.url);
    for (const [phase, n] of [['warm', warm], ['counted', requests]] as const) {
      if (phase === 'counted') zeroCounts(running.child.pid);
      process.stderr.write(`bench: ${server.name}: ${n} answers (${phase})\n`);
      // h2load's reading checks every answer (status, and a gRPC answer's size).
      const run = await h2loadRequests(call, CONNECTIONS, n, LOAD_MS);
      if (Object.keys(run.failures).length > 0 || run.requests !== n) {
        throw new Error(`${server.name}: ${run.requests} of ${n} answered, failures ${JSON.stringify(run.failures)}`);
      }
    }
    const { instructions, threads } = await dumpCounts(dir, running.child.pid);
    if (server.after) process.stderr.write(`bench: ${server.name}: ${await server.after(running.url)}\n`);
    if (server.stages && values.stages) printStages(server.name, threads, running.child.pid, instructions);
    return byThread(threads, requests);
  } finally {
    await running.child.stop();
  }
}

/** The gateway (of this checkout, or of `root`, built) counted over REST or gRPC. */
function gateway(name: string, protocol: 'REST' | 'gRPC', options: Pick<GatewayOptions, 'root' | 'built' | 'flags'> = {}): Counted {
  const start = () => startGateway(name, emulator.url, { ...gatewayOptions, ...options, flags: [...gatewayOptions.flags, ...(options.flags ?? [])] });
  const after = options.flags?.includes('--compare-with') ? { after: comparisonCounts } : {};
  return protocol === 'REST'
    ? { name, start, stages: true, ...after, probe: (url) => probeRest(name, url, scenario), call: async (url) => rest(`${url}${scenario.restPath}`) }
    : { name, start, stages: true, ...after, probe: (url) => probeGrpc(name, url, scenario, probing), call: grpc };
}

/** A comparing gateway's counts (every warm and counted answer, and the probe): a dropped comparison was not counted. */
async function comparisonCounts(url: string): Promise<string> {
  const report = await (await fetch(`${url}/_gateway/compare/report`)).json() as { methods: Array<Record<string, number>> };
  const sum = (key: string) => report.methods.reduce((n, m) => n + (m[key] ?? 0), 0);
  return `compared ${sum('compared')} (equal ${sum('equal')}), dropped ${sum('dropped')}, unanswered ${sum('errors')}`;
}

/** An HTTP/1.1 floor (bench/lib/stack.ts, FLOORS), asked v1's own question; `args`: the translating floors' more flags. */
function httpFloor(name: string, kind: keyof typeof FLOORS, args: readonly string[] = []): Counted {
  const translating = kind === 'translating' || kind === 'duties';
  return {
    name,
    start: () => startFloor(name, emulator.url, { launch: counted, timeoutMs: START_MS, kind, ...(translating ? { args: [...scenario.translating.args, ...args] } : {}) }),
    probe: (url) => probeUrl(name, `${url}${scenario.v1.path}`, translating ? scenario.translating.check : scenario.v1.check),
    call: async (url) => rest(`${url}${scenario.v1.path}`),
  };
}

/** The comparing translating floor's counts (every warm and counted answer, and the probe). */
async function floorComparisonCounts(url: string): Promise<string> {
  const counts = await (await fetch(`${url}/_floor/comparisons`)).json() as Record<string, number>;
  return `compared ${counts.compared} (equal ${counts.equal}), skipped ${counts.skipped}, failed ${counts.failed}`;
}

/** The least comparison: the translating floor off, and comparing every request with the equal candidate, on its event loop or on a worker. */
function leastComparisons(): Array<Counted & { floor?: string }> {
  const off = 'floor translating';
  const comparingFloor = (name: string, more: readonly string[], optional = false): Counted & { floor: string } => ({
    ...httpFloor(name, 'translating', ['--compare-with', candidates.get('equal')!.url, '--compare-path', scenario.restPath, ...more]),
    after: floorComparisonCounts,
    floor: off,
    ...(optional ? { optional } : {}),
  });
  return [
    httpFloor(off, 'translating'),
    comparingFloor('floor translating compared on its event loop', []),
    comparingFloor('floor translating compared on a worker', ['--compare-on-worker']),
    comparingFloor('floor translating compared on a worker (a message a turn)', ['--compare-on-worker', '--compare-window-ms', '0'], true),
  ];
}

/** The floors with the gateway's default duties (bench/lib/least-duties.ts): goal 3's anchors, counted on the Get. */
const DUTY_FLOOR = 'floor translating with the default duties';
const GRPC_DUTY_FLOOR = 'floor gRPC translating with the default duties';

/** A gRPC translating floor (`kind`: with the default duties or without), its answer checked as the translating floors' are. */
function grpcTranslatingFloor(name: string, kind: 'translating' | 'duties'): Counted {
  return {
    name,
    start: () => startGrpcFloor(name.replaceAll(' ', '-'), emulator.url, scenario.v1.path, { launch: counted, timeoutMs: START_MS, kind, args: [...scenario.translating.args, '--rpc', `${scenario.grpc.method.parent.typeName}/${scenario.grpc.method.name}`] }),
    probe: (url) => probeGrpc(name, url, { ...scenario, check: scenario.translating.check }, probing),
    call: grpc,
  };
}

/**
 * Each floor, then the gateway over its protocol, read against the first of its floors counted: on the Get,
 * the translating floor with the default duties (goal 3's anchor), else the translating floor.
 */
async function againstFloors(): Promise<void> {
  const get = key === 'get';
  const all: Array<Counted & { floor?: string | readonly string[] }> = [
    httpFloor('floor', 'raw'),
    // The same forward in a Fastify route: what the framework costs before the gateway does anything.
    { ...httpFloor('floor Fastify', 'fastify'), floor: 'floor' },
    // The least translation: the anchor of the Get and List targets.
    httpFloor('floor translating', 'translating'),
    // The same in a Fastify route, with what issue 40 names as always on: what those cost over it.
    ...(get ? [{ ...httpFloor(DUTY_FLOOR, 'duties'), floor: 'floor translating' }] : []),
    { ...gateway('gateway REST', 'REST'), floor: [DUTY_FLOOR, 'floor translating'] },
    {
      name: 'floor gRPC',
      start: () => startGrpcFloor('floor-grpc', emulator.url, scenario.v1.path, { launch: counted, timeoutMs: START_MS }),
      // The gRPC floor answers v1's bytes in a field the contract does not have: nothing to check but that it answers.
      probe: (url) => probeGrpc('floor gRPC', url, { ...scenario, check: () => undefined }, probing),
      call: grpc,
    },
    grpcTranslatingFloor('floor gRPC translating', 'translating'),
    ...(get ? [{ ...grpcTranslatingFloor(GRPC_DUTY_FLOOR, 'duties'), floor: 'floor gRPC translating' }] : []),
    { ...gateway('gateway gRPC', 'gRPC'), floor: [GRPC_DUTY_FLOOR, 'floor gRPC translating'] },
  ];
  // --compare: the REST gateway off, and comparing with each kind of candidate, read against it off.
  if (compareKinds.length > 0) {
    all.splice(0, all.length, gateway('gateway REST', 'REST'), ...compareKinds.map((kind) => ({ ...gateway(`gateway REST compared (${kind === 'equal' ? 'equal answers' : 'answers differ in one field'})`, 'REST', { flags: comparing(kind) }), floor: 'gateway REST' })));
    if (candidates.has('equal')) all.push(...leastComparisons());
  }
  const named = values.only?.split(',');
  const servers = all.filter(({ name, optional }) => (named === undefined ? !optional : named.includes(name)));
  const perAnswer = new Map<string, PerAnswer>();
  // Comparing: each count told by thread too, and what the comparison added on each, against its server off.
  const apart = compareKinds.length > 0;
  // Not comparing: the event loop's thread apart too (V8's other threads, its optimising compiler above all, move most between counts).
  console.log(`| server (${scenario.name}) | instructions per answer | read against: its floor's | ratio |${apart ? ' event loop | worker thread | V8\'s other threads | added: all / event loop / worker |' : ' event loop | its floor\'s | ratio |'}`);
  console.log(`|:--|--:|--:|--:|${apart ? '--:|--:|--:|--:|' : '--:|--:|--:|'}`);
  for (const server of servers) {
    const each = await countByThread(server);
    perAnswer.set(server.name, each);
    const floorName = [server.floor ?? []].flat().find((name) => perAnswer.has(name));
    const floor = floorName === undefined ? undefined : perAnswer.get(floorName);
    const row = `| ${server.name} | ${thousands(each.all)} | ${floor === undefined ? '' : `${floorName}: ${thousands(floor.all)}`} | ${floor === undefined ? '' : `${(each.all / floor.all).toFixed(2)}x`} |`;
    const added = floor === undefined ? '' : `${thousands(each.all - floor.all)} / ${thousands(each.main - floor.main)} / ${thousands(each.worker - floor.worker)}`;
    const mainRow = floor === undefined ? `${thousands(each.main)} | | |` : `${thousands(each.main)} | ${thousands(floor.main)} | ${(each.main / floor.main).toFixed(2)}x |`;
    console.log(apart ? `${row} ${thousands(each.main)} | ${thousands(each.worker)} | ${thousands(each.others)} | ${added} |` : `${row} ${mainRow}`);
  }
}

/** The gateway of `commit` against this checkout's, each counted `repeat` times, alternately, per protocol. */
async function againstCommit(commit: string): Promise<void> {
  const worktree = addWorktree(CHECKOUT, commit);
  try {
    const label = commit.slice(0, 12);
    console.log(`| ${scenario.name}, instructions per answer | ${label}: median (each) | this checkout: median (each) | change | |`);
    console.log('|:--|--:|--:|--:|:--|');
    for (const protocol of ['REST', 'gRPC'] as const) {
      if (values.only !== undefined && !values.only.split(',').includes(`gateway ${protocol}`)) continue;
      const flags = compareKinds[0] ? comparing(compareKinds[0]) : [];
      const builds = {
        before: gateway(`gateway ${protocol} at ${label}`, protocol, { root: worktree.path, built: true, flags }),
        now: gateway(`gateway ${protocol}`, protocol, { flags }),
      };
      const counts = { before: [] as number[], now: [] as number[] };
      for (const which of countingOrder('before' as const, 'now' as const, repeat)) counts[which].push(await count(builds[which]));
      console.log(comparisonRow(protocol, summarise(counts.before), summarise(counts.now)));
    }
  } finally {
    worktree.remove();
  }
}

try {
  const what = values.before ? `this checkout against ${values.before}, each counted ${repeat} times` : 'each server';
  process.stderr.write(`bench: instructions per answer, ${scenario.name}, ${warm} answers to warm then ${requests} counted, ${CONNECTIONS} connections; ${what} under callgrind${pin.active ? ` on core ${pin.cores.server}` : ''}\n`);
  if (values.before) await againstCommit(values.before);
  else await againstFloors();
} finally {
  for (const candidate of candidates.values()) await candidate.stop();
  await emulator.child.stop();
  if (values['keep-dumps']) process.stderr.write(`bench: callgrind's dumps kept in ${dir} (the compiled functions' names in /tmp/perf-<pid>.map with --stages)\n`);
  else rmSync(dir, { recursive: true, force: true });
}
