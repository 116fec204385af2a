/**
 * The gateway as a container runs it: `node src/cli.ts` in a process of its own, configured by
 * environment variables alone, so a manifest's `env` can be started exactly as written.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;

/** A TCP port free on loopback a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

export interface CliProcess {
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** SIGTERM; resolves once it has exited. */
  stop(): Promise<void>;
}

/** Starts the CLI with `env` over this process's environment; resolves once it logs that it listens. */
export async function startCli(env: Record<string, string>, timeoutMs = 20_000): Promise<CliProcess> {
  const child = spawn(process.execPath, [CLI], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (out += chunk));
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the gateway did not listen within ${timeoutMs} ms:\n${out}`)), timeoutMs);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the gateway exited (${code}) before listening:\n${out}`));
      });
      child.stdout.on('data', () => {
        if (!out.includes('v2gw listening')) return;
        clearTimeout(timer);
        resolve();
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { output: () => out, stop };
}
