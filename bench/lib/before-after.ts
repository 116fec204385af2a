/**
 * Part 2: this checkout against the code of an earlier commit, in one run.
 * The earlier commit is checked out into a temporary worktree
 * (bench/lib/worktree.ts) and its own bench/gateway-process.ts serves from
 * there, next to this checkout's gateway, both on the same emulator; REST
 * only, since the old code has no gRPC. The targets alternate as in part 1.
 */
import { compare } from './compare.ts';
import type { ComparisonResult, RunSettings } from './protocols.ts';
import { scenario as scenarioFor, type ScenarioKey } from './scenarios.ts';
import { startEmulator, startGateway } from './stack.ts';
import { probeRest, restTarget } from './targets.ts';

export async function beforeAfter(key: ScenarioKey, settings: RunSettings, before: { path: string; label: string }): Promise<ComparisonResult> {
  const emulator = await startEmulator(settings.groups);
  const old = await startGateway('gateway-before', emulator.url, { root: before.path, nodeArgs: settings.gatewayNodeArgs });
  const now = await startGateway('gateway-new', emulator.url, { nodeArgs: settings.gatewayNodeArgs });
  try {
    process.stderr.write(`bench: v1 emulator ${emulator.url} (org ${emulator.org}), gateway before ${old.url} (${before.path}), gateway new ${now.url}\n`);
    const scenario = scenarioFor(key, emulator.org, emulator.group);
    await probeRest(before.label, old.url, scenario);
    await probeRest('new', now.url, scenario);
    const compared = await compare(
      restTarget(before.label, 'before', old.url, scenario, settings.connections),
      restTarget('new', 'new', now.url, scenario, settings.connections),
      {
        pids: { before: old.child.pid, new: now.child.pid, v1: emulator.child.pid },
        duration: settings.duration,
        warmup: settings.warmup,
        rounds: settings.rounds,
        name: scenario.name,
      },
    );
    return { ...compared, scenario: scenario.name, labels: { a: before.label, b: 'new' }, servers: { a: 'before', b: 'new' } };
  } finally {
    await now.child.stop();
    await old.child.stop();
    await emulator.child.stop();
  }
}
