/**
 * The servers of one scenario: the v1 emulator (one org, `groups` child
 * groups) and a gateway on it, each its own process on a loopback port, started
 * afresh per scenario so one scenario's heap cannot tax the next (bench/README.md).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireLoopback, startChild, type Child } from './children.ts';

const BENCH = dirname(dirname(fileURLToPath(import.meta.url)));

export interface Emulator {
  child: Child<{ url: string; orgId: string; groupId: string }>;
  url: string;
  org: string;
  group: string;
}

export async function startEmulator(groups: number): Promise<Emulator> {
  const child = await startChild<{ url: string; orgId: string; groupId: string }>('emulator', join(BENCH, 'emulator-process.ts'), ['--groups', String(groups)]);
  return { child, url: requireLoopback('emulator', child.ready.url), org: child.ready.orgId, group: child.ready.groupId };
}

/**
 * A gateway on `v1Url`, run from `root`'s bench/gateway-process.ts: this checkout by default, or
 * another one (a worktree of an older commit), in which case its own code and configuration serve.
 */
export async function startGateway(name: string, v1Url: string, root = dirname(BENCH), nodeArgs: string[] = [], flags: string[] = []): Promise<{ child: Child<{ url: string }>; url: string }> {
  const child = await startChild<{ url: string }>(name, join(root, 'bench', 'gateway-process.ts'), ['--v1-url', v1Url, ...flags], { cwd: root, nodeArgs });
  return { child, url: requireLoopback(name, child.ready.url) };
}
