/**
 * `npm run bench [-- options]` (see --help; method in bench/README.md)
 *
 * Issue 12's figures in one command and one run, each read against a floor
 * measured in the same run: a raw undici pass-through of our own
 * (bench/floor-process.ts), loaded alternately with direct v1, the gateway
 * over REST and the gateway over gRPC, against the same emulator. Per server
 * process: req/s, latency, CPU µs per answer (/proc), RSS idle and peak.
 * Prints one table of each figure beside its target, met or not;
 * `--json <file>` writes everything.
 *
 * Parts, each with fresh processes (so a process's peak RSS is that part's):
 *   get        Get one group at c=connections and at c=1, with a second floor, the same forward in
 *              Fastify (bench/fastify-floor-process.ts), to split the Get's gap into Fastify's and the gateway's,
 *              and the translating floors with the gateway's default duties (bench/duty-floor-process.ts, and
 *              the gRPC one's --duties): goal 3's anchors
 *   list       a page of 50 of `groups`, v1 sending times; the floor forwards v1's whole list; a REST and a
 *              gRPC gateway that read every v1 answer afresh, the latter against the gRPC translating floor
 *   (get and list also read the translating floor, bench/translation-floor-process.ts: the least a
 *   translator spends on the same answer, v1's answer parsed whole and the served rows rendered)
 *   list-omit  the same with v1 omitting group times (the gateway supplies them from its store)
 *   list-churn the same (REST) with v1 changing a group after each answer, so no answer is the one before it
 *   walk       a walk of `walk-groups` in pages of 50, walk cache on and off
 *   native     the gateway in native mode (SQLite) under the Get and List loads
 *   compare    the Get with side-by-side comparison (--compare-with a second gateway over a v1 of its own) on
 *              and off: the primary's p50 at c=1 at sample 1, and at c=connections the CPU each compared
 *              request costs it (sample 1 against off), for equal answers and for answers differing in a field
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { onCleanup } from './lib/cleanup.ts';
import { compareAll, type Target } from './lib/compare.ts';
import { atLeastTimes, atMost, atMostTimes, goalsTable, peakAtMostFloor, reported, units, type Goal } from './lib/goals.ts';
import { h2loadAvailable } from './lib/h2load-load.ts';
import { resident, type Resident } from './lib/memory.ts';
import { seedNative } from './lib/native-seed.ts';
import { moveThreadsNamed, pinning, pinSelf } from './lib/pin.ts';
import { COMPARISON_THREAD } from '../src/index.ts';
import { FLOOR_COMPARISON_THREAD } from './lib/floor-comparison-thread.ts';
import { envOf, GATEWAY_ENV, GATEWAY_NODE_ARGS, gatewayFlags as benchGatewayFlags } from './lib/gateway-defaults.ts';
import { restLoad } from './lib/rest-load.ts';
import { scenario as scenarioFor, type Scenario, type ScenarioKey } from './lib/scenarios.ts';
import { startEmulator, startFloor, startGateway, startGrpcFloor, type Server } from './lib/stack.ts';
import { failureCount, type Summary } from './lib/stats.ts';
import { GRPC_LOAD_KINDS, grpcTarget, probeGrpc, probeRest, probeUrl, restTarget, urlTarget, type GrpcLoadKind, type GrpcSettings, type RestLoader } from './lib/targets.ts';
import { walk, type Walked } from './lib/walk.ts';
import { wrkAvailable, wrkLoad } from './lib/wrk-load.ts';

const PARTS = ['get', 'list', 'list-omit', 'list-churn', 'walk', 'native', 'compare'] as const;

// ---- options -------------------------------------------------------------

function intOption(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    process.stderr.write(`bench: --${name}: expected an integer in ${min}..${max}, got ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return value;
}

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    'c1-duration': { type: 'string', default: '3' },
    'compare-connections': { type: 'string', default: '4' },
    groups: { type: 'string', default: '1000' },
    'walk-groups': { type: 'string', default: '10000' },
    'walk-uncached-pages': { type: 'string', default: '10' },
    'native-groups': { type: 'string', default: '1000' },
    settle: { type: 'string', default: '2' },
    parts: { type: 'string', default: PARTS.join(',') },
    loadgen: { type: 'string' },
    'grpc-client': { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
    // What the gateway runs with in its image and `npm start` (Dockerfile's NODE_OPTIONS, package.json).
    'node-arg': { type: 'string', multiple: true, default: [...GATEWAY_NODE_ARGS] },
    'gateway-env': { type: 'string', multiple: true, default: [...GATEWAY_ENV] },
    'gateway-flag': { type: 'string', multiple: true, default: [] },
    'floor-node-arg': { type: 'string', multiple: true, default: [] },
    'no-pin': { type: 'boolean', default: false },
    json: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
  allowPositionals: false,
});
if (flags.help) {
  process.stdout.write(`Usage: npm run bench -- [options]
  --duration <s>=4          seconds per measured round, per target
  --warmup <s>=5            unmeasured load per target before its first round (bench/README.md: 2 s left the
                            gateways still compiling their hot paths)
  --rounds <n>=3            measured rounds per target (the issue's repetitions); the order of targets alternates
  --connections <n>=50      keep-alive connections (REST) / callers on as many HTTP/2 sessions (gRPC)
  --c1-duration <s>=3       seconds per round of the one-connection Get (added latency)
  --compare-connections <n>=4  connections of the compare part's CPU run: few enough that its queue drops nothing
  --groups <n>=1000         child groups in the Get/List emulator
  --walk-groups <n>=10000   child groups walked in pages of 50
  --walk-uncached-pages <n>=10  pages walked through the gateway without walk cache (each costs a full v1 list)
  --native-groups <n>=1000  child groups seeded in the native (SQLite) store
  --settle <s>=2            seconds a fresh process idles before its idle RSS is read
  --parts <list>            any of ${PARTS.join(',')} (default all)
  --loadgen wrk|autocannon  REST load generator (default: wrk when installed)
  --grpc-client h2load|grpc-js|connect  gRPC load generator (default: h2load when installed; else our own
                            generator on grpc-js, which spends more CPU a call than the servers it loads)
  --log-level <level>=info  the gateway's log level (info is its default; lines go to /dev/null)
  --node-arg <flag>         the Node flags of every gateway process (repeatable; default ${GATEWAY_NODE_ARGS.join(' ')},
                            as the image and npm start run it; --node-arg= for none)
  --gateway-env <K=V>       the environment every gateway process adds (repeatable; default ${GATEWAY_ENV.join(' ')},
                            as the image and npm start run it; --gateway-env= for none)
  --gateway-flag <flag>     a src/config.ts flag for every gateway process (repeatable)
  --floor-node-arg <flag>   a Node flag for every floor process (repeatable; default none, Node's own settings):
                            --floor-node-arg=--max-semi-space-size=4 ... runs the floors as the gateway runs, so a
                            ratio tells the gateway's code apart from its memory settings
  --no-pin                  do not pin processes to cores with taskset
  --json <file>             write every figure to this file
`);
  process.exit(0);
}
const settings = {
  duration: intOption('duration', flags.duration, 1, 300),
  warmup: intOption('warmup', flags.warmup, 0, 60),
  rounds: intOption('rounds', flags.rounds, 1, 10),
  connections: intOption('connections', flags.connections, 1, 512),
  c1Duration: intOption('c1-duration', flags['c1-duration'], 1, 300),
  compareConnections: intOption('compare-connections', flags['compare-connections'], 1, 512),
  groups: intOption('groups', flags.groups, 51, 100_000),
  walkGroups: intOption('walk-groups', flags['walk-groups'], 51, 100_000),
  walkUncachedPages: intOption('walk-uncached-pages', flags['walk-uncached-pages'], 2, 10_000),
  nativeGroups: intOption('native-groups', flags['native-groups'], 51, 100_000),
  settle: intOption('settle', flags.settle, 0, 60),
};
const parts = new Set(flags.parts.split(',').map((p) => p.trim()));
for (const p of parts) {
  if (!(PARTS as readonly string[]).includes(p)) {
    process.stderr.write(`bench: --parts: unknown part ${JSON.stringify(p)} (known: ${PARTS.join(', ')})\n`);
    process.exit(2);
  }
}
const loadgen = flags.loadgen ?? (wrkAvailable() ? 'wrk' : 'autocannon');
if (loadgen !== 'wrk' && loadgen !== 'autocannon') {
  process.stderr.write(`bench: --loadgen: wrk or autocannon, got ${JSON.stringify(loadgen)}\n`);
  process.exit(2);
}
const restLoader: RestLoader = loadgen === 'wrk' ? wrkLoad : restLoad;
const grpcClient = (flags['grpc-client'] ?? (h2loadAvailable() ? 'h2load' : 'grpc-js')) as GrpcLoadKind;
if (!GRPC_LOAD_KINDS.includes(grpcClient)) {
  process.stderr.write(`bench: --grpc-client: one of ${GRPC_LOAD_KINDS.join(', ')}\n`);
  process.exit(2);
}
// Read before this process is pinned: availableParallelism() counts only the cores it may use.
const CPUS = availableParallelism();
const pin = pinning(!flags['no-pin']);
pinSelf(pin);
const server = (command: string, args: string[]) => pin.command('server', command, args);
const support = (command: string, args: string[]) => pin.command('support', command, args);
/** Every gateway as bench/lib/gateway-defaults.ts runs it, at the configured log level, plus what the command line adds. */
const gatewayFlags = [...benchGatewayFlags(flags['log-level']), ...flags['gateway-flag']];
const gatewayNodeArgs = flags['node-arg'].filter((arg) => arg !== '');
const floorNodeArgs = flags['floor-node-arg'].filter((arg) => arg !== '');
const gatewayEnv = envOf(flags['gateway-env']);
const TOKEN_KEY = 'bench-page-token-key-0123456789';

