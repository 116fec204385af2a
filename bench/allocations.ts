/**
 * Bytes a Get (or a List page) allocates on V8's heap per answer, in the gateway (REST, gRPC) and in the
 * translating floors of its protocol (on the Get, with the default duties too), and where: what a request costs in the young generation's collections
 * and in memory touched, which callgrind's instruction counts do not show (bench/README.md, Allocations).
 *
 * Each server starts fresh (built, pinned as in `npm run bench`, the gateway with the image's Node flags,
 * the floors with Node's own) with bench/allocation-sampler.ts preloaded, answers `--warm` requests at
 * `--connections` from h2load (every answer checked as `npm run bench:instructions` checks it), then
 * `--requests` more inside the sampler's window. Per server: the bytes the heap took per answer (from the
 * collections' before/after figures: exact, whatever was sampled), the bytes its scavenges promoted to the old
 * generation per answer, the collections per 1,000 answers, and
 * the sampled bytes per answer by stage (bench/lib/get-stages.ts, the stages of `--stages`) and by the
 * function that allocated (`--sites`, the largest n of each server).
 *
 * `npm run bench:allocations -- [--scenario get|list] [--warm 3000] [--requests 20000] [--connections 50]
 * [--interval 4096] [--sites 25] [--only <server,…>] [--node-arg <flag>…] [--gateway-flag <flag>…]
 * [--floor-node-arg <flag>…] [--cpu [--cpu-interval-us 100]] [--keep] [--no-pin]`: `--node-arg` goes to the gateways,
 * `--floor-node-arg` to the floors; `--cpu` reads V8's CPU profile of the same window instead of its heap's
 * (the event loop's busy samples by stage and function, the collections' pauses); `--keep` leaves the
 * sampler's files (each server's window, JSON) where it says.
 * Needs h2load (`apt-get install nghttp2-client`). A Get takes seconds a server.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { allocatedBytes, bytesBySite, collectionCosts, collectionCounts, IDLE, promotedBytes, samplesBySite, type AllocationWindow, type CpuWindow } from './lib/allocation-profile.ts';
import { stageCosts } from './lib/callgrind-profile.ts';
import { builtScript } from './lib/built.ts';
import { envOf, GATEWAY_ENV, GATEWAY_NODE_ARGS, gatewayFlags } from './lib/gateway-defaults.ts';
import { STAGES } from './lib/get-stages.ts';
import { h2loadAvailable, h2loadRequests, type H2loadCall } from './lib/h2load-load.ts';
import { pinning, pinSelf } from './lib/pin.ts';
import { scenario as scenarioOf, SCENARIO_KEYS, type ScenarioKey } from './lib/scenarios.ts';
import { startEmulator, startFloor, startGateway, startGrpcFloor, type Server } from './lib/stack.ts';
import { AUTHORIZATION, h2loadGrpcCall, probeGrpc, probeRest, probeUrl, type GrpcSettings } from './lib/targets.ts';

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'get' },
    warm: { type: 'string', default: '3000' },
    requests: { type: 'string', default: '20000' },
    connections: { type: 'string', default: '50' },
    interval: { type: 'string', default: '4096' },
    sites: { type: 'string', default: '25' },
    only: { type: 'string' },
    'node-arg': { type: 'string', multiple: true, default: [] },
    'gateway-flag': { type: 'string', multiple: true, default: [] },
    'floor-node-arg': { type: 'string', multiple: true, default: [] },
    cpu: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'cpu-interval-us': { type: 'string', default: '100' },
    'no-pin': { type: 'boolean', default: false },
  },
  strict: true,
});
const key = values.scenario as ScenarioKey;
if (!SCENARIO_KEYS.includes(key)) throw new Error(`--scenario: expected ${SCENARIO_KEYS.join(' or ')}, got ${values.scenario}`);
const number = (flag: string, text: string, low: number, high: number): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < low || n > high) throw new Error(`--${flag}: expected ${low}..${high}, got ${text}`);
  return n;
};
const warm = number('warm', values.warm, 1, 1_000_000);
const requests = number('requests', values.requests, 100, 10_000_000);
const connections = number('connections', values.connections, 1, 1000);
const interval = number('interval', values.interval, 64, 1_048_576);
const siteCount = number('sites', values.sites, 0, 1000);
const cpuIntervalUs = number('cpu-interval-us', values['cpu-interval-us'], 10, 100_000);
if (!h2loadAvailable()) throw new Error('bench:allocations needs h2load (apt-get install nghttp2-client)');

const pin = pinning(!values['no-pin']);
pinSelf(pin);
const dir = mkdtempSync(join(tmpdir(), 'v2gw-allocations-'));
const sampler = pathToFileURL(builtScript('bench/allocation-sampler.ts')).href;
const served = (command: string, args: string[]) => pin.command('server', command, args);
const support = (command: string, args: string[]) => pin.command('support', command, args);

const emulator = await startEmulator(1000, { launch: support });
const scenario = scenarioOf(key, emulator.org, emulator.group);
const probing: GrpcSettings = { client: 'grpc-js', callers: 1, sessions: 1, acceptGzip: false };
const rest = (url: string): H2loadCall => ({ url, headers: { authorization: AUTHORIZATION }, http1: true });

interface Measured {
  name: string;
  /** Started with the sampler preloaded (`nodeArgs`) and its file named (`env`). */
  start: (nodeArgs: string[], env: Record<string, string>) => Promise<Server>;
  probe: (url: string) => Promise<void>;
  call: (url: string) => Promise<H2loadCall>;
}

