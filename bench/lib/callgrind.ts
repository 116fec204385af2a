/**
 * Instructions executed, counted by valgrind's callgrind: a server started under it, its counters
 * zeroed once it is warm, a fixed number of answers, then a dump of what it executed for them. The
 * count moves by a few % between runs (0.5% between two made by hand), whatever else the host runs,
 * where CPU time per answer moved by 10–35% between runs on the VMs this was measured on
 * (bench/README.md, Instructions). It counts every
 * thread of the process (V8's compiler and GC helpers, the comparison's worker thread too), each in a
 * dump of its own (`--separate-threads`), so the event loop's thread can be told from the others; and
 * nothing of the kernel's.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Launch } from './children.ts';
import { installed } from './installed.ts';

export function callgrindAvailable(): boolean {
  return installed('valgrind', '--version') && installed('callgrind_control', '--version');
}

/** Wraps a launch so the process runs under callgrind, its dumps written to `dir` as `cg.<pid>.<n>-<thread>` (thread 01 the main one). */
export function underCallgrind(dir: string, launch: Launch): Launch {
  return (command, args) => launch('valgrind', ['--tool=callgrind', '--quiet', '--separate-threads=yes', `--callgrind-out-file=${join(dir, 'cg.%p')}`, command, ...args]);
}

/** One thread's part of a dump: its file, its instructions, and whether it is the process's main thread (the event loop's). */
export interface ThreadDump {
  file: string;
  instructions: number;
  main: boolean;
}

/** Zeroes the process's counters (the warm-up's instructions are not counted). */
export function zeroCounts(pid: number): void {
  execFileSync('callgrind_control', ['-z', String(pid)], { stdio: 'ignore' });
}

/**
 * Dumps the process's counters since they were last zeroed and answers the instructions in that dump
 * (every thread's), and each thread's part of it.
 */
export async function dumpCounts(dir: string, pid: number): Promise<{ instructions: number; threads: ThreadDump[] }> {
  const before = new Set(readdirSync(dir));
  execFileSync('callgrind_control', ['-d', String(pid)], { stdio: 'ignore' });
  // callgrind writes the dump when the process next runs guest code, a file a thread: wait for them whole
  // (each one's totals last) and for no more to come.
  let seen = 0;
  for (let waited = 0; waited < 60_000; waited += 250) {
    const dumps = readdirSync(dir).filter((name) => name.startsWith(`cg.${pid}.`) && !before.has(name)).sort();
    const texts = dumps.map((name) => readFileSync(join(dir, name), 'utf8'));
    if (dumps.length > 0 && dumps.length === seen && texts.every((text) => /^totals:/m.test(text))) {
      const threads = dumps.map((name, i) => ({ file: join(dir, name), instructions: instructionsOf(texts[i]!), main: name.endsWith('-01') }));
      return { instructions: threads.reduce((sum, t) => sum + t.instructions, 0), threads };
    }
    seen = dumps.length;
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