// ---- one part: servers, probes, alternating load, memory -------------------

interface Measured {
  /** Target label → pooled figures. */
  load: Record<string, Summary>;
  /** Process label → RSS after settling, before any load. */
  idle: Record<string, Resident>;
  /** Process label → RSS at the end (peak: the most it ever held). */
  after: Record<string, Resident>;
  warmupFailures: Record<string, number>;
}

function residentOf(processes: Record<string, Server>): Record<string, Resident> {
  return Object.fromEntries(Object.entries(processes).map(([label, s]) => [label, resident(s.child.pid)]));
}

function grpcSettings(callers: number): GrpcSettings {
  return { client: grpcClient, callers, sessions: callers, acceptGzip: false };
}

/** Loads `targets` (built once the processes run) against each other, after an idle reading. */
async function loadAgainst(
  name: string,
  processes: Record<string, Server>,
  v1Pid: number | undefined,
  runs: Array<{ connections: number; duration: number; warmup: number; targets: Target[]; name: string }>,
  afterWarmup?: () => void,
): Promise<Measured> {
  await sleep(settings.settle * 1000);
  const idle = residentOf(processes);
  const load: Record<string, Summary> = {};
  const warmupFailures: Record<string, number> = {};
  const pids = { ...(v1Pid ? { v1: v1Pid } : {}), ...Object.fromEntries(Object.entries(processes).map(([label, s]) => [label, s.child.pid])) };
  for (const run of runs) {
    const { summaries, warmupFailures: w } = await compareAll(run.targets, { pids, duration: run.duration, warmup: run.warmup, rounds: settings.rounds, name: `${name} ${run.name}`, ...(afterWarmup ? { afterWarmup } : {}) });
    run.targets.forEach((t, i) => (load[`${run.name} ${t.label}`] = summaries[i]!));
    Object.assign(warmupFailures, w);
  }
  return { load, idle, after: residentOf(processes), warmupFailures };
}

async function stopAll(servers: Array<{ child: { stop(): Promise<void> } }>): Promise<void> {
  for (const s of servers.reverse()) await s.child.stop();
}

/** The Get target of the floor's forward in a Fastify route. */
const FASTIFY_FLOOR = 'floor Fastify';

/** The target of the least translation (bench/translation-floor-process.ts): v1's answer parsed whole, the served rows rendered. */
const TRANSLATING_FLOOR = 'floor translating';

/** The gRPC Get target of the least translation (bench/grpc-translation-floor-process.ts). */
const GRPC_TRANSLATING_FLOOR = 'floor gRPC translating';

/**
 * The Get targets of the least translation with the gateway's default duties (bench/duty-floor-process.ts,
 * bench/grpc-translation-floor-process.ts --duties): goal 3's anchors, the gateway's Get at most 1.11x their
 * CPU per answer (0.9x their answers per CPU).
 */
const DUTY_FLOOR = 'floor translating with the default duties';
const GRPC_DUTY_FLOOR = 'floor gRPC translating with the default duties';
const DUTY_GOAL = 1.11;

/** The List target whose gateway reads every v1 answer afresh (`--list-scan-cache-bytes 0`). */
const FRESH = 'gateway REST, each answer read afresh';
/** The same over gRPC, read against the gRPC translating floor. */
const GRPC_FRESH = 'gateway gRPC, each answer read afresh';

