/**
 * Bytes a Get (or a List page) allocates on V8's heap per answer, in the gateway (REST, gRPC) and in the
 * translating floor of its protocol, and where: what a request costs in the young generation's collections
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
 * [--interval 4096] [--sites 25] [--only <server,…>] [--node-arg <flag>…] [--gateway-flag <flag>…] [--no-pin]`.
 * Needs h2load (`apt-get install nghttp2-client`). A Get takes seconds a server.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { allocatedBytes, bytesBySite, collectionCounts, promotedBytes, type AllocationWindow } from './lib/allocation-profile.ts';
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
const SERVERS: Measured[] = [
  {
    name: 'floor translating',
    start: (nodeArgs, env) => startFloor('floor translating', emulator.url, { kind: 'translating', args: scenario.translating.args, nodeArgs, env, launch: served }),
    probe: (url) => probeUrl('floor translating', `${url}${scenario.v1.path}`, scenario.translating.check),
    call: async (url) => rest(`${url}${scenario.v1.path}`),
  },
  gatewayAs('gateway REST', 'REST'),
  {
    name: 'floor gRPC translating',
    start: (nodeArgs, env) => startGrpcFloor('floor gRPC translating', emulator.url, scenario.v1.path, { kind: 'translating', args: [...scenario.translating.args, '--rpc', grpcTranslating], nodeArgs, env, launch: served }),
    probe: (url) => probeGrpc('floor gRPC translating', url, { ...scenario, check: scenario.translating.check }, probing),
    call: (url) => h2loadGrpcCall(url, scenario, probing),
  },
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
  collections: Map<string, number>;
  sites: Map<string, number>;
}

/** A server, fresh: warmed, then its window of `requests` answers read. */
async function measure(server: Measured): Promise<Result> {
  const file = join(dir, server.name.replaceAll(' ', '-'));
  const running = await server.start(['--import', sampler], { V2GW_ALLOCATIONS_FILE: file, V2GW_ALLOCATIONS_INTERVAL: String(interval) });
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
    const window = JSON.parse(readFileSync(file, 'utf8')) as AllocationWindow;
    const sites = bytesBySite(window.profile.head);
    let sampled = 0;
    for (const bytes of sites.values()) sampled += bytes;
    return { name: server.name, perAnswer: allocatedBytes(window.gc) / requests, sampledPerAnswer: sampled / requests, promotedPerAnswer: promotedBytes(window.gc.collections) / requests, collections: collectionCounts(window.gc.collections), sites };
  } finally {
    await running.child.stop();
  }
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(2)} KB`;

try {
  process.stderr.write(`bench: bytes allocated per answer, ${scenario.name}, ${warm} answers to warm then ${requests} measured, ${connections} connections, sampled every ${interval} bytes\n`);
  const results: Result[] = [];
  for (const server of SERVERS.filter(({ name }) => values.only === undefined || values.only.split(',').includes(name))) results.push(await measure(server));

  console.log(`| server (${scenario.name}) | bytes allocated per answer | sampled | promoted by scavenges | scavenges per 1,000 answers | other collections |`);
  console.log('|:--|--:|--:|--:|--:|--:|');
  for (const r of results) {
    const scavenges = r.collections.get('Scavenge') ?? 0;
    const others = [...r.collections].filter(([kind]) => kind !== 'Scavenge').map(([kind, n]) => `${kind} ${n}`).join(', ');
    console.log(`| ${r.name} | ${kb(r.perAnswer)} | ${kb(r.sampledPerAnswer)} | ${kb(r.promotedPerAnswer)} | ${((scavenges * 1000) / requests).toFixed(1)} | ${others || 'none'} |`);
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
} finally {
  await emulator.child.stop();
  rmSync(dir, { recursive: true, force: true });
}
