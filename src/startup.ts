/**
 * What a starting gateway says about itself: one log line an SRE can check
 * replicas against (mode, store, v1, which page-token key), and the warnings
 * a deployment must not miss. Pure: the CLI logs what this returns.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describeStore, type Config } from './config.ts';
import { SQLITE_FILE } from './store/sqlite.ts';

/**
 * A short, stable name for a secret: replicas that print the same fingerprint
 * seal page tokens with the same key. Domain-separated SHA-256, 8 hex digits:
 * enough to tell keys apart, too little to help guess one.
 */
export function keyFingerprint(key: string): string {
  return createHash('sha256').update('v2gw page-token key fingerprint\0').update(key).digest('hex').slice(0, 8);
}

export interface StartupFacts {
  address: string;
  /** Where /metrics, /healthz and /readyz are served apart from the API (--admin-port), if anywhere. */
  adminAddress?: string | undefined;
  version: string;
  /** Where spans go (`off`, or the exporter, endpoint and sampler): tracing.ts's description. */
  tracing?: string;
  /** The v1 backend in use (translate mode), and whether it is the in-process demo emulator. */
  v1Url?: string;
  emulator?: boolean;
}

export interface StartupSummary {
  fields: Record<string, unknown>;
  warnings: string[];
}

export function startupSummary(config: Config, facts: StartupFacts): StartupSummary {
  const fields: Record<string, unknown> = {
    version: facts.version,
    address: facts.address,
    ...(facts.adminAddress ? { adminAddress: facts.adminAddress } : {}),
    mode: config.mode,
    store: storeSummary(config),
    pageTokens: config.pageTokenKey
      ? `sealed with the configured key ${keyFingerprint(config.pageTokenKey)}`
      : 'sealed with a random key per process (not shared by replicas, lost on restart)',
    ...(facts.tracing ? { tracing: facts.tracing } : {}),
  };
  if (facts.v1Url) Object.assign(fields, { v1Url: withoutCredentials(facts.v1Url), emulator: !!facts.emulator });
  const warnings: string[] = [];
  // A deployment that forgot V2GW_V1_URL must not pass for a working one unnoticed.
  if (facts.emulator) warnings.push('no --v1-url / V2GW_V1_URL: serving an in-process v1 emulator with DEMO data, not a real backend');
  if (config.mode === 'native' && (config.authIssuer ?? []).length > 0) {
    fields.auth = `bearer tokens verified against ${config.authIssuer!.join(', ')} for audience ${config.authAudience}; callers authorized by their role bindings`;
  }
  if (config.mode === 'native' && (config.authIssuer ?? []).length === 0) {
    warnings.push(`AUTHENTICATION IS OFF: native mode without --auth-issuer verifies no token and authorizes nothing: any caller that reaches this port may read, change and delete everything${config.authDisabled ? ` (--auth-disabled: served on ${config.host})` : '; it binds loopback only'}. Set --auth-issuer and --auth-audience to verify tokens`);
    if (config.v1Url) warnings.push('--v1-url / V2GW_V1_URL is ignored in native mode: there is no v1 backend');
  }
  if (config.identity) fields.identity = `requests without a token act as identity ${config.identity}, exchanged at ${config.issuerUrl}/sts/exchange`;
  if (config.identity && config.identityAllowRemote) {
    warnings.push(`--identity-allow-remote: every caller that reaches ${config.host} without a token acts as identity ${config.identity}; admit only those that may (a NetworkPolicy)`);
  }
  if (!config.dataDir && !config.store) warnings.push('no --data-dir or --store: the store is in memory, so everything it keeps is lost when the process ends');
  return { fields, warnings };
}

/** The store's engine and where it is: `PostgreSQL postgres://app:***@db/v2gw`, `SQLite /data/v2gw.sqlite`, `SQLite in memory`. */
function storeSummary(config: Config): string {
  if (config.store) return `PostgreSQL ${describeStore(config.store)}`;
  return config.dataDir ? `SQLite ${join(config.dataDir, SQLITE_FILE)}` : 'SQLite in memory';
}

/** A URL fit for logs: user and password, if any, masked. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username) parsed.username = '***';
    if (parsed.password) parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}
