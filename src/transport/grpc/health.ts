/**
 * The standard gRPC health service (grpc.health.v1.Health), so load
 * balancers, Kubernetes gRPC probes and grpc_health_probe can ask the gateway
 * over gRPC what REST callers ask `/readyz`. Every served service shares one
 * status: the gateway is ready or it is not, there is no per-service state.
 *
 * The descriptors come from the registry passed in (not generated code), so
 * messages are handled as plain shapes named after the proto's fields.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DescMethod, DescMethodBiDiStreaming, DescMethodServerStreaming, DescMethodUnary, DescService, FileRegistry } from '@bufbuild/protobuf';
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';

export interface HealthOptions {
  registry: FileRegistry;
  /** Whether the gateway can serve now; a rejection counts as not ready. */
  ready: () => Promise<boolean>;
  /** The fully-qualified services the gateway serves; asked on every call, so it may change. */
  services: () => readonly string[];
  /** How often a Watch re-checks `ready()`; default 1000. */
  watchIntervalMs?: number;
}

// HealthCheckResponse.ServingStatus, by number as the wire carries it.
const SERVING = 1;
const NOT_SERVING = 2;
const SERVICE_UNKNOWN = 3;

interface CheckRequest {
  service: string;
}

export function healthRoutes(router: ConnectRouter, options: HealthOptions): void {
  const service = requireService(options.registry, 'grpc.health.v1.Health');
  const interval = options.watchIntervalMs ?? 1000;

  // '' is the server as a whole (the protocol's convention); otherwise only what we serve is known.
  const known = (name: string): boolean => name === '' || options.services().includes(name);
  const overall = async (): Promise<number> => ((await options.ready().catch(() => false)) ? SERVING : NOT_SERVING);

  router.rpc(method(service, 'Check', 'unary'), async (request) => {
    const name = (request as unknown as CheckRequest).service;
    // The protocol answers NOT_FOUND, not SERVICE_UNKNOWN, for a Check of an unknown service.
    if (!known(name)) throw new ConnectError(`unknown service ${JSON.stringify(name)}`, Code.NotFound);
    return { status: await overall() };
  });

  // Optional in the protocol (newer health.proto); registered only when the proto declares it.
  if (service.methods.some((m) => m.name === 'List')) {
    router.rpc(method(service, 'List', 'unary'), async () => {
      const status = await overall();
      const statuses: Record<string, { status: number }> = { '': { status } };
      for (const name of options.services()) statuses[name] = { status };
      return { statuses };
    });
  }

  router.rpc(method(service, 'Watch', 'server_streaming'), async function* (request, context: HandlerContext) {
    const name = (request as unknown as CheckRequest).service;
    // An unknown service is not an error for Watch: it may be added later, so keep watching.
    const current = async (): Promise<number> => (known(name) ? overall() : SERVICE_UNKNOWN);
    let last: number | undefined;
    while (!context.signal.aborted) {
      const status = await current();
      // Only changes are sent (the first status always is), as the protocol asks.
      if (status !== last) {
        last = status;
        yield { status };
      }
      try {
        await sleep(interval, undefined, { signal: context.signal });
      } catch {
        return; // the caller went away (cancel, deadline, closed connection): end quietly
      }
    }
  });
}

/** The service as the registry describes it; a missing one is a build problem, so it fails loudly (the health and reflection tests see it). */
export function requireService(registry: FileRegistry, typeName: string): DescService {
  const service = registry.getService(typeName);
  if (!service) throw new Error(`the descriptor registry has no service ${typeName}`);
  return service;
}

interface MethodKinds {
  unary: DescMethodUnary;
  server_streaming: DescMethodServerStreaming;
  bidi_streaming: DescMethodBiDiStreaming;
}

/** A method of the service, checked to be of the kind its handler is written for. */
export function method<K extends keyof MethodKinds>(service: DescService, name: string, kind: K): MethodKinds[K] {
  const found: DescMethod | undefined = service.methods.find((m) => m.name === name);
  if (!found) throw new Error(`${service.typeName} has no method ${name}`);
  if (found.methodKind !== kind) throw new Error(`${service.typeName}.${name} is ${found.methodKind}, not ${kind}`);
  return found as MethodKinds[K];
}