/** Get or List against the floor, direct v1 and the gateway (REST, and gRPC in a gateway process of its own). */
async function translatePart(key: ScenarioKey, omitTimes: boolean, withGrpc: boolean, withC1: boolean, changing = false): Promise<Measured> {
  const emulator = await startEmulator(settings.groups, { omitTimes, changing, launch: support });
  const started: Server[] = [];
  try {
    const scenario = scenarioFor(key, emulator.org, emulator.group);
    const floor = await startFloor('floor', emulator.url, { launch: server, nodeArgs: floorNodeArgs });
    started.push(floor);
    // The least a translator spends on the same answer (bench/translation-floor-process.ts): read where v1
    // sends times and its list stays as it is, once per scenario.
    const translatingFloor = !omitTimes && !changing ? await startFloor('floor-translating', emulator.url, { launch: server, nodeArgs: floorNodeArgs, kind: 'translating', args: scenario.translating.args }) : undefined;
    if (translatingFloor) started.push(translatingFloor);
    // What Fastify costs before the gateway does anything (bench/fastify-floor-process.ts): read on the Get,
    // whose gap to the floor is the one its target is about.
    const fastifyFloor = key === 'get' ? await startFloor('floor-fastify', emulator.url, { launch: server, nodeArgs: floorNodeArgs, kind: 'fastify' }) : undefined;
    if (fastifyFloor) started.push(fastifyFloor);
    // The Get's least translation in a Fastify route with the duties issue 40 names as always on: goal 3's anchor.
    const dutyFloor = key === 'get' ? await startFloor('floor-duties', emulator.url, { launch: server, nodeArgs: floorNodeArgs, kind: 'duties', args: scenario.translating.args }) : undefined;
    if (dutyFloor) started.push(dutyFloor);
    const gateway = await startGateway('gateway', emulator.url, { flags: gatewayFlags, nodeArgs: gatewayNodeArgs, env: gatewayEnv, launch: server });
    started.push(gateway);
    const grpcGateway = withGrpc ? await startGateway('gateway-grpc', emulator.url, { flags: gatewayFlags, nodeArgs: gatewayNodeArgs, env: gatewayEnv, launch: server }) : undefined;
    if (grpcGateway) started.push(grpcGateway);
    // The emulator answers every List with the same bytes, which the gateway reads once (list-scan-memo.ts);
    // a gateway that reads each answer afresh shows what a page costs when v1's list changes between calls.
    const freshGateway = key === 'list' ? await startGateway('gateway-fresh', emulator.url, { flags: [...gatewayFlags, '--list-scan-cache-bytes', '0'], nodeArgs: gatewayNodeArgs, env: gatewayEnv, launch: server }) : undefined;
    if (freshGateway) started.push(freshGateway);
    const grpcFreshGateway = key === 'list' && withGrpc && !omitTimes && !changing ? await startGateway('gateway-grpc-fresh', emulator.url, { flags: [...gatewayFlags, '--list-scan-cache-bytes', '0'], nodeArgs: gatewayNodeArgs, env: gatewayEnv, launch: server }) : undefined;
    if (grpcFreshGateway) started.push(grpcFreshGateway);
    const grpcFloor = withGrpc ? await startGrpcFloor('floor-grpc', emulator.url, scenario.v1.path, { launch: server, nodeArgs: floorNodeArgs }) : undefined;
    if (grpcFloor) started.push(grpcFloor);
    // The gRPC Get's least translation, read beside the gRPC floor as the REST one beside the raw floor.
    const rpc = `${scenario.grpc.method.parent.typeName}/${scenario.grpc.method.name}`;
    const grpcTranslatingFloor = withGrpc && (key === 'get' || (key === 'list' && !omitTimes && !changing)) ? await startGrpcFloor('floor-grpc-translating', emulator.url, scenario.v1.path, { launch: server, nodeArgs: floorNodeArgs, kind: 'translating', args: [...scenario.translating.args, '--rpc', rpc] }) : undefined;
    if (grpcTranslatingFloor) started.push(grpcTranslatingFloor);
    const grpcDutyFloor = withGrpc && key === 'get' ? await startGrpcFloor('floor-grpc-duties', emulator.url, scenario.v1.path, { launch: server, nodeArgs: floorNodeArgs, kind: 'duties', args: [...scenario.translating.args, '--rpc', rpc] }) : undefined;
    if (grpcDutyFloor) started.push(grpcDutyFloor);
    await probeUrl('floor', `${floor.url}${scenario.v1.path}`, scenario.v1.check);
    if (fastifyFloor) await probeUrl(FASTIFY_FLOOR, `${fastifyFloor.url}${scenario.v1.path}`, scenario.v1.check);
    if (translatingFloor) await probeUrl(TRANSLATING_FLOOR, `${translatingFloor.url}${scenario.v1.path}`, scenario.translating.check);
    if (dutyFloor) await probeUrl(DUTY_FLOOR, `${dutyFloor.url}${scenario.v1.path}`, scenario.translating.check);
    await probeUrl('direct v1', `${emulator.url}${scenario.v1.path}`, scenario.v1.check);
    await probeRest('gateway REST', gateway.url, scenario);
    if (freshGateway) await probeRest(FRESH, freshGateway.url, scenario);
    if (grpcGateway) await probeGrpc('gateway gRPC', grpcGateway.url, scenario, grpcSettings(1));
    if (grpcFreshGateway) await probeGrpc(GRPC_FRESH, grpcFreshGateway.url, scenario, grpcSettings(1));
    // The gRPC floor's message is v1's bytes in a field no response has: checked only for answering OK.
    if (grpcFloor) await probeGrpc('gRPC floor', grpcFloor.url, { ...scenario, check: () => undefined }, grpcSettings(1));
    if (grpcTranslatingFloor) await probeGrpc(GRPC_TRANSLATING_FLOOR, grpcTranslatingFloor.url, { ...scenario, check: scenario.translating.check }, grpcSettings(1));
    if (grpcDutyFloor) await probeGrpc(GRPC_DUTY_FLOOR, grpcDutyFloor.url, { ...scenario, check: scenario.translating.check }, grpcSettings(1));
    const closers: Array<() => void> = [];
    const targets = (connections: number): Target[] => {
      const list: Target[] = [
        urlTarget('floor', 'floor', `${floor.url}${scenario.v1.path}`, connections, restLoader),
        ...(fastifyFloor ? [urlTarget(FASTIFY_FLOOR, 'floor-fastify', `${fastifyFloor.url}${scenario.v1.path}`, connections, restLoader)] : []),
        ...(translatingFloor ? [urlTarget(TRANSLATING_FLOOR, 'floor-translating', `${translatingFloor.url}${scenario.v1.path}`, connections, restLoader)] : []),
        ...(dutyFloor ? [urlTarget(DUTY_FLOOR, 'floor-duties', `${dutyFloor.url}${scenario.v1.path}`, connections, restLoader)] : []),
        urlTarget('direct v1', 'v1', `${emulator.url}${scenario.v1.path}`, connections, restLoader),
        restTarget('gateway REST', 'gateway', gateway.url, scenario, connections, restLoader),
        ...(freshGateway ? [restTarget(FRESH, 'gateway-fresh', freshGateway.url, scenario, connections, restLoader)] : []),
      ];
      for (const [label, proc, running] of [['floor gRPC', 'floor-grpc', grpcFloor], [GRPC_TRANSLATING_FLOOR, 'floor-grpc-translating', grpcTranslatingFloor], [GRPC_DUTY_FLOOR, 'floor-grpc-duties', grpcDutyFloor], ['gateway gRPC', 'gateway-grpc', grpcGateway], [GRPC_FRESH, 'gateway-grpc-fresh', grpcFreshGateway]] as const) {
        if (!running) continue;
        const grpc = grpcTarget(label, proc, running.url, scenario, grpcSettings(connections));
        closers.push(grpc.close);
        list.push(grpc);
      }
      return list;
    };
    const processes: Record<string, Server> = { floor, ...(fastifyFloor ? { 'floor-fastify': fastifyFloor } : {}), ...(translatingFloor ? { 'floor-translating': translatingFloor } : {}), ...(dutyFloor ? { 'floor-duties': dutyFloor } : {}), gateway, ...(freshGateway ? { 'gateway-fresh': freshGateway } : {}), ...(grpcGateway ? { 'gateway-grpc': grpcGateway } : {}), ...(grpcFreshGateway ? { 'gateway-grpc-fresh': grpcFreshGateway } : {}), ...(grpcFloor ? { 'floor-grpc': grpcFloor } : {}), ...(grpcTranslatingFloor ? { 'floor-grpc-translating': grpcTranslatingFloor } : {}), ...(grpcDutyFloor ? { 'floor-grpc-duties': grpcDutyFloor } : {}) };
    const name = `${scenario.name}${omitTimes ? ' (v1 omits times)' : ''}${changing ? ' (v1 changing)' : ''}`;
    try {
      return await loadAgainst(name, processes, emulator.child.pid, [
        { name: `c=${settings.connections}`, connections: settings.connections, duration: settings.duration, warmup: settings.warmup, targets: targets(settings.connections) },
        // Warm already from the c=50 load: no second warm-up.
        ...(withC1 ? [{ name: 'c=1', connections: 1, duration: settings.c1Duration, warmup: 0, targets: targets(1) }] : []),
      ]);
    } finally {
      closers.forEach((close) => close());
    }
  } finally {
    await stopAll(started);
    await emulator.child.stop();
  }
}

