/**
 * Which core each process of a run may use. The method: the server
 * under test alone on one core, so its req/s is its own CPU cost and not a
 * share of a core it fights the load generator for. With taskset and at least
 * two cores, servers under test (the floor, the gateways) are pinned to the
 * last core, and everything else (this load generator, wrk, the v1 emulator)
 * to the others. Without taskset, or on one core, nothing is pinned and the
 * run says so.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { installed } from './installed.ts';

export type Role = 'server' | 'support';


export interface Pinning {
  /** False when nothing is pinned (no taskset, or one core). */
  active: boolean;
  /** The cores a role may use, as taskset's list (`1`, `0-2`). */
  cores: Record<Role, string>;
  /** `command args` prefixed so the process starts pinned to the role's cores. */
  command(role: Role, command: string, args: string[]): [string, string[]];
}

export function pinning(enabled: boolean): Pinning {
  const n = availableParallelism();
  const active = enabled && n >= 2 && installed('taskset', '-V');
  const cores: Record<Role, string> = { server: String(n - 1), support: n === 2 ? '0' : `0-${n - 2}` };
  return {
    active,
    cores,
    command: (role, command, args) => (active ? ['taskset', ['-c', cores[role], command, ...args]] : [command, args]),
  };
}

/** Moves this process (the load generator) onto the support cores; its later children inherit them. */
export function pinSelf(pin: Pinning): void {
  if (pin.active) execFileSync('taskset', ['-p', '-c', pin.cores.support, String(process.pid)], { stdio: 'ignore' });
}

/**
 * Moves the threads of process `pid` named `name` (their `comm`, which Node sets from a Worker's `name`)
 * to the support cores, leaving the rest of the process (its event loop, V8's helpers) where it was
 * pinned: work a server hands to a thread of its own may then run beside its event loop, as it would on
 * any machine with a core to spare. A thread made later starts where the thread that made it runs, so
 * call it again once such threads exist (after a warm-up).
 */
export function moveThreadsNamed(pin: Pinning, pid: number, name: string): void {
  if (!pin.active) return;
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return;
  }
  for (const tid of threads) {
    try {
      if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() !== name) continue;
      execFileSync('taskset', ['-p', '-c', pin.cores.support, tid], { stdio: 'ignore' });
    } catch {
      // A thread that ended meanwhile has no core to keep.
    }
  }
}
