/**
 * `npm run bench:grpc -- [--duration s] [--connections n] [--before <commit>]` (see --help; bench/README.md)
 *
 * Two comparisons, each in one run so the machine is the same for both sides:
 *
 *   1. gRPC against REST on the same gateway process (bench/lib/protocols.ts):
 *      what the protocol costs, per scenario (Get group, List groups).
 *   2. This checkout against the code before a change (`--before`, default
 *      aee1290, main before the operation layer), REST only, both gateways on
 *      the same emulator (bench/lib/before-after.ts): what the change costs.
 *
 * The method is bench/run.ts's: separate processes (load generator, emulator,
 * gateways), loopback only, fresh processes per scenario, warm-up before
 * measuring, CPU µs per request of each process from /proc, every answer that
 * is not OK counted and the run failing (exit 1) if there is any. Added here:
 * the two targets of a comparison alternate in rounds (ABBA), so the VM's
 * drift falls on both alike. Results are printed as markdown tables.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import './lib/cleanup.ts'; // first: from here on, any ending kills the children and removes the worktree
import { beforeAfter } from './lib/before-after.ts';
import { CHECKOUT } from './lib/built.ts';
import { GRPC_CLIENT_KINDS, type GrpcClientKind } from './lib/grpc-clients.ts';
import { protocols, type ComparisonResult, type RunSettings } from './lib/protocols.ts';
import { SCENARIO_KEYS, type ScenarioKey } from './lib/scenarios.ts';
import { failureCount, type Summary } from './lib/stats.ts';
import { fmt, markdownTable, ratio } from './lib/table.ts';
import { addWorktree } from './lib/worktree.ts';


// ---- options -------------------------------------------------------------

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

function intOption(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) fail(`--${name}: expected an integer in ${min}..${max}, got ${JSON.stringify(raw)}`);
  return value;
}

function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(raw)) fail(`--${name}: expected one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as T;
}

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '16' },
    sessions: { type: 'string' },
    groups: { type: 'string', default: '1000' },
    before: { type: 'string', default: 'aee1290' },
    part: { type: 'string', default: 'all' },
    scenario: { type: 'string', default: 'all' },
    'grpc-client': { type: 'string', default: 'grpc-js' },
    'grpc-gzip': { type: 'boolean', default: false },
    json: { type: 'string' },
    'cpu-prof': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
  allowPositionals: false,
});
if (flags.help) {
  process.stdout.write(
    'Usage: npm run bench:grpc -- [--duration <s>=10] [--connections <n>=16] [--before <commit>=aee1290] [options]\n' +
      '  --duration     seconds measured per target per round\n' +
      '  --warmup       seconds of unmeasured load per target before the first round (default min(3, duration))\n' +
      '  --rounds       alternating rounds per comparison, A B then B A ... (default 2)\n' +
      '  --connections  concurrent requests: autocannon connections (REST), callers (gRPC)\n' +
      '  --sessions     HTTP/2 sessions the gRPC callers share (default: one per caller, as REST has one connection each)\n' +
      '  --groups       child groups seeded under the benchmark org (default 1000)\n' +
      '  --before       the commit the current code is compared with (part "before")\n' +
      '  --part         grpc (gRPC against REST), before (new against --before) or all (default)\n' +
      '  --scenario     get, list or all (default)\n' +
      '  --grpc-client  grpc-js (@grpc/grpc-js, default: the lower client CPU per call) or connect (ConnectRPC createGrpcTransport)\n' +
      '  --grpc-gzip    connect only: accept gzip answers (grpc-js always does; the gateway then gzips answers over 1 KiB)\n' +
      '  --json         also write the results to this file\n' +
      '  --cpu-prof     write a V8 CPU profile of each gateway process into this directory\n',
  );
  process.exit(0);
}
const duration = intOption('duration', flags.duration, 1, 300);
const settings: RunSettings = {
  duration,
  warmup: intOption('warmup', flags.warmup ?? String(Math.min(3, duration)), 0, 60),
  rounds: intOption('rounds', flags.rounds, 1, 20),
  connections: intOption('connections', flags.connections, 1, 256),
  groups: intOption('groups', flags.groups, 50, 100_000),
  grpc: {
    client: oneOf<GrpcClientKind>('grpc-client', flags['grpc-client'], GRPC_CLIENT_KINDS),
    callers: 0,
    sessions: 0,
    acceptGzip: false,
  },
  // Absolute: the gateway of --before runs in its worktree, which is deleted at the end.
  gatewayNodeArgs: flags['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${resolve(flags['cpu-prof'])}`] : [],
};
// grpc-js always sends `grpc-accept-encoding: identity,deflate,gzip` (its compression filter sets it on
// every call), so the gateway gzips its larger answers; only the connect client can ask for identity.
settings.grpc.acceptGzip = settings.grpc.client === 'grpc-js' || flags['grpc-gzip'];
settings.grpc.callers = settings.connections;
settings.grpc.sessions = flags.sessions === undefined ? settings.connections : intOption('sessions', flags.sessions, 1, settings.connections);
const parts = flags.part === 'all' ? (['grpc', 'before'] as const) : [oneOf('part', flags.part, ['grpc', 'before'] as const)];
const scenarios: readonly ScenarioKey[] = flags.scenario === 'all' ? SCENARIO_KEYS : [oneOf('scenario', flags.scenario, SCENARIO_KEYS)];

// ---- report ----------------------------------------------------------------

const HEADER = ['scenario', 'target', 'req/s', 'p50 ms', 'p99 ms', 'gw CPU µs/req', 'v1 CPU µs/req', 'loadgen CPU µs/req'];

function row(scenario: string, label: string, s: Summary, server: string): string[] {
  return [scenario, label, fmt(s.reqPerSec, 0), fmt(s.p50Ms, 2), fmt(s.p99Ms, 2), fmt(s.cpuUsPerReq[server], 0), fmt(s.cpuUsPerReq.v1, 0), fmt(s.cpuUsPerReq.loadgen, 0)];
}

/** Two rows per scenario, then the ratio row b/a: req/s, latency, and each process's CPU per request. */
function table(results: ComparisonResult[]): string {
  const rows: string[][] = [];
  for (const r of results) {
    rows.push(row(r.scenario, r.labels.a, r.a, r.servers.a), row(r.scenario, r.labels.b, r.b, r.servers.b));
    rows.push([
      r.scenario,
      `${r.labels.b}/${r.labels.a.split(' ')[0]}`,
      ratio(r.b.reqPerSec, r.a.reqPerSec),
      ratio(r.b.p50Ms, r.a.p50Ms),
      ratio(r.b.p99Ms, r.a.p99Ms),
      ratio(r.b.cpuUsPerReq[r.servers.b], r.a.cpuUsPerReq[r.servers.a]),
      ratio(r.b.cpuUsPerReq.v1, r.a.cpuUsPerReq.v1),
      ratio(r.b.cpuUsPerReq.loadgen, r.a.cpuUsPerReq.loadgen),
    ]);
  }
  return markdownTable(HEADER, rows);
}