interface WalkResult {
  groups: number;
  cached: Walked;
  uncached: Walked;
}

async function walkPart(): Promise<WalkResult> {
  const emulator = await startEmulator(settings.walkGroups, { launch: support });
  const cached = await startGateway('gateway-walk-cache', emulator.url, { flags: [...gatewayFlags, '--debug-headers'], nodeArgs: gatewayNodeArgs, env: gatewayEnv, launch: server });
  const uncached = await startGateway('gateway-no-walk-cache', emulator.url, { flags: [...gatewayFlags, '--debug-headers', '--walk-cache-ms', '0'], nodeArgs: gatewayNodeArgs, env: gatewayEnv, launch: server });
  try {
    process.stderr.write(`bench: walk of ${settings.walkGroups} groups: warm-up\n`);
    await walk(cached.url, emulator.org, 50);
    await walk(uncached.url, emulator.org, 50, 3);
    process.stderr.write('bench: walk: measuring\n');
    return {
      groups: settings.walkGroups,
      cached: await walk(cached.url, emulator.org, 50),
      // Every page without the cache costs the same full v1 list: a sample of them gives the mean later page.
      uncached: await walk(uncached.url, emulator.org, 50, settings.walkUncachedPages),
    };
  } finally {
    await stopAll([cached, uncached]);
    await emulator.child.stop();
  }
}

/** The native gateway (SQLite) under each load, a fresh process per load so each peak is that load's. */
async function nativePart(): Promise<Record<ScenarioKey, Measured>> {
  const dir = mkdtempSync(join(tmpdir(), 'v2gw-bench-native-'));
  const remove = onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  try {
    process.stderr.write(`bench: native: seeding ${settings.nativeGroups} groups\n`);
    const { org, group } = await seedNative(dir, settings.nativeGroups);
    const out: Partial<Record<ScenarioKey, Measured>> = {};
    for (const key of ['get', 'list'] as const) {
      const gateway = await startGateway('gateway-native', undefined, { flags: [...gatewayFlags, '--mode', 'native', '--data-dir', dir, '--page-token-key', TOKEN_KEY], nodeArgs: gatewayNodeArgs, env: gatewayEnv, launch: server });
      try {
        const scenario: Scenario = scenarioFor(key, org, group);
        await probeRest('native gateway', gateway.url, scenario);
        out[key] = await loadAgainst(`native ${scenario.name}`, { 'gateway-native': gateway }, undefined, [
          { name: `c=${settings.connections}`, connections: settings.connections, duration: settings.duration, warmup: settings.warmup, targets: [restTarget('native REST', 'gateway-native', gateway.url, scenario, settings.connections, restLoader)] },
        ]);
      } finally {
        await gateway.child.stop();
      }
    }
    return out as Record<ScenarioKey, Measured>;
  } finally {
    remove();
  }
}

/**
 * Comparison off, and on at sample 1 with a candidate whose answers equal the primary's or differ from them in
 * one field: three primaries over one emulator; each candidate over an emulator of its own with the same rows.
 */
const COMPARE_OFF = 'comparison off';
const COMPARE_EQUAL = 'comparison at sample 1';
const COMPARE_DIFFER = 'comparison at sample 1, answers differ in one field';
/**
 * The translating floor, and the same asking the equal candidate after every answer, on its event loop or on a
 * worker thread (`--compare-on-worker`): label, process, where it compares (none: it does not).
 */
const FLOOR_OFF = TRANSLATING_FLOOR;
const FLOOR_COMPARING = `${TRANSLATING_FLOOR}, comparing every request`;
const FLOOR_COMPARING_PROCESS = 'floor-translating-compare';
const FLOOR_ON_WORKER = `${TRANSLATING_FLOOR}, comparing every request on a worker`;
const FLOOR_ON_WORKER_PROCESS = 'floor-translating-compare-worker';
const FLOOR_COMPARE_TARGETS = [[FLOOR_OFF, 'floor-translating', undefined], [FLOOR_COMPARING, FLOOR_COMPARING_PROCESS, 'event loop'], [FLOOR_ON_WORKER, FLOOR_ON_WORKER_PROCESS, 'worker']] as const;
/** The least comparison's two ways, each read against the floor off: label, process, what the table calls it. */
const LEAST_COMPARISONS = [[FLOOR_COMPARING, FLOOR_COMPARING_PROCESS, 'the least comparison'], [FLOOR_ON_WORKER, FLOOR_ON_WORKER_PROCESS, 'the least comparison on a worker']] as const;

/** Label, process, the candidate it compares with. */
const COMPARE_TARGETS = [[COMPARE_OFF, 'gateway', undefined], [COMPARE_EQUAL, 'gateway-compare-1', 'equal'], [COMPARE_DIFFER, 'gateway-compare-differ', 'differ']] as const;
/** What the differing candidate's v1 adds to every group's description. */
const DIFFERENT_DESCRIPTION = ' (as the candidate has it)';

type CompareCounts = Record<'compared' | 'equal' | 'dropped' | 'errors', number>;

/** A comparing primary's counts so far, summed over methods. */
async function compareCounts(proc: string, url: string): Promise<CompareCounts> {
  if (proc === FLOOR_COMPARING_PROCESS || proc === FLOOR_ON_WORKER_PROCESS) {
    // The comparing floor's own counts: a comparison it skipped (1,000 waiting) is one a gateway drops.
    const floor = await (await fetch(`${url}/_floor/comparisons`)).json() as Record<'compared' | 'equal' | 'skipped' | 'failed', number>;
    return { compared: floor.compared, equal: floor.equal, dropped: floor.skipped, errors: floor.failed };
  }
  const report = await (await fetch(`${url}/_gateway/compare/report`)).json() as { methods: Array<Record<string, number>> };
  const sum = (key: string) => report.methods.reduce((n, m) => n + (m[key] ?? 0), 0);
  return { compared: sum('compared'), equal: sum('equal'), dropped: sum('dropped'), errors: sum('errors') };
}

