/**
 * `npm run bench -- [--duration s] [--warmup s] [--connections n] [--json file]` (see --help; bench/README.md)
 *
 * Measures what the gateway costs relative to calling v1 directly, in the same
 * run, on the same machine: each scenario is loaded once against the gateway
 * and once against the v1 emulator the gateway sits on, and the report is the
 * ratio gateway/direct. Absolute figures depend on the machine; the ratio is
 * the result.
 *
 * Three processes, so no two share an event loop: this one (autocannon, the
 * load generator), the v1 emulator (bench/emulator-process.ts, one org with
 * 1,000 child groups) and the gateway (bench/gateway-process.ts), started
 * afresh for each scenario so one scenario's heap cannot tax the next. Both children
 * listen on 127.0.0.1 only and are killed when this process ends, however it
 * ends (they also stop by themselves when their stdin, held by us, closes).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const HERE = dirname(fileURLToPath(import.meta.url));
const AUTH = { authorization: 'Bearer bench' };
const MAX_SAMPLES = 5_000_000;

// ---- options -------------------------------------------------------------

function intOption(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    process.stderr.write(`bench: --${name}: expected an integer in ${min}..${max}, got ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return value;
}

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string' },
    connections: { type: 'string', default: '16' },
    groups: { type: 'string', default: '1000' },
    json: { type: 'string' },
    scenario: { type: 'string', default: 'all' },
    'cpu-prof': { type: 'string' },
    'v1-omits-times': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
  allowPositionals: false,
});
if (flags.help) {
  process.stdout.write(
    'Usage: npm run bench -- [--duration <s>=10] [--warmup <s>=min(3,duration)] [--connections <n>=16] [--groups <n>=1000] [--json <file>]\n' +
      '  --duration     seconds measured per scenario per target\n' +
      '  --warmup       seconds of unmeasured load before each measurement\n' +
      '  --connections  concurrent keep-alive connections (autocannon)\n' +
      '  --groups       child groups seeded under the benchmark org\n' +
      '  --json         also write the results to this file\n' +
      '  --scenario     list, get or all (default)\n' +
      '  --cpu-prof     write a V8 CPU profile of the gateway process into this directory\n' +
      '  --v1-omits-times  v1 sends groups without timestamps (as the public v1 does): the gateway keeps them in its store\n',
  );
  process.exit(0);
}
const duration = intOption('duration', flags.duration, 1, 300);
const warmup = intOption('warmup', flags.warmup ?? String(Math.min(3, duration)), 0, 60);
const connections = intOption('connections', flags.connections, 1, 256);
const groups = intOption('groups', flags.groups, 50, 100_000);
if (!['list', 'get', 'all'].includes(flags.scenario)) {
  process.stderr.write(`bench: --scenario: expected list, get or all, got ${JSON.stringify(flags.scenario)}\n`);
  process.exit(2);
}

// ---- children --------------------------------------------------------------

const children: ChildProcess[] = [];
/** Children this process has asked to stop: their exit is expected. */
const stopping = new WeakSet<ChildProcess>();

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function killChildren(signal: NodeJS.Signals): void {
  for (const child of children) if (alive(child)) child.kill(signal);
}

process.on('exit', () => killChildren('SIGKILL'));
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    process.stderr.write(`bench: ${signal}, stopping\n`);
    killChildren('SIGTERM');
    process.exit(130);
  });
}

