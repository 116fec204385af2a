/**
 * CPU time per request, per process, from /proc. On a small machine latency
 * includes waiting for a core that another process of the run holds; CPU per
 * request does not, so it is the figure that travels between machines.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) a process has used so far; NaN where there is no /proc. */
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

/** Process label → CPU seconds; `loadgen` is this process. */
export interface CpuSnapshot {
  seconds: Record<string, number>;
  at: number;
}

export function snapshot(pids: Record<string, number>): CpuSnapshot {
  const self = process.cpuUsage();
  const seconds: Record<string, number> = { loadgen: (self.user + self.system) / 1e6 };
  for (const [label, pid] of Object.entries(pids)) seconds[label] = cpuSeconds(pid);
  return { seconds, at: performance.now() };
}

/** CPU seconds each process used between two snapshots, and the wall seconds between them. */
export interface CpuSpent {
  seconds: Record<string, number>;
  wall: number;
}

export function spent(before: CpuSnapshot, after: CpuSnapshot): CpuSpent {
  const seconds: Record<string, number> = {};
  for (const label of Object.keys(before.seconds)) seconds[label] = after.seconds[label]! - before.seconds[label]!;
  return { seconds, wall: (after.at - before.at) / 1000 };
}