interface CompareMeasured extends Measured {
  /** Per comparing primary: what its comparisons came to over the measured load. */
  counts: Record<string, CompareCounts>;
}

async function comparePart(): Promise<CompareMeasured> {
  // Two sides, a core each: the caller (the load generator), the primary and the primary's v1 on the core under
  // test; each candidate and its own v1 (the same rows) on the other, where its work cannot delay the caller's.
  const emulator = await startEmulator(settings.groups, { sameData: true, launch: server });
  const started: Array<{ child: { stop(): Promise<void> } }> = [emulator];
  try {
    const scenario = scenarioFor('get', emulator.org, emulator.group);
    const candidateUrl: Record<'equal' | 'differ', string> = { equal: '', differ: '' };
    for (const kind of ['equal', 'differ'] as const) {
      const v1 = await startEmulator(settings.groups, { sameData: true, ...(kind === 'differ' ? { descriptionSuffix: DIFFERENT_DESCRIPTION } : {}), launch: support });
      started.push(v1);
      if (v1.group !== emulator.group) throw new Error('compare: the candidate\'s v1 does not hold the primary\'s rows');
      const candidate = await startGateway(`candidate-${kind}`, v1.url, { flags: gatewayFlags, nodeArgs: gatewayNodeArgs, env: gatewayEnv, launch: support });
      started.push(candidate);
      // What the primaries ask is the candidate's answer as recorded once (bench/recorded-candidate-process.ts):
      // a candidate slower than the primaries would have comparisons dropped, and their cost left out.
      const recorded = await startFloor(`candidate-${kind}-recorded`, candidate.url, { launch: support, nodeArgs: floorNodeArgs, kind: 'recorded', args: ['--path', scenario.restPath] });
      started.push(recorded);
      candidateUrl[kind] = recorded.url;
    }
    const processes: Record<string, Server> = {};
    // The least a comparing gateway adds (bench/translation-floor-process.ts --compare-with): the translating
    // floor answering alone, and asking the equal candidate the same Get after every answer, on its event loop
    // or on a worker thread of its own.
    for (const [label, proc, where] of FLOOR_COMPARE_TARGETS) {
      const args = [
        ...scenario.translating.args,
        ...(where ? ['--compare-with', candidateUrl.equal, '--compare-path', scenario.restPath] : []),
        ...(where === 'worker' ? ['--compare-on-worker'] : []),
      ];
      processes[proc] = await startFloor(proc, emulator.url, { launch: server, nodeArgs: floorNodeArgs, kind: 'translating', args });
      started.push(processes[proc]);
      await probeUrl(label, `${processes[proc].url}${scenario.v1.path}`, scenario.translating.check);
    }
    for (const [label, proc, against] of COMPARE_TARGETS) {
      // A differing answer is read again after --compare-retry-ms (250 ms) by default; the figure is one ask each.
      const compare = against ? ['--compare-with', candidateUrl[against], '--compare-sample', '1', ...(against === 'differ' ? ['--compare-retry-ms', '0'] : [])] : [];
      processes[proc] = await startGateway(proc, emulator.url, { flags: [...gatewayFlags, ...compare], nodeArgs: gatewayNodeArgs, env: gatewayEnv, launch: server });
      started.push(processes[proc]);
      await probeRest(label, processes[proc].url, scenario);
    }
    // wrk beside the primary, on its core: at c=1 the caller waits on the primary anyway.
    const loader: RestLoader = loadgen === 'wrk' ? (url, headers, connections, seconds) => wrkLoad(url, headers, connections, seconds, server) : restLoader;
    const targets = (connections: number, which: readonly string[]) => [
      ...COMPARE_TARGETS.filter(([label]) => which.includes(label)).map(([label, proc]) => restTarget(label, proc, processes[proc]!.url, scenario, connections, loader)),
      ...FLOOR_COMPARE_TARGETS.filter(([label]) => which.includes(label)).map(([label, proc]) => urlTarget(label, proc, `${processes[proc]!.url}${scenario.v1.path}`, connections, loader)),
    ];
    const comparing = [...COMPARE_TARGETS.filter(([, , against]) => against).map(([, proc]) => proc), FLOOR_COMPARING_PROCESS, FLOOR_ON_WORKER_PROCESS];
    const before = Object.fromEntries(await Promise.all(comparing.map(async (proc) => [proc, await compareCounts(proc, processes[proc]!.url)] as const)));
    // The comparison's worker thread (the gateway names it, and the least comparison's on a worker) goes to the
    // candidates' core; the rest of every primary stays on the caller's (bench/lib/pin.ts).
    const threadsApart = () => Object.values(processes).forEach((p) => {
      for (const name of [COMPARISON_THREAD, FLOOR_COMPARISON_THREAD]) moveThreadsNamed(pin, p.child.pid, name);
    });
    threadsApart();
    const c = `c=${settings.compareConnections}`;
    // Every request compared (sample 1): the CPU a compared request costs is the difference per request, not
    // a difference divided by a share. c=1: the caller's p50 with every request compared against none.
    const measured = await loadAgainst('Get with comparison', processes, emulator.child.pid, [
      { name: c, connections: settings.compareConnections, duration: settings.duration, warmup: settings.warmup, targets: targets(settings.compareConnections, [COMPARE_OFF, COMPARE_EQUAL, COMPARE_DIFFER, FLOOR_OFF, FLOOR_COMPARING, FLOOR_ON_WORKER]) },
      { name: 'c=1', connections: 1, duration: settings.c1Duration, warmup: 0, targets: targets(1, [COMPARE_OFF, COMPARE_EQUAL, FLOOR_OFF, FLOOR_COMPARING, FLOOR_ON_WORKER]) },
    ], threadsApart);
    const counts: Record<string, CompareCounts> = {};
    for (const proc of comparing) {
      const after = await compareCounts(proc, processes[proc]!.url);
      counts[proc] = { compared: after.compared - before[proc]!.compared, equal: after.equal - before[proc]!.equal, dropped: after.dropped - before[proc]!.dropped, errors: after.errors - before[proc]!.errors };
      process.stderr.write(`bench: compare: ${proc}: compared ${counts[proc].compared} (equal ${counts[proc].equal}), dropped ${counts[proc].dropped}, errors ${counts[proc].errors}\n`);
    }
    return { ...measured, counts };
  } finally {
    await stopAll(started);
  }
}

// ---- the table ---------------------------------------------------------------

/** Gateway target and process, each beside the floor (target, process) of its own protocol. */
const PROTOCOL_PAIRS = [
  ['gateway REST', 'gateway', 'floor', 'floor'],
  ['gateway gRPC', 'gateway-grpc', 'floor gRPC', 'floor-grpc'],
] as const;

