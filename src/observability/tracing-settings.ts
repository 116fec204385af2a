/**
 * Tracing's settings, read from the standard OpenTelemetry environment
 * variables (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
 * Pure: the environment in, the settings out, or a ConfigError naming the
 * variable — a typo in a deployment must not silently turn tracing off.
 *
 * Off unless asked: tracing starts when OTEL_TRACES_EXPORTER is `otlp`, or
 * when it is unset and an OTLP endpoint is set (what a cluster's collector
 * injection sets). OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none keep it off.
 */
import { ConfigError } from '../config.ts';

export type SamplerName = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';
const SAMPLERS: readonly SamplerName[] = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

export interface ExportSettings {
  protocol: 'http/protobuf' | 'http/json';
  /** The traces endpoint, `…/v1/traces`. */
  url: string;
  /** Sent with every export (a collector's API key): never logged. */
  headers: Record<string, string>;
  timeoutMillis: number | undefined;
  compression: 'gzip' | 'none' | undefined;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES. */
  resource: Record<string, string>;
  sampler: SamplerName;
  /** The ratio of the `traceidratio` samplers (OTEL_TRACES_SAMPLER_ARG), 0 to 1. */
  ratio: number;
  /** OTEL_BSP_*: how spans are batched for export; undefined leaves the SDK's default. */
  batch: { scheduledDelayMillis?: number; exportTimeoutMillis?: number; maxQueueSize?: number; maxExportBatchSize?: number };
}

export type TracingSettings = { enabled: false } | ({ enabled: true } & ExportSettings);

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_ENDPOINT = 'http://localhost:4318';

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** The signal-specific variable (`OTEL_EXPORTER_OTLP_TRACES_…`) wins over the general one. */
function otlp(env: Env, suffix: string): { name: string; value: string } | undefined {
  for (const name of [`OTEL_EXPORTER_OTLP_TRACES_${suffix}`, `OTEL_EXPORTER_OTLP_${suffix}`]) {
    const value = read(env, name);
    if (value !== undefined) return { name, value };
  }
  return undefined;
}

function wholeNumber(env: Env, name: string): number | undefined {
  const value = read(env, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw new ConfigError(`${name}: must be a whole number in decimal digits, not ${JSON.stringify(value)}`);
  return Number(value);
}

function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name}: must be an http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name}: must be an http(s) URL`);
  return url.toString();
}

/** `key=value,key=value`, each part percent-decoded (the W3C Baggage form the specification uses for both variables). */
function keyValues(name: string, value: string | undefined): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const part of (value ?? '').split(',')) {
    if (!part.trim()) continue;
    const at = part.indexOf('=');
    if (at <= 0) throw new ConfigError(`${name}: every entry must be key=value`);
    try {
      pairs[decodeURIComponent(part.slice(0, at).trim())] = decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      throw new ConfigError(`${name}: an entry is not valid percent-encoding`);
    }
  }
  return pairs;
}

function enabled(env: Env): boolean {
  if (read(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return false;
  const exporters = read(env, 'OTEL_TRACES_EXPORTER')?.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
  if (!exporters) return otlp(env, 'ENDPOINT') !== undefined;
  const unsupported = exporters.filter((e) => e !== 'otlp' && e !== 'none');
  if (unsupported.length) throw new ConfigError(`OTEL_TRACES_EXPORTER: v2gw exports traces over OTLP only (otlp or none), not ${unsupported.join(', ')}`);
  return exporters.includes('otlp');
}

export function tracingSettings(env: Env): TracingSettings {
  if (!enabled(env)) return { enabled: false };
  const protocol = otlp(env, 'PROTOCOL') ?? { name: 'OTEL_EXPORTER_OTLP_PROTOCOL', value: 'http/protobuf' };
  if (protocol.value !== 'http/protobuf' && protocol.value !== 'http/json') {
    throw new ConfigError(`${protocol.name}: v2gw exports over OTLP/HTTP, http/protobuf or http/json, not ${protocol.value}`);
  }
  const specific = read(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const general = read(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  // The traces endpoint is used as given; the general one is a base to which the signal's path is appended.
  const url = specific !== undefined
    ? httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', specific)
    : `${httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', general ?? DEFAULT_ENDPOINT).replace(/\/+$/, '')}/v1/traces`;
  const compression = otlp(env, 'COMPRESSION');
  if (compression && compression.value !== 'gzip' && compression.value !== 'none') throw new ConfigError(`${compression.name}: must be gzip or none`);
  const timeout = otlp(env, 'TIMEOUT');
  const headers = otlp(env, 'HEADERS');
  const resource = keyValues('OTEL_RESOURCE_ATTRIBUTES', read(env, 'OTEL_RESOURCE_ATTRIBUTES'));
  const sampler = (read(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on') as SamplerName;
  if (!SAMPLERS.includes(sampler)) throw new ConfigError(`OTEL_TRACES_SAMPLER: must be one of ${SAMPLERS.join(', ')}`);
  const arg = read(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = arg === undefined ? 1 : Number(arg);
  if (sampler.endsWith('traceidratio') && !(/^[\d.]+$/.test(arg ?? '1') && ratio >= 0 && ratio <= 1)) {
    throw new ConfigError('OTEL_TRACES_SAMPLER_ARG: the ratio must be a number from 0 to 1');
  }
  const batch = {
    scheduledDelayMillis: wholeNumber(env, 'OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: wholeNumber(env, 'OTEL_BSP_EXPORT_TIMEOUT'),
    maxQueueSize: wholeNumber(env, 'OTEL_BSP_MAX_QUEUE_SIZE'),
    maxExportBatchSize: wholeNumber(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  };
  return {
    enabled: true,
    protocol: protocol.value,
    url,
    headers: keyValues(headers?.name ?? 'OTEL_EXPORTER_OTLP_HEADERS', headers?.value),
    timeoutMillis: timeout ? wholeNumberValue(timeout.name, timeout.value) : undefined,
    compression: compression?.value as ExportSettings['compression'],
    serviceName: read(env, 'OTEL_SERVICE_NAME') ?? resource['service.name'] ?? 'v2gw',
    resource,
    sampler,
    ratio,
    batch: Object.fromEntries(Object.entries(batch).filter(([, v]) => v !== undefined)),
  };
}

function wholeNumberValue(name: string, value: string): number {
  return wholeNumber({ [name]: value }, name)!;
}

/** For the startup line: where spans go and how they are sampled; never the export headers, nor a password in the URL. */
export function describeTracing(settings: TracingSettings): string {
  if (!settings.enabled) return 'off';
  const url = new URL(settings.url);
  if (url.username) url.username = '***';
  if (url.password) url.password = '***';
  const sampler = settings.sampler.endsWith('traceidratio') ? `${settings.sampler} ${settings.ratio}` : settings.sampler;
  return `OTLP ${settings.protocol} to ${url.toString()}, sampler ${sampler}, service.name ${settings.serviceName}`;
}
