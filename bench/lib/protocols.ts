/**
 * Part 1: gRPC against REST on the same gateway process in the same run. The
 * same scenario is asked over HTTP/1.1 + JSON (autocannon) and over gRPC
 * (HTTP/2 + protobuf, our load generator) of one gateway, alternating, so the
 * ratio is the protocol's cost and nothing else: same process, same heap,
 * same emulator, same minutes.
 */
import { compare, type Compared } from './compare.ts';
import { scenario as scenarioFor, type ScenarioKey } from './scenarios.ts';
import { startEmulator, startGateway } from './stack.ts';
import { grpcTarget, probeGrpc, probeRest, restTarget, type GrpcSettings } from './targets.ts';

export interface RunSettings {
  duration: number;
  warmup: number;
  rounds: number;
  connections: number;
  groups: number;
  grpc: GrpcSettings;
  /** Node flags for every gateway process (`--cpu-prof --cpu-prof-dir=<dir>` for a V8 profile of each). */
  gatewayNodeArgs: string[];
}

export interface ComparisonResult extends Compared {
  scenario: string;
  labels: { a: string; b: string };
  /** Process label of each target's gateway, for its CPU column. */
  servers: { a: string; b: string };
}

export async function protocols(key: ScenarioKey, settings: RunSettings): Promise<ComparisonResult> {
  const emulator = await startEmulator(settings.groups);
  const gateway = await startGateway('gateway', emulator.url, { nodeArgs: settings.gatewayNodeArgs });
  try {
    process.stderr.write(`bench: v1 emulator ${emulator.url} (org ${emulator.org}), gateway ${gateway.url}\n`);
    const scenario = scenarioFor(key, emulator.org, emulator.group);
    await probeRest('REST', gateway.url, scenario);
    await probeGrpc('gRPC', gateway.url, scenario, settings.grpc);
    const rest = restTarget('REST', 'gateway', gateway.url, scenario, settings.connections);
    const grpc = grpcTarget('gRPC', 'gateway', gateway.url, scenario, settings.grpc);
    try {
      const compared = await compare(rest, grpc, {
        pids: { gateway: gateway.child.pid, v1: emulator.child.pid },
        duration: settings.duration,
        warmup: settings.warmup,
        rounds: settings.rounds,
        name: scenario.name,
      });
      return { ...compared, scenario: scenario.name, labels: { a: 'REST', b: 'gRPC' }, servers: { a: 'gateway', b: 'gateway' } };
    } finally {
      grpc.close();
    }
  } finally {
    await gateway.child.stop();
    await emulator.child.stop();
  }
}

