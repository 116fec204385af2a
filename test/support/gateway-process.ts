/**
 * A gateway as a real process (`node src/cli.ts …`), spoken to over its port: for the suites that kill,
 * restart or run replicas of it. Each process started is killed when the file's suites end, whatever
 * happened to them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll } from 'vitest';
import { Client } from './stack.ts';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;

export interface GatewayProcess {
  child: ChildProcess;
  client: Client;
  /** What it wrote to stderr so far. */
  stderr: () => string;
  /** Its log lines (stdout) so far. */
  stdout: () => string;
}

const running: ChildProcess[] = [];
afterAll(() => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Starts the CLI with `args` (and `env` over this process's environment); resolves once its "v2gw listening" log line gives the address. */
export async function startGatewayProcess(args: readonly string[], env: Record<string, string> = {}): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [CLI, '--log-level', 'info', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  running.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  let stdout = '';
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => (stdout += `${line}\n`));
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start: ${stderr}`)), 20_000);
    child.once('exit', (code) => reject(new Error(`gateway exited (${code}) before listening: ${stderr}`)));
    lines.on('line', (line) => {
      if (!line.includes('"v2gw listening"')) return;
      clearTimeout(timer);
      resolve(JSON.parse(line).address);
    });
  });
  return { child, client: new Client(address), stderr: () => stderr, stdout: () => stdout };
}

/** Resolves when the child has exited, at once if it already has. */
export function exited(child: ChildProcess): Promise<unknown> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
}

/** Sends `signal` and resolves once the process has exited. */
export async function stopGatewayProcess(gateway: GatewayProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const done = exited(gateway.child);
  gateway.child.kill(signal);
  await done;
}
