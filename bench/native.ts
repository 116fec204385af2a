/**
 * `node bench/native.ts [--duration s] [--warmup s] [--connections n] [--groups n] [--engine sqlite|postgres|all] [--json file]`
 *
 * Native mode under load: the gateway serving v2 from its own store, no v1
 * anywhere. For each engine (embedded SQLite on a data directory; PostgreSQL
 * from V2GW_BENCH_PG_URL, default the local test server, in a database of its
 * own), this process seeds one organisation with --groups child groups through
 * the native backend itself, starts the gateway (`bench/gateway-process.ts
 * --mode native`, the same buildGateway as the CLI) as a separate process on
 * that store, and loads it with autocannon:
 *
 * - List: `GET /iam/v2beta1/groups?uidp.children_of=<org>&page_size=50` (the first page);
 * - List deep: the same query with a page token from the middle of the walk (keyset resume);
 * - Get: `GET /iam/v2beta1/groups/<uid>`;
 * - Get, verified and authorized: the same Get from a gateway started with
 *   `--auth-issuer` (the emulator's issuer, in this process) and a signed API
 *   token whose identity owns the organisation, so the run shows what
 *   authentication and authorization cost a request beside the Get without them.
 *
 * Reported: req/s, p50/p99 from each response's own timing, and the gateway
 * process's CPU per request (from /proc). PostgreSQL's own CPU is not counted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { seedNative } from './lib/native-seed.ts';
import { startIssuer } from '../src/emulator/issuer/index.ts';
import { bindOwner, openStore } from '../src/index.ts';

const AUTH = { authorization: 'Bearer bench' };
const GATEWAY = new URL('./gateway-process.ts', import.meta.url).pathname;
const PG_URL = process.env.V2GW_BENCH_PG_URL ?? process.env.V2GW_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
    groups: { type: 'string', default: '10000' },
    engine: { type: 'string', default: 'all' },
    json: { type: 'string' },
  },
  strict: true,
  allowPositionals: false,
});
const duration = Number(flags.duration);
const warmup = Number(flags.warmup);
const connections = Number(flags.connections);
const groupCount = Number(flags.groups);
for (const [name, value] of [['duration', duration], ['warmup', warmup], ['connections', connections], ['groups', groupCount]] as const) {
  if (!Number.isInteger(value) || value < (name === 'warmup' ? 0 : 1)) throw new Error(`--${name}: expected a positive integer`);
}
const engines = flags.engine === 'all' ? ['sqlite', 'postgres'] : [flags.engine];
if (!engines.every((e) => e === 'sqlite' || e === 'postgres')) throw new Error('--engine: sqlite, postgres or all');

// ---- the store and the gateway ---------------------------------------------------

interface Place {
  location: string;
  /** After seeding: what a database in service has had time to do (PostgreSQL: statistics, the visibility map). */
  settle(): Promise<void>;
  drop(): Promise<void>;
}

async function place(engine: string): Promise<Place> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'v2gw-bench-'));
    return { location: dir, settle: async () => {}, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const database = `v2gw_bench_${process.pid}`;
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  const admin = async (sql: string, on = PG_URL) => {
    const client = new pg.Client({ connectionString: on });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`drop database if exists ${database} with (force)`);
  await admin(`create database ${database}`);
  return {
    location: url.toString(),
    // Autovacuum would get there on its own; a freshly loaded table has no statistics, and the planner then sorts every child.
    settle: () => admin('vacuum analyze', url.toString()),
    drop: () => admin(`drop database if exists ${database} with (force)`),
  };
}

/** The benchmark's gateway child (bench/gateway-process.ts, log level warn), in native mode; it prints `{"url"}` once listening. */
async function startGateway(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [GATEWAY, '--mode', 'native', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`gateway exited (${code}) before listening`)));
    lines.on('line', (line) => {
      if (line.startsWith('{"url":')) resolve(JSON.parse(line).url);
    });
  });
  child.removeAllListeners('exit');
  return { child, url };
}

function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

// ---- load ----------------------------------------------------------------------

interface Result {
  engine: string;
  scenario: string;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  gatewayCpuUsPerReq: number;
  non200: number;
}

function run(url: string, seconds: number, headers: Record<string, string>): Promise<{ responses: number; seconds: number; samples: number[]; non200: number }> {
  return new Promise((resolve, reject) => {
    const samples: number[] = [];
    let non200 = 0;
    const instance = autocannon({ url, headers, connections, duration: seconds }, (error, result) => {
      if (error) reject(error);
      else resolve({ responses: samples.length, seconds: result.duration, samples, non200: non200 + result.errors + result.timeouts });
    });
    instance.on('response', (_client: unknown, status: number, _bytes: number, time: number) => {
      if (status !== 200) non200++;
      samples.push(time);
    });
  });
}

