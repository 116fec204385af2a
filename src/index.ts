/**
 * v2gw's public entry: what a program that embeds the gateway may use. The benchmark (bench/) is
 * such a program; everything else under src/ is internal and free to move. The import rules
 * (.dependency-cruiser.cjs) hold bench/ and scripts/ to this file, and to the v1 emulator's own
 * entry (src/emulator/v1/index.ts).
 *
 * Importing it loads the contract, the mappings, the renderer and the gRPC encoder, and nothing
 * more: the configuration, the server, the logger, the store and the native backend (with their
 * libraries) are loaded when first asked for, as the CLI loads each mode's backend. A module loaded
 * is memory held for the life of the process, and the benchmark's translating floors, which only
 * render and encode, are a yardstick: they must hold no more than they use.
 */
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { ACCESS, MAPPINGS } from '../mappings/index.ts';
import { MappingRegistry } from './port/registry.ts';
import { renderV2 } from './translate/v1-row.ts';
import type { Json } from './vocabulary/json.ts';
import type { Config } from './config.ts';
import type { GatewayMetrics } from './observability/metrics.ts';
import type { NativeBackend } from './native/native-backend.ts';
import type { ContextInput, RequestContext } from './request/context.ts';
import type { GatewayConfig, GatewayOptions } from './server.ts';
import type { OpenStoreOptions } from './store/open.ts';
import type { Store } from './store/types.ts';

// ---------------------------------------------------------------- running a gateway

/** The name of the thread a comparing gateway makes its comparisons on (its OS thread's too). */
export { WORKER_NAME as COMPARISON_THREAD } from './compare/worker-name.ts';

export type { Config } from './config.ts';

/** Start-up's memory handed back, as `npm start` does before it listens (with `--expose-gc`). */
export { releaseStartupMemory } from './startup-memory.ts';

/** The configuration the CLI would take from these flags and environment variables (src/config.ts's OPTIONS). */
export async function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<Config> {
  const config = await import('./config.ts');
  return config.loadConfig(argv, env);
}

/** One setting of the gateway as `--help` shows it: its flag, its environment variable, its default (undefined when unset) and what it means. */
export interface Setting {
  flag: string;
  env: string;
  default: string | undefined;
  help: string;
}

/** Every setting (src/config.ts's OPTIONS), in `--help`'s order. */
export async function settings(): Promise<Setting[]> {
  const { OPTIONS, defaultOf, describeDefault } = await import('./config.ts');
  return Object.values(OPTIONS).map((option) => {
    const value = defaultOf(option);
    return { flag: option.flag, env: option.env, default: value === undefined ? undefined : describeDefault(value), help: option.help };
  });
}

export type { GatewayConfig, GatewayOptions } from './server.ts';

/** A gateway built from a configuration (loadConfig's, with `v1Url` in translate mode), not yet listening. */
export async function buildGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<FastifyInstance> {
  const server = await import('./server.ts');
  return server.buildGateway(config, options);
}

/** A log destination (GatewayOptions.logStream) that writes to `file` as the gateway writes standard output: once per turn of the event loop. */
export async function bufferedLog(file: string): Promise<DestinationStream> {
  const log = await import('./log.ts');
  return log.bufferedDestination(file);
}

// ---------------------------------------------------------------- what every answer leaves behind

/** The gateway's access lines, as a program answering beside it writes them (the benchmark's floor with the default duties). */
export interface AccessLineWriter {
  /** Writes one access line of these fields at `info`, made as the gateway makes its own (the lines' fixed shape in one JSON.stringify). */
  write(fields: Record<string, unknown>): void;
  /** An HTTP request as its access line shows it: method, URL, remote address, the allowed headers with every credential censored. */
  requestSummary(request: { method: string; url: string; headers: Record<string, unknown>; ip?: string }): Record<string, unknown>;
  /** A duration in ms as a line carries it, to the microsecond. */
  ms(ms: number): number;
}

/** Access lines written to `stream` at `info` through pino, by the gateway's own access logger (no path redaction: the fields are censored before). */
export async function accessLineWriter(stream: DestinationStream): Promise<AccessLineWriter> {
  const log = await import('./log.ts');
  return { write: log.accessLines(log.accessLogger(log.createLogger('info', stream))), requestSummary: log.requestSummary, ms: log.logMs };
}

export type { GatewayMetrics };

/** A registry of the gateway's metrics (prom-client, its process metrics included), as each gateway keeps one; `/metrics` reads its exposition. */
export async function gatewayMetrics(): Promise<GatewayMetrics> {
  const metrics = await import('./observability/metrics.ts');
  return new metrics.GatewayMetrics();
}

// ---------------------------------------------------------------- the contract and the resources

export { apiServices, contract } from './contract/registry.ts';
export type { Json } from './vocabulary/json.ts';
export type { MappingRegistry } from './port/registry.ts';

/** Every resource's mapping, as the gateway serves them. */
export function mappingRegistry(): MappingRegistry {
  return new MappingRegistry(MAPPINGS);
}

/** Renders v1 rows of `resource` (as the mappings name it: `groups`) as the v2 documents the gateway answers with. */
export function v1Renderer(resource: string, registry = mappingRegistry()): (row: Json) => Json {
  const { fields } = registry.get(resource);
  return (row) => renderV2(fields, row);
}

/** docs/api.md's "Every RPC" table: each RPC of the contract, its REST route, and whether each mode serves it (or why not). */
export async function everyRpcTable(): Promise<string> {
  const [{ apiServices }, { bindContract }, { servedTable }, { UNSERVED }] = await Promise.all([
    import('./contract/registry.ts'), import('./contract/bindings.ts'), import('./contract/served-table.ts'), import('../mappings/unserved.ts'),
  ]);
  const services = apiServices();
  return servedTable(services, bindContract(services, MAPPINGS), UNSERVED);
}

/** `document` with its "Every RPC" table (between the table's markers) replaced by `table`. */
export async function withEveryRpcTable(document: string, table: string): Promise<string> {
  const { withTable } = await import('./contract/served-table.ts');
  return withTable(document, table);
}

/** The gRPC wire as the gateway writes it: a document as its RPC's protobuf message, and a message framed for the stream. */
export { documentBytes, framedDocument } from './transport/grpc/document-binary.ts';
export { frame } from './transport/grpc/envelope.ts';

// ---------------------------------------------------------------- the native store

export type { OpenStoreOptions } from './store/open.ts';
export type { Store, StoredResource } from './store/types.ts';
export type { OrderKey } from './aip/order-by.ts';
export type { NativeBackend } from './native/native-backend.ts';
export type { RequestContext } from './request/context.ts';

/** A request's context (caller, deadline, request id) for calling a backend directly. */
export async function requestContext(input: ContextInput): Promise<RequestContext> {
  const context = await import('./request/context.ts');
  return context.requestContext(input);
}

/** Opens (and migrates) the store at `location`: a data directory (SQLite), `:memory:`, or a `postgres://` URL. */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<Store> {
  const open = await import('./store/open.ts');
  return open.openStore(location, options);
}

/** Binds `subject` to the built-in owner role at `group`, in the store, as native mode does for an organisation's creator. */
export async function bindOwner(store: Store, group: string, subject: string): Promise<void> {
  const { StoreGrants } = await import('./policy/store-grants.ts');
  await new StoreGrants(store, ACCESS).bindCreator(group, subject);
}

/** Native mode's backend over an open store, writing each row as native mode does. */
export async function nativeBackend(store: Store, registry = mappingRegistry()): Promise<NativeBackend> {
  const native = await import('./native/native-backend.ts');
  return new native.NativeBackend({ store, registry });
}