/** How the figure moved from round to round, and which process kept how many cores busy. */
function notes(results: ComparisonResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    const byRound = r.a.roundReqPerSec.map((a, i) => ratio(r.b.roundReqPerSec[i], a)).join(', ');
    lines.push(`${r.scenario}: ${r.labels.b}/${r.labels.a} req/s by round: ${byRound}.`);
    for (const [label, s, server] of [[r.labels.a, r.a, r.servers.a], [r.labels.b, r.b, r.servers.b]] as const) {
      lines.push(`  ${label} kept busy: gateway ${fmt(s.cores[server], 2)}, v1 ${fmt(s.cores.v1, 2)}, load generator ${fmt(s.cores.loadgen, 2)} cores (of ${availableParallelism()}).`);
    }
  }
  return lines.join('\n');
}

// ---- main ------------------------------------------------------------------

function git(args: string[]): string {
  return execFileSync('git', ['-C', CHECKOUT, ...args], { encoding: 'utf8' }).trim();
}

async function main(): Promise<number> {
  const head = git(['rev-parse', '--short', 'HEAD']);
  const dirty = git(['status', '--porcelain', '--untracked-files=no', '--', 'src', 'mappings']) !== '';
  const machine = { cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${process.platform} ${process.arch}` };
  process.stderr.write(
    `bench: ${machine.cpus} CPUs (${machine.cpuModel}), node ${machine.node}; ${settings.rounds} rounds x ${settings.duration}s measured per target, ` +
      `${settings.warmup}s warm-up, ${settings.connections} connections, gRPC: ${settings.grpc.client}, ${settings.grpc.sessions} sessions, ` +
      `${settings.grpc.acceptGzip ? 'gzip accepted' : 'identity'}; new = ${head}${dirty ? ' + uncommitted changes' : ''}\n`,
  );

  const results: Record<'grpc' | 'before', ComparisonResult[]> = { grpc: [], before: [] };
  let beforeCommit: string | undefined;
  for (const part of parts) {
    if (part === 'grpc') {
      for (const key of scenarios) results.grpc.push(await protocols(key, settings));
    } else {
      const worktree = addWorktree(CHECKOUT, flags.before);
      beforeCommit = worktree.commit;
      process.stderr.write(`bench: ${flags.before} (${worktree.commit.slice(0, 12)}) checked out in ${worktree.path}\n`);
      const label = `before (${worktree.commit.slice(0, 7)})`;
      try {
        for (const key of scenarios) results.before.push(await beforeAfter(key, settings, { path: worktree.path, label }));
      } finally {
        worktree.remove();
      }
    }
  }

  let failures = 0;
  const all = [...results.grpc, ...results.before];
  for (const r of all) {
    for (const [label, s] of [[r.labels.a, r.a], [r.labels.b, r.b]] as const) {
      const n = failureCount(s.failures);
      if (n > 0) process.stderr.write(`bench: ${r.scenario} / ${label}: ${n} answers not OK: ${JSON.stringify(s.failures)}\n`);
      failures += n;
    }
    const w = failureCount(r.warmupFailures);
    if (w > 0) process.stderr.write(`bench: ${r.scenario}: ${w} warm-up answers not OK: ${JSON.stringify(r.warmupFailures)}\n`);
    failures += w;
  }

  if (results.grpc.length > 0) {
    const client = `${settings.grpc.client}, ${settings.grpc.callers} callers on ${settings.grpc.sessions} HTTP/2 sessions, ${settings.grpc.acceptGzip ? 'gzip accepted' : 'identity only'}`;
    process.stdout.write(`\n### gRPC against REST (same gateway process, ${head}${dirty ? ' + working tree' : ''}; gRPC client: ${client})\n\n${table(results.grpc)}\n\n${notes(results.grpc)}\n`);
  }
  if (results.before.length > 0) {
    process.stdout.write(`\n### New (${head}${dirty ? ' + working tree' : ''}) against before (${beforeCommit!.slice(0, 7)}), REST\n\n${table(results.before)}\n\n${notes(results.before)}\n`);
  }
  process.stdout.write('\nRatios are the second target over the first; CPU µs/req is per answer, per process, from /proc over the measured rounds.\n');
  if (flags.json) {
    const report = { date: new Date().toISOString(), machine, head, dirty, before: beforeCommit, settings, results, failures };
    writeFileSync(flags.json, `${JSON.stringify(report, null, 2)}\n`);
    process.stderr.write(`bench: wrote ${flags.json}\n`);
  }
  if (failures > 0) {
    process.stderr.write(`bench: FAILED: ${failures} answers were not OK or did not arrive\n`);
    return 1;
  }
  return 0;
}

// Bounded: every phase has its own length, and the whole run a hard ceiling.
const perScenario = 2 * settings.warmup + 2 * settings.rounds * (settings.duration + 1) + 90;
const ceilingMs = (parts.length * scenarios.length * perScenario * 1.5 + 120) * 1000;
const ceiling = setTimeout(() => {
  process.stderr.write(`bench: still running after ${Math.round(ceilingMs / 1000)}s, giving up\n`);
  process.exit(1); // the cleanups kill the children and remove the worktree
}, ceilingMs);
ceiling.unref();

let code = 1;
try {
  code = await main();
} catch (error) {
  process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
}
process.exit(code);