/** Starts `node <script> ...args` and resolves with the JSON line it prints once ready, and its pid. */
function startChild<T>(name: string, script: string, args: string[], nodeArgs: string[] = [], timeoutMs = 60_000): Promise<T & { pid: number }> {
  const child = spawn(process.execPath, [...nodeArgs, join(HERE, script), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise<T & { pid: number }>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => fail(new Error(`${name} did not report ready within ${timeoutMs} ms`)), timeoutMs);
    function fail(error: Error): void {
      clearTimeout(timer);
      lines.close();
      reject(error);
    }
    child.once('error', fail);
    child.once('exit', (code, signal) => fail(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})`)));
    let ready = false;
    lines.on('line', (line) => {
      if (ready || !line.startsWith('{"url":')) {
        // Anything else it says (warnings, --trace-gc, …) goes to our stderr, not into the table.
        process.stderr.write(`[${name}] ${line}\n`);
        return;
      }
      ready = true;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.once('exit', (code, signal) => {
        if (!stopping.has(child)) process.stderr.write(`bench: ${name} exited during the run (code ${code}, signal ${signal})\n`);
      });
      try {
        resolve({ ...(JSON.parse(line) as T), pid: child.pid! });
      } catch {
        reject(new Error(`${name} printed ${JSON.stringify(line)} instead of its JSON ready line`));
      }
    });
  });
}

async function stopChildren(): Promise<void> {
  await Promise.all(
    children.filter(alive).map(
      (child) =>
        new Promise<void>((resolve) => {
          stopping.add(child);
          const force = setTimeout(() => child.kill('SIGKILL'), 5000);
          child.once('exit', () => {
            clearTimeout(force);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
  children.length = 0;
}

function requireLoopback(name: string, url: string): string {
  const { hostname } = new URL(url);
  if (hostname !== '127.0.0.1' && hostname !== '[::1]' && hostname !== 'localhost') {
    throw new Error(`${name} is at ${url}, not a loopback address; refusing to load it`);
  }
  return url;
}

// ---- CPU accounting ------------------------------------------------------

/**
 * CPU time is what the latency figures cannot show on a small machine: with
 * three busy processes on two cores, the gateway's latency includes waiting
 * for a core. CPU per request does not, so it is reported alongside.
 */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) a process has used so far, from /proc; NaN where there is no /proc. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

interface CpuSnapshot {
  v1: number;
  gateway: number;
  loadgen: number;
  at: number;
}

function snapshot(pids: { v1: number; gateway: number }): CpuSnapshot {
  const self = process.cpuUsage();
  return { v1: cpuSeconds(pids.v1), gateway: cpuSeconds(pids.gateway), loadgen: (self.user + self.system) / 1e6, at: performance.now() };
}

interface CpuUse {
  /** CPU microseconds per completed request, per process. */
  v1UsPerReq: number;
  gatewayUsPerReq: number;
  loadgenUsPerReq: number;
  /** Cores kept busy, per process, over the measurement. */
  cores: { v1: number; gateway: number; loadgen: number };
}

function cpuUse(before: CpuSnapshot, after: CpuSnapshot, requests: number): CpuUse {
  const wall = (after.at - before.at) / 1000;
  const per = (key: 'v1' | 'gateway' | 'loadgen') => ((after[key] - before[key]) * 1e6) / requests;
  const cores = (key: 'v1' | 'gateway' | 'loadgen') => (after[key] - before[key]) / wall;
  return {
    v1UsPerReq: per('v1'),
    gatewayUsPerReq: per('gateway'),
    loadgenUsPerReq: per('loadgen'),
    cores: { v1: cores('v1'), gateway: cores('gateway'), loadgen: cores('loadgen') },
  };
}

// ---- load ----------------------------------------------------------------

interface Measurement {
  requests: number;
  seconds: number;
  reqPerSec: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  meanMs: number;
  bytesPerResponse: number;
  non200: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  cpu?: CpuUse;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/**
 * One autocannon run. Latencies are taken from each response's own timing
 * (float milliseconds) rather than autocannon's histogram, which rounds to
 * whole milliseconds: too coarse when a direct call takes about one.
 */
function load(url: string, seconds: number): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const samples: number[] = [];
    let responses = 0;
    let bytes = 0;
    let non200 = 0;
    const statusCodes: Record<string, number> = {};
    const instance = autocannon({ url, headers: AUTH, connections, pipelining: 1, duration: seconds, timeout: 10 }, (error, result) => {
      if (error) return reject(error);
      const sorted = Float64Array.from(samples).sort();
      const total = samples.reduce((a, b) => a + b, 0);
      // autocannon's duration runs from its start to the sampling tick that ends the
      // run, and clients keep sending until that tick: it spans every response counted.
      resolve({
        requests: responses,
        seconds: result.duration,
        reqPerSec: responses / result.duration,
        p50Ms: percentile(sorted, 50),
        p90Ms: percentile(sorted, 90),
        p99Ms: percentile(sorted, 99),
        meanMs: samples.length ? total / samples.length : Number.NaN,
        bytesPerResponse: responses ? bytes / responses : 0,
        non200,
        errors: result.errors,
        timeouts: result.timeouts,
        statusCodes,
      });
    });
    instance.on('response', (_client: unknown, statusCode: number, resBytes: number, responseTime: number) => {
      statusCodes[statusCode] = (statusCodes[statusCode] ?? 0) + 1;
      responses++;
      if (statusCode !== 200) non200++;
      if (samples.length < MAX_SAMPLES) samples.push(responseTime);
      bytes += resBytes;
    });
  });
}

// ---- scenarios -------------------------------------------------------------

interface Target {
  url: string;
  /** Checks one response body before any load, so an error page is never what gets measured. */
  check: (body: unknown) => string | undefined;
}

interface Scenario {
  key: 'list' | 'get';
  name: string;
  gateway: Target;
  direct: Target;
}

function itemsOf(body: unknown, key: string): unknown[] | undefined {
  const value = (body as Record<string, unknown> | null)?.[key];
  return Array.isArray(value) ? value : undefined;
}

function scenarios(gateway: string, v1: string, org: string, group: string): Scenario[] {
  const q = encodeURIComponent;
  return [
    {
      key: 'list',
      name: 'List groups',
      gateway: {
        url: `${gateway}/iam/v2beta1/groups?uidp.children_of=${q(org)}&page_size=50`,
        check: (body) => {
          const page = itemsOf(body, 'groups');
          if (page?.length !== 50) return `expected a page of 50 groups, got ${page?.length}`;
          if (!(body as { nextPageToken?: string }).nextPageToken) return 'expected a nextPageToken';
          return undefined;
        },
      },
      direct: {
        url: `${v1}/iam/v1/groups?uidp.childrenOf=${q(org)}`,
        check: (body) => {
          const items = itemsOf(body, 'items');
          return items?.length === groups ? undefined : `expected all ${groups} groups, got ${items?.length}`;
        },
      },
    },
    {
      key: 'get',
      name: 'Get group',
      gateway: {
        // A UIDP's slash is a path separator here, as in the v2 HTTP mapping `{uid=**}`.
        url: `${gateway}/iam/v2beta1/groups/${group}`,
        check: (body) => ((body as { uid?: string }).uid === group ? undefined : `expected group ${group}, got ${JSON.stringify(body).slice(0, 200)}`),
      },
      direct: {
        url: `${v1}/iam/v1/groups?id=${q(group)}`,
        check: (body) => {
          const items = itemsOf(body, 'items') as { id?: string }[] | undefined;
          return items?.length === 1 && items[0]!.id === group ? undefined : `expected exactly group ${group}, got ${items?.length} items`;
        },
      },
    },
  ];
}

async function probe(label: string, target: Target): Promise<void> {
  const response = await fetch(target.url, { headers: AUTH, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${label}: ${target.url} answered ${response.status}: ${text.slice(0, 300)}`);
  const problem = target.check(JSON.parse(text));
  if (problem) throw new Error(`${label}: ${target.url}: ${problem}`);
}