const gatewayNodeArgs = [...GATEWAY_NODE_ARGS, ...values['node-arg']];
const gatewayAs = (name: string, protocol: 'REST' | 'gRPC'): Measured => ({
  name,
  start: (nodeArgs, env) => startGateway(name, emulator.url, { nodeArgs: [...gatewayNodeArgs, ...nodeArgs], env: { ...envOf(GATEWAY_ENV), ...env }, flags: [...gatewayFlags('info'), ...values['gateway-flag']], launch: served }),
  probe: (url) => (protocol === 'REST' ? probeRest(name, url, scenario) : probeGrpc(name, url, scenario, probing)),
  call: async (url) => (protocol === 'REST' ? rest(`${url}${scenario.restPath}`) : h2loadGrpcCall(url, scenario, probing)),
});
const grpcTranslating = `${scenario.grpc.method.parent.typeName}/${scenario.grpc.method.name}`;
const floorNodeArgs = values['floor-node-arg'];
/** A REST translating floor (`kind`: with the default duties or without), asked v1's path. */
const restFloor = (name: string, kind: 'translating' | 'duties'): Measured => ({
  name,
  start: (nodeArgs, env) => startFloor(name, emulator.url, { kind, args: scenario.translating.args, nodeArgs: [...floorNodeArgs, ...nodeArgs], env, launch: served }),
  probe: (url) => probeUrl(name, `${url}${scenario.v1.path}`, scenario.translating.check),
  call: async (url) => rest(`${url}${scenario.v1.path}`),
});
/** A gRPC translating floor (`kind`: with the default duties or without). */
const grpcFloor = (name: string, kind: 'translating' | 'duties'): Measured => ({
  name,
  start: (nodeArgs, env) => startGrpcFloor(name, emulator.url, scenario.v1.path, { kind, args: [...scenario.translating.args, '--rpc', grpcTranslating], nodeArgs: [...floorNodeArgs, ...nodeArgs], env, launch: served }),
  probe: (url) => probeGrpc(name, url, { ...scenario, check: scenario.translating.check }, probing),
  call: (url) => h2loadGrpcCall(url, scenario, probing),
});
// The floors with the default duties (bench/lib/least-duties.ts), goal 3's anchors, are Get floors only.
const get = key === 'get';
const SERVERS: Measured[] = [
  restFloor('floor translating', 'translating'),
  ...(get ? [restFloor('floor translating with the default duties', 'duties')] : []),
  gatewayAs('gateway REST', 'REST'),
  grpcFloor('floor gRPC translating', 'translating'),
  ...(get ? [grpcFloor('floor gRPC translating with the default duties', 'duties')] : []),
  gatewayAs('gateway gRPC', 'gRPC'),
];