/** Goal 3's pairs: the gateway (target, process) against its protocol's duty floor, and the translating floor below it. */
const DUTY_PAIRS = [
  ['gateway REST', 'gateway', DUTY_FLOOR, 'floor-duties', TRANSLATING_FLOOR, 'floor-translating'],
  ['gateway gRPC', 'gateway-grpc', GRPC_DUTY_FLOOR, 'floor-grpc-duties', GRPC_TRANSLATING_FLOOR, 'floor-grpc-translating'],
] as const;

interface Results {
  get?: Measured;
  list?: Measured;
  listOmit?: Measured;
  listChurn?: Measured;
  walk?: WalkResult;
  native?: Record<ScenarioKey, Measured>;
  compare?: CompareMeasured;
}

function goals(r: Results): Goal[] {
  const c = `c=${settings.connections}`;
  const out: Goal[] = [];
  const cpu = (m: Measured, target: string, processLabel: string) => m.load[target]?.cpuUsPerReq[processLabel] ?? Number.NaN;
  if (r.get) {
    const g = r.get.load;
    const floor = g[`${c} floor`]!;
    // Each protocol against the floor of its own protocol: gRPC's costs its client and HTTP/2 more than HTTP/1.1's.
    for (const [label, proc, floorLabel, floorProc] of PROTOCOL_PAIRS) {
      const m = g[`${c} ${label}`];
      const f = g[`${c} ${floorLabel}`];
      if (!m || !f) continue;
      out.push(atLeastTimes(`Get ${c}, ${label}: req/s`, m.reqPerSec, f.reqPerSec, 0.75, units.reqPerSec, floorLabel));
      out.push(reported(`Get ${c}, ${label}: CPU per request`, units.us(m.cpuUsPerReq[proc]!), `${floorLabel} ${units.us(f.cpuUsPerReq[floorProc]!)}`, units.times(m.cpuUsPerReq[proc]! / f.cpuUsPerReq[floorProc]!)));
    }
    // The Get's gap in two steps: what Fastify costs over the floor, and what the gateway does over Fastify.
    const fastifyFloor = g[`${c} ${FASTIFY_FLOOR}`];
    const rest = g[`${c} gateway REST`];
    if (fastifyFloor) {
      out.push(reported(`Get ${c}, ${FASTIFY_FLOOR}: req/s (CPU per request)`, `${units.reqPerSec(fastifyFloor.reqPerSec)} (${units.us(fastifyFloor.cpuUsPerReq['floor-fastify']!)})`, `floor ${units.reqPerSec(floor.reqPerSec)}`, units.times(fastifyFloor.reqPerSec / floor.reqPerSec)));
      if (rest) out.push(reported(`Get ${c}, gateway REST against the ${FASTIFY_FLOOR}: req/s`, units.reqPerSec(rest.reqPerSec), `${FASTIFY_FLOOR} ${units.reqPerSec(fastifyFloor.reqPerSec)}`, units.times(rest.reqPerSec / fastifyFloor.reqPerSec)));
    }
    // The least translation's Get (v1's answer parsed, the row rendered): what is left above it is the gateway's own work.
    const translating = g[`${c} ${TRANSLATING_FLOOR}`];
    if (translating) {
      out.push(reported(`Get ${c}, ${TRANSLATING_FLOOR}: req/s (CPU per request)`, `${units.reqPerSec(translating.reqPerSec)} (${units.us(translating.cpuUsPerReq['floor-translating']!)})`, `floor ${units.reqPerSec(floor.reqPerSec)}`, units.times(translating.reqPerSec / floor.reqPerSec)));
      if (rest) out.push(reported(`Get ${c}, gateway REST against the ${TRANSLATING_FLOOR}: req/s`, units.reqPerSec(rest.reqPerSec), `${TRANSLATING_FLOOR} ${units.reqPerSec(translating.reqPerSec)}`, units.times(rest.reqPerSec / translating.reqPerSec)));
    }
    const grpcFloor = g[`${c} floor gRPC`];
    if (grpcFloor) out.push(reported(`Get ${c}, floor gRPC: req/s (CPU per request)`, `${units.reqPerSec(grpcFloor.reqPerSec)} (${units.us(grpcFloor.cpuUsPerReq['floor-grpc']!)})`, `floor ${units.reqPerSec(floor.reqPerSec)}`, units.times(grpcFloor.reqPerSec / floor.reqPerSec)));
    // The same two steps over gRPC: the least translation against the gRPC floor, the gateway against it.
    const grpcTranslating = g[`${c} ${GRPC_TRANSLATING_FLOOR}`];
    const grpcGateway = g[`${c} gateway gRPC`];
    if (grpcTranslating && grpcFloor) {
      out.push(reported(`Get ${c}, ${GRPC_TRANSLATING_FLOOR}: req/s (CPU per request)`, `${units.reqPerSec(grpcTranslating.reqPerSec)} (${units.us(grpcTranslating.cpuUsPerReq['floor-grpc-translating']!)})`, `floor gRPC ${units.reqPerSec(grpcFloor.reqPerSec)}`, units.times(grpcTranslating.reqPerSec / grpcFloor.reqPerSec)));
      if (grpcGateway) out.push(reported(`Get ${c}, gateway gRPC against the ${GRPC_TRANSLATING_FLOOR}: req/s`, units.reqPerSec(grpcGateway.reqPerSec), `${GRPC_TRANSLATING_FLOOR} ${units.reqPerSec(grpcTranslating.reqPerSec)}`, units.times(grpcGateway.reqPerSec / grpcTranslating.reqPerSec)));
    }
    // Goal 3: each protocol's Get against the least translation with the default duties, in CPU per answer;
    // the duty floor itself against the translating floor is what Fastify (REST) and the duties cost.
    for (const [label, proc, dutyLabel, dutyProc, translatingLabel, translatingProc] of DUTY_PAIRS) {
      const duty = g[`${c} ${dutyLabel}`];
      const least = g[`${c} ${translatingLabel}`];
      const m = g[`${c} ${label}`];
      if (!duty) continue;
      const dutyCpu = duty.cpuUsPerReq[dutyProc]!;
      if (least) out.push(reported(`Get ${c}, ${dutyLabel}: CPU per request (req/s)`, `${units.us(dutyCpu)} (${units.reqPerSec(duty.reqPerSec)})`, `${translatingLabel} ${units.us(least.cpuUsPerReq[translatingProc]!)}`, units.times(dutyCpu / least.cpuUsPerReq[translatingProc]!)));
      if (m) out.push(atMostTimes(`Get ${c}, ${label} against the ${dutyLabel}: CPU per request`, m.cpuUsPerReq[proc]!, dutyCpu, DUTY_GOAL, units.us, dutyLabel));
    }
    const direct = g[`${c} direct v1`]!;
    out.push(reported(`Get ${c}, direct v1: req/s (CPU per request)`, `${units.reqPerSec(direct.reqPerSec)} (${units.us(direct.cpuUsPerReq.v1!)})`, `floor ${units.reqPerSec(floor.reqPerSec)}`, units.times(direct.reqPerSec / floor.reqPerSec)));
    for (const [label, , floorLabel] of PROTOCOL_PAIRS) {
      const m = g[`c=1 ${label}`];
      const floor1 = g[`c=1 ${floorLabel}`];
      if (!m || !floor1) continue;
      out.push(atMost(`Get c=1, ${label}: p50 added over the ${floorLabel}`, (m.p50Ms - floor1.p50Ms) * 1000, 100, units.us, `${floorLabel} p50 ${units.us(floor1.p50Ms * 1000)}`));
    }
  }
  for (const [m, what] of [[r.list, 'v1 sends times'], [r.listOmit, 'v1 omits times'], [r.listChurn, 'v1 changes a row between answers']] as const) {
    if (!m) continue;
    for (const [label, proc, floorLabel, floorProc] of PROTOCOL_PAIRS) {
      if (!m.load[`${c} ${label}`] || !m.load[`${c} ${floorLabel}`]) continue;
      out.push(atMostTimes(`List page of 50 of ${settings.groups} (${what}), ${label}: CPU per page`, cpu(m, `${c} ${label}`, proc), cpu(m, `${c} ${floorLabel}`, floorProc), 2, units.us, `${floorLabel} forwarding the whole list`));
    }
    if (m.load[`${c} ${FRESH}`]) {
      out.push(atMostTimes(`List page of 50 of ${settings.groups} (${what}), ${FRESH}: CPU per page`, cpu(m, `${c} ${FRESH}`, 'gateway-fresh'), cpu(m, `${c} floor`, 'floor'), 2, units.us, 'floor forwarding the whole list'));
    }
    // The least a page read afresh can cost (the whole list parsed, 50 rows rendered), beside the floor, and the fresh gateway beside it.
    if (m.load[`${c} ${TRANSLATING_FLOOR}`]) {
      const least = cpu(m, `${c} ${TRANSLATING_FLOOR}`, 'floor-translating');
      out.push(reported(`List page of 50 of ${settings.groups} (${what}), ${TRANSLATING_FLOOR}: CPU per page`, units.us(least), `floor ${units.us(cpu(m, `${c} floor`, 'floor'))}`, units.times(least / cpu(m, `${c} floor`, 'floor'))));
      if (m.load[`${c} ${FRESH}`]) out.push(reported(`List (${what}), ${FRESH} against the ${TRANSLATING_FLOOR}: CPU per page`, units.us(cpu(m, `${c} ${FRESH}`, 'gateway-fresh')), `${TRANSLATING_FLOOR} ${units.us(least)}`, units.times(cpu(m, `${c} ${FRESH}`, 'gateway-fresh') / least)));
    }
    if (m.load[`${c} ${GRPC_TRANSLATING_FLOOR}`] && m.load[`${c} ${GRPC_FRESH}`]) {
      const least = cpu(m, `${c} ${GRPC_TRANSLATING_FLOOR}`, 'floor-grpc-translating');
      out.push(reported(`List (${what}), ${GRPC_FRESH} against the ${GRPC_TRANSLATING_FLOOR}: CPU per page`, units.us(cpu(m, `${c} ${GRPC_FRESH}`, 'gateway-grpc-fresh')), `${GRPC_TRANSLATING_FLOOR} ${units.us(least)}`, units.times(cpu(m, `${c} ${GRPC_FRESH}`, 'gateway-grpc-fresh') / least)));
    }
    const rest = m.load[`${c} gateway REST`]!;
    const direct = m.load[`${c} direct v1`]!;
    out.push(reported(`List (${what}), gateway REST: req/s`, units.reqPerSec(rest.reqPerSec), `direct v1 ${units.reqPerSec(direct.reqPerSec)}`, units.times(rest.reqPerSec / direct.reqPerSec)));
  }
  if (r.walk) {
    const { cached, uncached, groups } = r.walk;
    out.push(atMost(`Walk of ${groups} groups, page_size 50: full v1 fetches`, cached.fullFetches, 2, units.count, `${cached.pages} pages, ${cached.v1Calls} v1 calls, ${cached.seconds.toFixed(2)} s`));
    const speedUp = uncached.laterMs / cached.laterMs;
    out.push({
      figure: 'Walk: later pages, speed-up over --walk-cache-ms 0',
      value: `${cached.laterMs.toFixed(1)} ms/page`,
      anchor: `no walk cache ${uncached.laterMs.toFixed(1)} ms/page`,
      ratio: units.times(speedUp),
      target: '≥ 10x',
      met: Number.isFinite(speedUp) ? speedUp >= 10 : undefined,
    });
  }
  if (r.compare) {
    const m = r.compare.load;
    const c = `c=${settings.compareConnections}`;
    const off1 = m[`c=1 ${COMPARE_OFF}`];
    const on1 = m[`c=1 ${COMPARE_EQUAL}`];
    if (off1 && on1) out.push(atMostTimes(`Get c=1, ${COMPARE_EQUAL}: p50`, on1.p50Ms * 1000, off1.p50Ms * 1000, 1.05, units.us, COMPARE_OFF));
    const off = m[`${c} ${COMPARE_OFF}`];
    const offCpu = off?.cpuUsPerReq.gateway;
    // Every request compared: the difference per request is what a compared request costs, beside the Get itself.
    for (const [label, proc, what] of [[COMPARE_EQUAL, 'gateway-compare-1', 'equal answers'], [COMPARE_DIFFER, 'gateway-compare-differ', 'answers that differ in one field']] as const) {
      const on = m[`${c} ${label}`]?.cpuUsPerReq[proc];
      if (offCpu === undefined || on === undefined) continue;
      const counts = r.compare.counts[proc];
      const lost = counts && counts.dropped + counts.errors > 0 ? `; ${counts.dropped} dropped, ${counts.errors} unanswered` : '';
      out.push(atMostTimes(`Get ${c}, CPU each compared request costs the primary, ${what}`, on - offCpu, offCpu, 0.5, units.us, `the Get itself${lost}`));
    }
    // The floor's, each way: the least a comparison adds, against the least translation's own Get; the gateway's
    // against it; the caller's p50 at c=1 against the floor off.
    const floorOff = m[`${c} ${FLOOR_OFF}`]?.cpuUsPerReq['floor-translating'];
    const gatewayOn = m[`${c} ${COMPARE_EQUAL}`]?.cpuUsPerReq['gateway-compare-1'];
    for (const [label, proc, what] of LEAST_COMPARISONS) {
      const floorOn = m[`${c} ${label}`]?.cpuUsPerReq[proc];
      if (floorOff !== undefined && floorOn !== undefined) {
        const counts = r.compare.counts[proc];
        const lost = counts && counts.dropped + counts.errors > 0 ? `; ${counts.dropped} skipped, ${counts.errors} unanswered` : '';
        out.push(reported(`Get ${c}, CPU each compared request costs the ${FLOOR_OFF} (${what})`, units.us(floorOn - floorOff), `its Get${lost} ${units.us(floorOff)}`, units.times((floorOn - floorOff) / floorOff)));
        if (offCpu !== undefined && gatewayOn !== undefined) out.push(reported(`Get ${c}, CPU a compared request costs, equal answers: the gateway against ${what}`, units.us(gatewayOn - offCpu), `the floor's ${units.us(floorOn - floorOff)}`, units.times((gatewayOn - offCpu) / (floorOn - floorOff))));
      }
    }
    const floorOff1 = m[`c=1 ${FLOOR_OFF}`];
    for (const [label] of LEAST_COMPARISONS) {
      const floorOn1 = m[`c=1 ${label}`];
      if (floorOff1 && floorOn1) out.push(reported(`Get c=1, ${label}: p50`, units.us(floorOn1.p50Ms * 1000), `${FLOOR_OFF} ${units.us(floorOff1.p50Ms * 1000)}`, units.times(floorOn1.p50Ms / floorOff1.p50Ms)));
    }
    // The primaries' v1 does the same work for every request, compared or not, on the caller's core: what its
    // CPU per request gains beside a comparing primary is that core running the same work slower (its caches,
    // its share of the host), which the caller's p50 pays too, and no work of the comparison's own.
    for (const conns of ['c=1', c]) {
      for (const [on, off] of [[COMPARE_EQUAL, COMPARE_OFF], [FLOOR_ON_WORKER, FLOOR_OFF]] as const) {
        const v1On = m[`${conns} ${on}`]?.cpuUsPerReq.v1;
        const v1Off = m[`${conns} ${off}`]?.cpuUsPerReq.v1;
        if (v1On !== undefined && v1Off !== undefined) out.push(reported(`Get ${conns}, the same v1 work beside ${on}: v1's CPU per request`, units.us(v1On), `beside ${off} ${units.us(v1Off)}`, units.times(v1On / v1Off)));
      }
    }
  }
  const floorIdle = r.get?.idle.floor ?? r.list?.idle.floor;
  const idleOf = (m: Measured | undefined, label: string) => m?.idle[label]?.rssBytes;
  const idleTranslate = idleOf(r.get, 'gateway') ?? idleOf(r.list, 'gateway');
  const anchorIdle = floorIdle ? `floor ${units.mib(floorIdle.rssBytes)}` : '';
  if (idleTranslate !== undefined) out.push(atMost('RSS idle, translate mode', idleTranslate, 100 * 1024 * 1024, units.mib, anchorIdle));
  const idleNative = idleOf(r.native?.get, 'gateway-native');
  if (idleNative !== undefined) out.push(atMost('RSS idle, native mode (SQLite)', idleNative, 100 * 1024 * 1024, units.mib, anchorIdle));
  for (const [m, native, what] of [[r.get, r.native?.get, 'Get'], [r.list, r.native?.list, 'List']] as const) {
    const floorPeak = m?.after.floor?.peakBytes;
    if (floorPeak === undefined) continue;
    if (m?.after.gateway) out.push(peakAtMostFloor(`RSS peak, ${what} ${c}, translate REST`, m.after.gateway.peakBytes, floorPeak));
    const grpcFloorPeak = m?.after['floor-grpc']?.peakBytes;
    if (m?.after['gateway-grpc'] && grpcFloorPeak !== undefined) out.push(peakAtMostFloor(`RSS peak, ${what} ${c}, translate gRPC`, m.after['gateway-grpc'].peakBytes, grpcFloorPeak, 'floor gRPC'));
    if (native) out.push(peakAtMostFloor(`RSS peak, ${what} ${c}, native (SQLite) REST`, native.after['gateway-native']!.peakBytes, floorPeak));
  }
  return out;
}

