/**
 * `npm run bench:import`: how fast `npm run import` carries a large v1 into
 * each store engine, and how much memory it needs. For each size, the v1
 * emulator holds one organisation of that many groups (an identity and a role
 * binding in every tenth), in a process of its own; the import runs as users
 * run it, in another, so its peak resident memory is the import's alone.
 *
 *   node bench/import.ts [--sizes 10000,100000] [--engines sqlite,postgres]
 *
 * PostgreSQL: V2GW_BENCH_PG_URL, or the local server (a database of its own, dropped after).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

const ROOT = new URL('..', import.meta.url).pathname;
const PG_URL = process.env.V2GW_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '10000,100000' }, engines: { type: 'string', default: 'sqlite,postgres' } },
  strict: true,
});
const sizes = values.sizes.split(',').map(Number);
const engines = values.engines.split(',');

interface Child {
  out: () => string;
  exited: Promise<unknown>;
  kill: () => void;
}

function start(script: string, args: readonly string[]): Child {
  const child = spawn(process.execPath, [join(ROOT, script), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (out += chunk));
  return { out: () => out, exited: once(child, 'exit'), kill: () => child.kill('SIGTERM') };
}

async function emulator(groups: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = start('src/emulator/v1/cli.ts', ['--port', '0', '--seed', 'large', '--groups', String(groups)]);
  for (let waited = 0; !/listening on (\S+)/.test(child.out()); waited += 50) {
    if (waited > 600_000) throw new Error(`the emulator did not start:\n${child.out()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = /listening on (\S+)/.exec(child.out())![1]!;
  return { url, stop: async () => { child.kill(); await child.exited; } };
}

const results: string[] = [];
for (const size of sizes) {
  process.stderr.write(`bench:import: a v1 of ${size.toLocaleString('en-US')} groups\n`);
  const v1 = await emulator(size);
  const dir = mkdtempSync(join(tmpdir(), 'v2gw-bench-import-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'bench\n');
  try {
    for (const engine of engines) {
      const database = `v2gw_bench_import_${process.pid}`;
      const url = new URL(PG_URL);
      url.pathname = `/${database}`;
      const target = engine === 'sqlite' ? ['--data-dir', join(dir, 'data')] : ['--store', url.toString()];
      if (engine === 'postgres') await withPg((c) => c.query(`create database ${database}`));
      try {
        const run = start('src/import/cli.ts', ['--v1-url', v1.url, '--token-file', tokenFile, ...target]);
        await run.exited;
        const line = /([\d,]+) rows read in ([\d.]+) s, ([\d,]+) rows\/s, peak memory ([\d,]+) MiB/.exec(run.out());
        if (!line) throw new Error(`the import did not finish:\n${run.out()}`);
        results.push(`| ${size.toLocaleString('en-US')} | ${engine} | ${line[1]} | ${line[2]} s | ${line[3]} | ${line[4]} MiB |`);
        process.stderr.write(`  ${engine}: ${line[0]}\n`);
      } finally {
        if (engine === 'postgres') await withPg((c) => c.query(`drop database if exists ${database}`));
      }
    }
  } finally {
    await v1.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
process.stdout.write(`| groups | store | rows | time | rows/s | peak RSS |\n|--:|:--|--:|--:|--:|--:|\n${results.join('\n')}\n`);

async function withPg<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
