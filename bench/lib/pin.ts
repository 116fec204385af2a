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
import { readdirSync } from 'node:fs';
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
 * Keeps a server's event-loop thread (the main thread: its thread id is the process id) on the server's
 * core and moves every other thread of it (a worker of its own, V8's compiler and GC helpers, libuv's
 * pool) to the support cores: work a server hands to another thread may then run beside its event loop,
 * as it would on any machine with a core to spare. Threads made later inherit the main thread's core, so
 * call it again once they exist (after a warm-up).
 */
export function pinThreadsApart(pin: Pinning, pid: number): void {
  if (!pin.active) return;
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return;
  }
  for (const tid of threads) {
    const cores = tid === String(pid) ? pin.cores.server : pin.cores.support;
    try {
      execFileSync('taskset', ['-p', '-c', cores, tid], { stdio: 'ignore' });
    } catch {
      // A thread that ended meanwhile has no core to keep.
    }
  }
}