// ---- report ----------------------------------------------------------------

interface ScenarioResult {
  scenario: string;
  direct: Measurement & { url: string };
  gateway: Measurement & { url: string };
  ratio: { reqPerSec: number; p50: number; p99: number; serverCpuPerReq: number };
}

function fmt(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

/** Server-side CPU per request: v1's, plus the gateway's when the gateway is in the path. */
function serverCpu(m: Measurement, viaGateway: boolean): number {
  if (!m.cpu) return Number.NaN;
  return m.cpu.v1UsPerReq + (viaGateway ? m.cpu.gatewayUsPerReq : 0);
}

function table(results: ScenarioResult[]): string {
  const rows: string[][] = [['scenario', 'target', 'req/s', 'p50 ms', 'p99 ms', 'KiB/resp', 'v1 CPU µs/req', 'gw CPU µs/req', 'server CPU µs/req']];
  for (const r of results) {
    for (const target of ['direct', 'gateway'] as const) {
      const m = r[target];
      const viaGateway = target === 'gateway';
      rows.push([
        r.scenario,
        viaGateway ? 'gateway' : 'direct v1',
        fmt(m.reqPerSec, 0),
        fmt(m.p50Ms, 2),
        fmt(m.p99Ms, 2),
        fmt(m.bytesPerResponse / 1024, 1),
        fmt(m.cpu?.v1UsPerReq ?? Number.NaN, 0),
        viaGateway ? fmt(m.cpu?.gatewayUsPerReq ?? Number.NaN, 0) : '-',
        fmt(serverCpu(m, viaGateway), 0),
      ]);
    }
    rows.push([r.scenario, 'gateway/direct', `${fmt(r.ratio.reqPerSec, 2)}x`, `${fmt(r.ratio.p50, 2)}x`, `${fmt(r.ratio.p99, 2)}x`, '', '', '', `${fmt(r.ratio.serverCpuPerReq, 2)}x`]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i < 2 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}

// ---- main ------------------------------------------------------------------

async function main(): Promise<number> {
  const machine = {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
  process.stderr.write(
    `bench: ${machine.cpus} CPUs (${machine.cpuModel}), node ${machine.node}; ${duration}s measured + ${warmup}s warm-up per target, ${connections} connections, ${groups} groups\n`,
  );

  const profile = flags['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${flags['cpu-prof']}`] : [];
  const results: ScenarioResult[] = [];
  let failures = 0;
  for (const key of flags.scenario === 'all' ? (['list', 'get'] as const) : [flags.scenario as 'list' | 'get']) {
    // Fresh processes per scenario: measured, the Get figures degrade by a fifth
    // and the gateway's p99 doubles when Get follows List in the same gateway
    // (its heap, sized up by List's large bodies, costs longer GC pauses).
    const emulator = await startChild<{ url: string; orgId: string; groupId: string }>('emulator', 'emulator-process.ts', ['--groups', String(groups), ...(flags['v1-omits-times'] ? ['--omit-group-timestamps'] : [])]);
    const v1 = requireLoopback('emulator', emulator.url);
    const gatewayChild = await startChild<{ url: string }>('gateway', 'gateway-process.ts', ['--v1-url', v1], profile);
    const gateway = requireLoopback('gateway', gatewayChild.url);
    const pids = { v1: emulator.pid, gateway: gatewayChild.pid };
    process.stderr.write(`bench: v1 emulator ${v1} (org ${emulator.orgId}), gateway ${gateway}\n`);

    const scenario = scenarios(gateway, v1, emulator.orgId, emulator.groupId).find((s) => s.key === key)!;
    await probe(`${scenario.name} (direct)`, scenario.direct);
    await probe(`${scenario.name} (gateway)`, scenario.gateway);
    const measured: Partial<Record<'direct' | 'gateway', Measurement & { url: string }>> = {};
    for (const target of ['direct', 'gateway'] as const) {
      const { url } = scenario[target];
      if (warmup > 0) {
        process.stderr.write(`bench: ${scenario.name} / ${target}: warm-up ${warmup}s\n`);
        const w = await load(url, warmup);
        failures += w.non200 + w.errors;
      }
      process.stderr.write(`bench: ${scenario.name} / ${target}: measuring ${duration}s\n`);
      const before = snapshot(pids);
      const m = await load(url, duration);
      m.cpu = cpuUse(before, snapshot(pids), m.requests);
      if (m.non200 + m.errors > 0) {
        process.stderr.write(`bench: ${scenario.name} / ${target}: ${m.non200} non-200 responses, ${m.errors} errors (${m.timeouts} timeouts); status codes ${JSON.stringify(m.statusCodes)}\n`);
      }
      failures += m.non200 + m.errors;
      measured[target] = { url, ...m };
    }
    await stopChildren();
    const direct = measured.direct!;
    const gw = measured.gateway!;
    results.push({
      scenario: scenario.name,
      direct,
      gateway: gw,
      ratio: {
        reqPerSec: gw.reqPerSec / direct.reqPerSec,
        p50: gw.p50Ms / direct.p50Ms,
        p99: gw.p99Ms / direct.p99Ms,
        serverCpuPerReq: serverCpu(gw, true) / serverCpu(direct, false),
      },
    });
  }

  process.stdout.write(`\n${table(results)}\n\n`);
  process.stdout.write(
    'req/s ratio < 1: the gateway serves fewer requests per second than v1 alone; latency ratio > 1: it is slower;\n' +
      'server CPU ratio: CPU spent by v1 and the gateway together per request, over v1 alone (independent of core contention).\n',
  );
  for (const r of results) {
    const c = r.gateway.cpu?.cores;
    if (c) process.stdout.write(`${r.scenario} via gateway kept busy: load generator ${fmt(c.loadgen, 2)}, gateway ${fmt(c.gateway, 2)}, v1 ${fmt(c.v1, 2)} cores (of ${availableParallelism()}).\n`);
  }
  if (flags.json) {
    const report = { date: new Date().toISOString(), machine, options: { duration, warmup, connections, groups }, results, failures };
    writeFileSync(flags.json, `${JSON.stringify(report, null, 2)}\n`);
    process.stderr.write(`bench: wrote ${flags.json}\n`);
  }
  if (failures > 0) {
    process.stderr.write(`bench: FAILED: ${failures} responses were not 200 or did not arrive\n`);
    return 1;
  }
  return 0;
}

// Bounded: every phase has its own length, and the whole run a hard ceiling.
const ceilingMs = 2 * 2 * (duration + warmup) * 1000 * 2 + 120_000;
const ceiling = setTimeout(() => {
  process.stderr.write(`bench: still running after ${Math.round(ceilingMs / 1000)}s, giving up\n`);
  killChildren('SIGKILL');
  process.exit(1);
}, ceilingMs);
ceiling.unref();

let code = 1;
try {
  code = await main();
} catch (error) {
  process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
} finally {
  await stopChildren();
}
process.exit(code);