async function waitFor(file: string): Promise<void> {
  for (let waited = 0; waited < 120_000; waited += 50) {
    if (existsSync(file)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the sampler did not write ${file} within two minutes`);
}

interface Result {
  name: string;
  perAnswer: number;
  sampledPerAnswer: number;
  promotedPerAnswer: number;
  /** Minor page faults per answer: pages the kernel mapped on their first touch. */
  faultsPerAnswer: number;
  collections: Map<string, number>;
  /** The collections' pauses on the event loop's thread, by kind, µs over the window. */
  pauses: Map<string, number>;
  /** Bytes sampled per allocating function; with `--cpu`, the event loop's samples per function instead. */
  sites: Map<string, number>;
}

/** A server, fresh: warmed, then its window of `requests` answers read. */
async function measure(server: Measured): Promise<Result> {
  const file = join(dir, server.name.replaceAll(' ', '-'));
  const profiling: Record<string, string> = values.cpu ? { V2GW_CPU_PROFILE_US: String(cpuIntervalUs) } : { V2GW_ALLOCATIONS_INTERVAL: String(interval) };
  const running = await server.start(['--import', sampler], { V2GW_ALLOCATIONS_FILE: file, ...profiling });
  try {
    await server.probe(running.url);
    const call = await server.call(running.url);
    for (const [phase, n] of [['warm', warm], ['measured', requests]] as const) {
      if (phase === 'measured') {
        process.kill(running.child.pid, 'SIGUSR2');
        await waitFor(`${file}.open`);
      }
      process.stderr.write(`bench: ${server.name}: ${n} answers (${phase})\n`);
      const run = await h2loadRequests(call, connections, n, 600_000);
      if (Object.keys(run.failures).length > 0 || run.requests !== n) throw new Error(`${server.name}: ${run.requests} of ${n} answered, failures ${JSON.stringify(run.failures)}`);
    }
    process.kill(running.child.pid, 'SIGUSR2');
    await waitFor(file);
    const read = JSON.parse(readFileSync(file, 'utf8')) as AllocationWindow | CpuWindow;
    const common = { name: server.name, faultsPerAnswer: (read.gc.minorFaults ?? Number.NaN) / requests, promotedPerAnswer: promotedBytes(read.gc.collections) / requests, collections: collectionCounts(read.gc.collections), pauses: collectionCosts(read.gc.collections) };
    if ('cpuProfile' in read) return { ...common, perAnswer: allocatedBytes(read.gc) / requests, sampledPerAnswer: 0, sites: samplesBySite(read.cpuProfile.nodes) };
    const window = read;
    const sites = bytesBySite(window.profile.head);
    let sampled = 0;
    for (const bytes of sites.values()) sampled += bytes;
    return { ...common, perAnswer: allocatedBytes(window.gc) / requests, sampledPerAnswer: sampled / requests, sites };
  } finally {
    await running.child.stop();
  }
}

/** V8's own entries in a CPU profile, rows of their own beside the stages. */
const V8_ENTRIES = ['(garbage collector)', '(program)'];

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(2)} KB`;

try {
  process.stderr.write(`bench: bytes allocated per answer, ${scenario.name}, ${warm} answers to warm then ${requests} measured, ${connections} connections, sampled every ${interval} bytes\n`);
  const results: Result[] = [];
  for (const server of SERVERS.filter(({ name }) => values.only === undefined || values.only.split(',').includes(name))) results.push(await measure(server));

  if (values.cpu) reportCpu(results);
  else reportBytes(results);
} finally {
  await emulator.child.stop();
  if (values.keep) process.stderr.write(`bench: the sampler's files are kept in ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
}

/** Bytes per answer, by stage and by site. */
function reportBytes(results: readonly Result[]): void {
  console.log(`| server (${scenario.name}) | bytes allocated per answer | sampled | promoted by scavenges | scavenges per 1,000 answers | other collections | minor page faults per answer |`);
  console.log('|:--|--:|--:|--:|--:|--:|--:|');
  for (const r of results) {
    const scavenges = r.collections.get('Scavenge') ?? 0;
    const others = [...r.collections].filter(([kind]) => kind !== 'Scavenge').map(([kind, n]) => `${kind} ${n}`).join(', ');
    console.log(`| ${r.name} | ${kb(r.perAnswer)} | ${kb(r.sampledPerAnswer)} | ${kb(r.promotedPerAnswer)} | ${((scavenges * 1000) / requests).toFixed(1)} | ${others || 'none'} | ${r.faultsPerAnswer.toFixed(2)} |`);
  }

  console.log(`\n| stage (sampled, per answer) | ${results.map((r) => r.name).join(' | ')} |`);
  console.log(`|:--|${results.map(() => '--:').join('|')}|`);
  const stages = results.map((r) => stageCosts(r.sites, STAGES));
  for (const stage of stages[0]?.keys() ?? []) {
    if (stages.every((s) => (s.get(stage) ?? 0) === 0)) continue;
    console.log(`| ${stage} | ${stages.map((s) => kb((s.get(stage) ?? 0) / requests)).join(' | ')} |`);
  }

  for (const r of results.filter(() => siteCount > 0)) {
    console.log(`\n| ${r.name}: where it allocates (sampled) | per answer |`);
    console.log('|:--|--:|');
    for (const [site, bytes] of [...r.sites].sort((a, b) => b[1] - a[1]).slice(0, siteCount)) console.log(`| \`${site}\` | ${kb(bytes / requests)} |`);
  }
}


/**
 * `--cpu`: the share of the event loop's busy samples (all but `(idle)`) each stage, the garbage collector
 * and V8's `(program)` took, the collections' pauses per answer, and the functions that took the most.
 */
function reportCpu(results: readonly Result[]): void {
  const share = (n: number, busy: number): string => `${((100 * n) / busy).toFixed(1)} %`;
  const busyOf = (r: Result): number => [...r.sites].reduce((sum, [site, n]) => (site === IDLE ? sum : sum + n), 0);
  console.log(`| server (${scenario.name}) | bytes allocated per answer | scavenges per 1,000 answers | scavenges' pause per answer | other collections' pause per answer | minor page faults per answer | busy samples |`);
  console.log('|:--|--:|--:|--:|--:|--:|--:|');
  for (const r of results) {
    const scavenges = r.collections.get('Scavenge') ?? 0;
    const others = [...r.pauses].filter(([kind]) => kind !== 'Scavenge').reduce((sum, [, us]) => sum + us, 0);
    console.log(`| ${r.name} | ${kb(r.perAnswer)} | ${((scavenges * 1000) / requests).toFixed(1)} | ${((r.pauses.get('Scavenge') ?? 0) / requests).toFixed(2)} µs | ${(others / requests).toFixed(2)} µs | ${r.faultsPerAnswer.toFixed(2)} | ${busyOf(r)} |`);
  }
  console.log(`\n| share of the event loop's busy samples | ${results.map((r) => r.name).join(' | ')} |`);
  console.log(`|:--|${results.map(() => '--:').join('|')}|`);
  const script = results.map((r) => new Map([...r.sites].filter(([site]) => site !== IDLE && !V8_ENTRIES.includes(site))));
  const stages = script.map((sites) => stageCosts(sites, STAGES));
  for (const entry of V8_ENTRIES) console.log(`| ${entry} | ${results.map((r) => share(r.sites.get(entry) ?? 0, busyOf(r))).join(' | ')} |`);
  for (const stage of stages[0]?.keys() ?? []) {
    if (stages.every((s) => (s.get(stage) ?? 0) === 0)) continue;
    console.log(`| ${stage} | ${stages.map((s, i) => share(s.get(stage) ?? 0, busyOf(results[i]!))).join(' | ')} |`);
  }
  for (const [i, r] of results.entries()) {
    if (siteCount === 0) break;
    console.log(`\n| ${r.name}: where the event loop was (self) | share of busy |`);
    console.log('|:--|--:|');
    for (const [site, n] of [...script[i]!].sort((a, b) => b[1] - a[1]).slice(0, siteCount)) console.log(`| \`${site}\` | ${share(n, busyOf(r))} |`);
  }
}
