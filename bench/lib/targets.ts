/**
 * Load targets on a gateway: REST through autocannon, gRPC through our own
 * load generator, each with a probe that checks one real answer first (the
 * run refuses to measure an error page or a failing RPC).
 */
import { toBinary } from '@bufbuild/protobuf';
import { frame } from '../../src/index.ts';
import type { Target } from './compare.ts';
import { unaryClient, type GrpcClientKind, type UnaryClient } from './grpc-clients.ts';
import { grpcLoad } from './grpc-load.ts';
import { h2loadLoad, type H2loadCall } from './h2load-load.ts';
import { restLoad } from './rest-load.ts';
import type { LoadRun } from './stats.ts';
import { grpcAsJson, type Scenario } from './scenarios.ts';

export const AUTHORIZATION = 'Bearer bench';
/** Per-request timeout, both protocols: a stuck request counts as a failure, it does not stall the run. */
const TIMEOUT_MS = 10_000;

/** Makes one REST load run: autocannon (bench/lib/rest-load.ts) or wrk (bench/lib/wrk-load.ts). */
export type RestLoader = (url: string, headers: Record<string, string>, connections: number, seconds: number) => Promise<LoadRun>;

export function restTarget(label: string, server: string, gateway: string, scenario: Scenario, connections: number, loader: RestLoader = restLoad): Target {
  return urlTarget(label, server, `${gateway}${scenario.restPath}`, connections, loader);
}

/** Any URL loaded over HTTP/1.1: v1 directly, or the raw floor. */
export function urlTarget(label: string, server: string, url: string, connections: number, loader: RestLoader = restLoad): Target {
  return { label, server, load: (seconds) => loader(url, { authorization: AUTHORIZATION }, connections, seconds) };
}

export async function probeRest(label: string, gateway: string, scenario: Scenario): Promise<void> {
  await probeUrl(label, `${gateway}${scenario.restPath}`, scenario.check);
}

/** Fetches `url` once and checks its answer; throws saying what was wrong. */
export async function probeUrl(label: string, url: string, check: Scenario['check']): Promise<void> {
  const response = await fetch(url, { headers: { authorization: AUTHORIZATION }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${label}: ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  const problem = check(JSON.parse(text));
  if (problem) throw new Error(`${label}: ${url}: ${problem}`);
}

/** What makes the gRPC load: h2load (h2load-load.ts), or our own generator on one of two clients (grpc-load.ts). */
export type GrpcLoadKind = 'h2load' | GrpcClientKind;
export const GRPC_LOAD_KINDS: readonly GrpcLoadKind[] = ['h2load', 'grpc-js', 'connect'];

export interface GrpcSettings {
  client: GrpcLoadKind;
  /** Concurrent callers. */
  callers: number;
  /** HTTP/2 sessions the callers are spread over. */
  sessions: number;
  acceptGzip: boolean;
}

/** A real gRPC client: the load's own, or grpc-js where h2load makes the load (and for probes). */
function clientFor(gateway: string, scenario: Scenario, settings: GrpcSettings): UnaryClient {
  return unaryClient(settings.client === 'h2load' ? 'grpc-js' : settings.client, gateway, {
    method: scenario.grpc.method,
    request: scenario.grpc.request,
    authorization: AUTHORIZATION,
    timeoutMs: TIMEOUT_MS,
    acceptGzip: settings.acceptGzip,
  });
}

/**
 * A gRPC target. Its sessions are opened once and kept across warm-up and rounds, as a gRPC client keeps its
 * channel (autocannon opens fresh connections per run; a handful of TCP handshakes is noise at these rates).
 */
export function grpcTarget(label: string, server: string, gateway: string, scenario: Scenario, settings: GrpcSettings): Target & { close(): void } {
  if (settings.client === 'h2load') return h2loadTarget(label, server, gateway, scenario, settings);
  const clients = Array.from({ length: settings.sessions }, () => clientFor(gateway, scenario, settings));
  return {
    label,
    server,
    load: (seconds) => grpcLoad(clients, settings.callers, seconds),
    close: () => clients.forEach((c) => c.close()),
  };
}

/**
 * h2load opens its sessions afresh each run (as wrk its connections). The size of an OK answer, which
 * tells h2load's failed calls from the rest, is learnt once from one call made by a real client.
 */
function h2loadTarget(label: string, server: string, gateway: string, scenario: Scenario, settings: GrpcSettings): Target & { close(): void } {
  if (settings.acceptGzip) throw new Error(`${label}: h2load cannot decompress answers; measure gzip with --grpc-client grpc-js or connect`);
  if (settings.callers !== settings.sessions) throw new Error(`${label}: h2load makes one call at a time per session (callers = sessions)`);
  let call: Promise<H2loadCall> | undefined;
  return {
    label,
    server,
    load: async (seconds) => {
      call ??= h2loadGrpcCall(gateway, scenario, settings);
      return h2loadLoad(await call, settings.sessions, seconds);
    },
    close: () => {},
  };
}

/** The scenario's gRPC call as h2load makes it, with the size of an OK answer learnt from one real call. */
export async function h2loadGrpcCall(gateway: string, scenario: Scenario, settings: GrpcSettings): Promise<H2loadCall> {
  const { method, request } = scenario.grpc;
  return {
    url: `${gateway}/${method.parent.typeName}/${method.name}`,
    body: frame(toBinary(method.input, request)),
    headers: { authorization: AUTHORIZATION },
    answerBytes: await framedAnswerSize(gateway, scenario, settings),
  };
}

/** The framed size of the scenario's answer from `gateway`, made once by a real client: what every OK answer measures. */
async function framedAnswerSize(gateway: string, scenario: Scenario, settings: GrpcSettings): Promise<number> {
  const client = clientFor(gateway, scenario, settings);
  try {
    return frame(toBinary(scenario.grpc.method.output, await client.call())).length;
  } finally {
    client.close();
  }
}

/** One call, its answer checked as REST's is; throws with the gRPC status when it fails. */
export async function probeGrpc(label: string, gateway: string, scenario: Scenario, settings: GrpcSettings): Promise<void> {
  const rpc = `${scenario.grpc.method.parent.typeName}/${scenario.grpc.method.name}`;
  const client = clientFor(gateway, scenario, settings);
  let answer: Awaited<ReturnType<UnaryClient['call']>>;
  try {
    answer = await client.call();
  } catch (error) {
    throw new Error(`${label}: ${rpc} on ${gateway} failed: ${(error as Error).message}`);
  } finally {
    client.close();
  }
  const problem = scenario.check(grpcAsJson(scenario.grpc.method, answer));
  if (problem) throw new Error(`${label}: ${rpc}: ${problem}`);
}
