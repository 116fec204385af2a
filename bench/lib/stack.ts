/**
 * The servers of one scenario, each its own process on a loopback port: the
 * v1 emulator (one org, `groups` child groups), gateways on it (or on their own
 * store, in native mode), and the floors: the raw pass-through (bench/floor-process.ts), the
 * same forward in Fastify (bench/fastify-floor-process.ts), the translating ones (with the default
 * duties or without), and the gRPC ones.
 * Started afresh per scenario so one scenario's heap cannot tax the next
 * (bench/README.md), and so a process's peak RSS is that scenario's.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtScript, CHECKOUT } from './built.ts';
import { requireLoopback, startChild, type Child, type Launch } from './children.ts';
import { BENCH_LOG } from './gateway-defaults.ts';

const BENCH = dirname(dirname(fileURLToPath(import.meta.url)));

export interface Emulator {
  child: Child<{ url: string; orgId: string; groupId: string }>;
  url: string;
  org: string;
  group: string;
}

export interface EmulatorOptions {
  /** Groups without createdAt/updatedAt, as the public v1 sends them. */
  omitTimes?: boolean;
  /** A group changed after every answer, so consecutive answers differ (by default the list never changes). */
  changing?: boolean;
  /** UIDs and times from fixed sequences: two emulators started so hold the same rows. */
  sameData?: boolean;
  /** Ends every group's description (one field that differs from an emulator without it). */
  descriptionSuffix?: string;
  launch?: Launch;
}

export async function startEmulator(groups: number, options: EmulatorOptions = {}): Promise<Emulator> {
  const args = [
    '--groups', String(groups),
    ...(options.omitTimes ? ['--omit-group-timestamps'] : []),
    ...(options.changing ? ['--change-after-answers'] : []),
    ...(options.sameData ? ['--same-data'] : []),
    ...(options.descriptionSuffix ? ['--description-suffix', options.descriptionSuffix] : []),
  ];
  const child = await startChild<{ url: string; orgId: string; groupId: string }>('emulator', join(BENCH, 'emulator-process.ts'), args, options.launch ? { launch: options.launch } : {});
  return { child, url: requireLoopback('emulator', child.ready.url), org: child.ready.orgId, group: child.ready.groupId };
}

export interface Server {
  child: Child<{ url: string }>;
  url: string;
}

export interface GatewayOptions {
  /**
   * Checkout to run from: this one by default (its build, bench/lib/built.ts), or another (a worktree of
   * an older commit), whose own sources serve as they are.
   */
  root?: string;
  /** Run `root` from its own build (built here first) rather than from its sources, as this checkout runs. */
  built?: boolean;
  nodeArgs?: string[];
  /** Added to the environment it inherits (MALLOC_ARENA_MAX=2, as the image runs it). */
  env?: Record<string, string>;
  /** More src/config.ts flags (`--mode native --data-dir …`, `--walk-cache-ms 0`, …). */
  flags?: string[];
  launch?: Launch;
  /** How long it may take to say it is listening (longer under valgrind, bench/instructions.ts). */
  timeoutMs?: number;
}

/** A gateway on `v1Url` (translate mode), or with no v1 (`v1Url` undefined: pass `--mode native` in `flags`). */
export async function startGateway(name: string, v1Url: string | undefined, options: GatewayOptions = {}): Promise<Server> {
  const root = options.root ?? CHECKOUT;
  const script = !options.root || options.built ? builtScript('bench/gateway-process.ts', root) : join(root, 'bench', 'gateway-process.ts');
  const args = [...(v1Url ? ['--v1-url', v1Url] : []), ...(options.flags ?? [])];
  const child = await startChild<{ url: string }>(name, script, args, {
    cwd: root,
    ...(options.nodeArgs ? { nodeArgs: options.nodeArgs } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.launch ? { launch: options.launch } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  return { child, url: requireLoopback(name, child.ready.url) };
}

/** How a floor's process is started: under what (valgrind, bench/instructions.ts), and how long it may take to listen. */
export interface FloorOptions {
  launch?: Launch;
  timeoutMs?: number;
  /** Node flags for the floor (none by default: Node's own settings). */
  nodeArgs?: readonly string[];
  /** Added to the environment it inherits (bench/allocations.ts: where its sampler writes). */
  env?: Record<string, string>;
}

function childOptions({ launch, timeoutMs, nodeArgs, env }: FloorOptions): { launch?: Launch; timeoutMs?: number; nodeArgs?: string[]; env?: Record<string, string> } {
  return { ...(launch ? { launch } : {}), ...(timeoutMs ? { timeoutMs } : {}), ...(nodeArgs?.length ? { nodeArgs: [...nodeArgs] } : {}), ...(env ? { env } : {}) };
}

/** The gRPC floors: the raw one, the least translation answering the RPC's own message, and the same with the gateway's default duties. */
export const GRPC_FLOORS = { raw: 'bench/grpc-floor-process.ts', translating: 'bench/grpc-translation-floor-process.ts', duties: 'bench/grpc-translation-floor-process.ts' } as const;

/** The floors with the default duties (bench/lib/least-duties.ts): their access lines go where the gateways' go. */
const DUTY_LOG = ['--log', BENCH_LOG];
const GRPC_FLOOR_FLAGS: Partial<Record<keyof typeof GRPC_FLOORS, readonly string[]>> = { duties: ['--duties', ...DUTY_LOG] };

/**
 * A gRPC floor (the raw one unless `kind` says): each unary call answered from the one v1 call at `v1Path`.
 * `args`: the floor's own flags (the translating floors' RPC, resource and page).
 */
export async function startGrpcFloor(name: string, v1Url: string, v1Path: string, options: FloorOptions & { kind?: keyof typeof GRPC_FLOORS; args?: readonly string[] } = {}): Promise<Server> {
  const kind = options.kind ?? 'raw';
  const child = await startChild<{ url: string }>(name, builtScript(GRPC_FLOORS[kind]), ['--v1-url', v1Url, '--v1-path', v1Path, ...(GRPC_FLOOR_FLAGS[kind] ?? []), ...(options.args ?? [])], childOptions(options));
  return { child, url: requireLoopback(name, child.ready.url) };
}

/**
 * The HTTP/1.1 floors: the raw pass-through, the same forward inside a Fastify route, the least translation,
 * and the least translation in a Fastify route with the gateway's default duties; and the compare part's
 * recorded candidate (`--v1-url`: the candidate it records).
 */
export const FLOORS = { raw: 'bench/floor-process.ts', fastify: 'bench/fastify-floor-process.ts', translating: 'bench/translation-floor-process.ts', duties: 'bench/duty-floor-process.ts', recorded: 'bench/recorded-candidate-process.ts' } as const;

const FLOOR_FLAGS: Partial<Record<keyof typeof FLOORS, readonly string[]>> = { duties: DUTY_LOG };

/**
 * An HTTP/1.1 floor on `v1Url` (the raw one unless `kind` says), built as the gateway is, so neither carries
 * the type stripper. `args`: the floor's own flags (the translating floors' resource and page).
 */
export async function startFloor(name: string, v1Url: string, options: FloorOptions & { kind?: keyof typeof FLOORS; args?: readonly string[] } = {}): Promise<Server> {
  const kind = options.kind ?? 'raw';
  const child = await startChild<{ url: string }>(name, builtScript(FLOORS[kind]), ['--v1-url', v1Url, ...(FLOOR_FLAGS[kind] ?? []), ...(options.args ?? [])], childOptions(options));
  return { child, url: requireLoopback(name, child.ready.url) };
}