function failuresOf(r: Results): Record<string, number> {
  const all: Record<string, number> = {};
  const add = (part: string, m: Measured | undefined) => {
    if (!m) return;
    for (const [target, s] of Object.entries(m.load)) for (const [kind, n] of Object.entries(s.failures)) all[`${part} ${target}: ${kind}`] = n;
    for (const [kind, n] of Object.entries(m.warmupFailures)) all[`${part} ${kind}`] = n;
  };
  add('get', r.get);
  add('list', r.list);
  add('list-omit', r.listOmit);
  add('list-churn', r.listChurn);
  add('native get', r.native?.get);
  add('native list', r.native?.list);
  add('compare', r.compare);
  return all;
}

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'bench', 'mappings'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head}+changes` : head;
  } catch {
    return 'unknown';
  }
}

// ---- main ------------------------------------------------------------------

async function main(): Promise<number> {
  const machine = { cpus: CPUS, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${process.platform} ${process.arch}` };
  process.stderr.write(
    `bench: ${machine.cpus} CPUs (${machine.cpuModel}), node ${machine.node}, load generators ${loadgen} (REST) and ${grpcClient} (gRPC); ` +
      (pin.active ? `servers under test pinned to core ${pin.cores.server}, the rest to ${pin.cores.support}\n` : 'nothing pinned (no taskset, or one core)\n'),
  );
  const results: Results = {};
  if (parts.has('get')) results.get = await translatePart('get', false, true, true);
  if (parts.has('list')) results.list = await translatePart('list', false, true, false);
  if (parts.has('list-omit')) results.listOmit = await translatePart('list', true, false, false);
  if (parts.has('list-churn')) results.listChurn = await translatePart('list', false, false, false, true);
  if (parts.has('walk')) results.walk = await walkPart();
  if (parts.has('native')) results.native = await nativePart();
  if (parts.has('compare')) results.compare = await comparePart();

  const table = goals(results);
  const failures = failuresOf(results);
  const sha = commit();
  process.stdout.write(`\n${goalsTable(table)}\n\n`);
  process.stdout.write(
    `Commit ${sha}; ${machine.cpus} × ${machine.cpuModel}; Node ${machine.node}; load generators ${loadgen} (REST), ${grpcClient} (gRPC)` +
      `${pin.active ? `; servers under test on core ${pin.cores.server}, load generator and emulator on ${pin.cores.support}` : '; not pinned'}; ` +
      `${settings.rounds} rounds × ${settings.duration} s per target after ${settings.warmup} s warm-up; gateway log level ${flags['log-level']}` +
      `${gatewayNodeArgs.length ? `; gateway node flags ${gatewayNodeArgs.join(' ')}` : ''}` +
      `; floor node flags ${floorNodeArgs.length ? floorNodeArgs.join(' ') : 'none (Node\'s own settings)'}.\n`,
  );
  if (flags.json) {
    writeFileSync(flags.json, `${JSON.stringify({ date: new Date().toISOString(), commit: sha, machine, loadgen, grpcLoad: grpcClient, pinning: pin.active ? pin.cores : null, settings, flags, results, goals: table, failures }, null, 2)}\n`);
    process.stderr.write(`bench: wrote ${flags.json}\n`);
  }
  if (failureCount(failures) > 0) {
    process.stderr.write(`bench: FAILED: answers that were not OK: ${JSON.stringify(failures)}\n`);
    return 1;
  }
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (error) {
  process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
}
process.exit(code);
