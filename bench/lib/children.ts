/**
 * Benchmark children: servers in processes of their own, so none shares an
 * event loop (or a core's worth of CPU accounting) with the load generator.
 * Each prints one JSON line starting `{"url":` once it is listening; anything
 * else it prints goes to our stderr, never into a table. A child is killed
 * when this process ends, however it ends (bench/lib/cleanup.ts), and stops by
 * itself when its stdin, held by us, closes (bench/stop-with-parent.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { onCleanup } from './cleanup.ts';

export interface Child<T> {
  name: string;
  pid: number;
  ready: T;
  /** SIGTERM, then SIGKILL after 5 s; resolves once it has exited. */
  stop(): Promise<void>;
}

/** How a command is started: as it is, or wrapped (`taskset -c 1 …`, which execs it, so the pid is the same). */
export type Launch = (command: string, args: string[]) => [string, string[]];
const direct: Launch = (command, args) => [command, args];

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Starts `node [nodeArgs] <script> ...args` (in `cwd`) and resolves once it has printed its ready line. */
export function startChild<T extends { url: string }>(
  name: string,
  script: string,
  args: string[],
  options: { nodeArgs?: string[]; env?: Record<string, string>; cwd?: string; timeoutMs?: number; launch?: Launch } = {},
): Promise<Child<T>> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const [command, argv] = (options.launch ?? direct)(process.execPath, [...(options.nodeArgs ?? []), script, ...args]);
  const child = spawn(command, argv, { stdio: ['pipe', 'pipe', 'inherit'], cwd: options.cwd, env: { ...process.env, ...options.env } });
  // Registered per child, after anything it runs from (a worktree), so it is killed before that goes.
  const kill = onCleanup(() => {
    if (alive(child)) child.kill('SIGKILL');
  });
  let stopping = false;
  const stop = () =>
    new Promise<void>((resolve) => {
      stopping = true;
      if (!alive(child)) {
        kill();
        return resolve();
      }
      const force = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(force);
        kill();
        resolve();
      });
      child.kill('SIGTERM');
    });

  return new Promise<Child<T>>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => fail(new Error(`${name} did not report ready within ${timeoutMs} ms`)), timeoutMs);
    function fail(error: Error): void {
      clearTimeout(timer);
      lines.close();
      kill();
      reject(error);
    }
    child.once('error', fail);
    child.once('exit', (code, signal) => fail(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})`)));
    let ready = false;
    lines.on('line', (line) => {
      if (ready || !line.startsWith('{"url":')) {
        process.stderr.write(`[${name}] ${line}\n`);
        return;
      }
      ready = true;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      // A child dying mid-run shows up as errors in the measurement; say which one it was.
      child.once('exit', (code, signal) => {
        if (!stopping) process.stderr.write(`bench: ${name} exited during the run (code ${code}, signal ${signal})\n`);
      });
      try {
        resolve({ name, pid: child.pid!, ready: JSON.parse(line) as T, stop });
      } catch {
        reject(new Error(`${name} printed ${JSON.stringify(line)} instead of its JSON ready line`));
      }
    });
  });
}

/** Refuses to load anything that is not on this machine's loopback. */
export function requireLoopback(name: string, url: string): string {
  const { hostname } = new URL(url);
  if (hostname !== '127.0.0.1' && hostname !== '[::1]' && hostname !== 'localhost') {
    throw new Error(`${name} is at ${url}, not a loopback address; refusing to load it`);
  }
  return url;
}