async function measure(engine: string, scenario: string, url: string, pid: number, headers: Record<string, string> = AUTH): Promise<Result> {
  const probe = await fetch(url, { headers });
  if (probe.status !== 200) throw new Error(`${scenario}: ${url} answered ${probe.status}: ${await probe.text()}`);
  if (warmup > 0) await run(url, warmup, headers);
  const before = cpuSeconds(pid);
  const m = await run(url, duration, headers);
  const cpu = cpuSeconds(pid) - before;
  const sorted = Float64Array.from(m.samples).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return { engine, scenario, reqPerSec: m.responses / m.seconds, p50Ms: at(50), p99Ms: at(99), gatewayCpuUsPerReq: (cpu * 1e6) / m.responses, non200: m.non200 };
}

// ---- main ------------------------------------------------------------------------

/** Stops a gateway child and waits for it to go. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

const results: Result[] = [];
const TOKEN_KEY = 'bench-page-token-key-0123456789';
// The verified scenario's issuer and caller: an identity that owns the benchmark's organisation.
const issuer = await startIssuer();
const AUDIENCE = 'https://api.v2gw.bench';
const CALLER = 'b'.repeat(40);
const verified = { authorization: `Bearer ${await issuer.apiToken(CALLER, AUDIENCE)}` };
for (const engine of engines) {
  const where = await place(engine);
  const args = [engine === 'sqlite' ? '--data-dir' : '--store', where.location, '--page-token-key', TOKEN_KEY];
  try {
    process.stderr.write(`bench: ${engine}: seeding ${groupCount} groups\n`);
    const { org, group } = await seedNative(where.location, groupCount);
    const store = await openStore(where.location);
    await bindOwner(store, org, CALLER).finally(() => store.close());
    await where.settle();
    const list = (base: string) => `${base}/iam/v2beta1/groups?uidp.children_of=${encodeURIComponent(org)}&page_size=50`;
    // A token from halfway through the walk (the key is shared, so any process accepts it):
    // resuming there is a keyset seek, not an offset scan.
    let token = '';
    const walker = await startGateway(args);
    try {
      for (let page = 0; page < Math.floor(groupCount / 100); page++) {
        const reply = await fetch(`${list(walker.url)}${token ? `&page_token=${token}` : ''}`, { headers: AUTH });
        token = ((await reply.json()) as { nextPageToken: string }).nextPageToken;
      }
    } finally {
      await stop(walker.child);
    }
    const get = (base: string) => `${base}/iam/v2beta1/groups/${group}`;
    const scenarios: [string, (base: string) => string, string[], Record<string, string>][] = [
      ['List (first page of 50)', list, [], AUTH],
      ['List (page of 50 from a mid-walk token)', (base) => `${list(base)}&page_token=${token}`, [], AUTH],
      ['Get group', get, [], AUTH],
      ['Get group, verified + authorized', get, ['--auth-issuer', issuer.url, '--auth-audience', AUDIENCE], verified],
    ];
    // A fresh gateway per scenario, as bench/run.ts does: one scenario's heap must not tax the next.
    for (const [name, url, extra, headers] of scenarios) {
      const gateway = await startGateway([...args, ...extra]);
      try {
        results.push(await measure(engine, name, url(gateway.url), gateway.child.pid!, headers));
      } finally {
        await stop(gateway.child);
      }
    }
  } finally {
    await where.drop();
  }
}

const rows = [['engine', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'gw CPU µs/req'],
  ...results.map((r) => [r.engine, r.scenario, r.reqPerSec.toFixed(0), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2), r.gatewayCpuUsPerReq.toFixed(0)])];
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
const line = (row: string[]) => `| ${row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
process.stdout.write(`\n${[line(rows[0]!), `|${widths.map((w, i) => (i < 2 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.slice(1).map(line)].join('\n')}\n`);
await issuer.close();
for (const engine of engines) {
  const cost = (name: string) => results.find((r) => r.engine === engine && r.scenario === name)?.gatewayCpuUsPerReq ?? Number.NaN;
  process.stdout.write(`\n${engine}: verification + authorization cost ${(cost('Get group, verified + authorized') - cost('Get group')).toFixed(0)} µs of gateway CPU per Get`);
}
process.stdout.write(`\n${groupCount} groups, ${connections} connections, ${duration} s per scenario after ${warmup} s of warm-up, Node ${process.version}\n`);
if (flags.json) writeFileSync(flags.json, JSON.stringify({ groups: groupCount, connections, duration, warmup, results }, null, 2));
const failed = results.filter((r) => r.non200 > 0);
if (failed.length > 0) {
  process.stderr.write(`bench: responses other than 200: ${failed.map((r) => `${r.engine} ${r.scenario}: ${r.non200}`).join(', ')}\n`);
  process.exit(1);
}
