/**
 * Instructions executed, counted by valgrind's callgrind: a server started under it, its counters
 * zeroed once it is warm, a fixed number of answers, then a dump of what it executed for them. The
 * count moves by a few % between runs (0.5% between two made by hand), whatever else the host runs,
 * where CPU time per answer moved by 10–35% between runs on the VMs this was measured on
 * (bench/README.md, Instructions). It counts every
 * thread of the process (V8's compiler and GC helpers too), and nothing of the kernel's.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Launch } from './children.ts';
import { installed } from './installed.ts';

export function callgrindAvailable(): boolean {
  return installed('valgrind', '--version') && installed('callgrind_control', '--version');
}

/** Wraps a launch so the process runs under callgrind, its dumps written to `dir` as `cg.<pid>[.<n>]`. */
export function underCallgrind(dir: string, launch: Launch): Launch {
  return (command, args) => launch('valgrind', ['--tool=callgrind', '--quiet', `--callgrind-out-file=${join(dir, 'cg.%p')}`, command, ...args]);
}

/** Zeroes the process's counters (the warm-up's instructions are not counted). */
export function zeroCounts(pid: number): void {
  execFileSync('callgrind_control', ['-z', String(pid)], { stdio: 'ignore' });
}

/** Dumps the process's counters since they were last zeroed and answers the instructions in that dump, and the dump's file. */
export async function dumpCounts(dir: string, pid: number): Promise<{ instructions: number; file: string }> {
  const before = new Set(readdirSync(dir));
  execFileSync('callgrind_control', ['-d', String(pid)], { stdio: 'ignore' });
  // callgrind writes the dump when the process next runs guest code; wait for it whole (its totals last).
  for (let waited = 0; waited < 60_000; waited += 250) {
    const dump = readdirSync(dir).find((name) => name.startsWith(`cg.${pid}.`) && !before.has(name));
    if (dump) {
      const text = readFileSync(join(dir, dump), 'utf8');
      if (/^totals:/m.test(text)) return { instructions: instructionsOf(text), file: join(dir, dump) };
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`callgrind wrote no dump for process ${pid} in ${dir} within a minute`);
}

/** The instructions (`Ir`) a callgrind dump totals: its `totals:` line, or `summary:` when it has none. Pure. */
export function instructionsOf(dump: string): number {
  const line = /^totals:\s+(\d+)/m.exec(dump) ?? /^summary:\s+(\d+)/m.exec(dump);
  if (!line) throw new Error('a callgrind dump without totals');
  return Number(line[1]);
}
