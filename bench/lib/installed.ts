/**
 * Whether a command the benchmark can use is on this machine: it runs and
 * exits 0 when asked for its version (`h2load --version`, `taskset -V`).
 */
import { execFileSync } from 'node:child_process';

export function installed(command: string, versionFlag: string): boolean {
  try {
    execFileSync(command, [versionFlag], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
