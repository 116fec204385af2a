/**
 * Every setting, from a flag or from the environment (`V2GW_…`), validated
 * once at start-up. Flags win over the environment; defaults suit a sidecar
 * (loopback only, modest limits).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';

const bool = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === true || v === 'true' || v === '1');

/**
 * A whole number written in decimal digits only. `Number()` (and so
 * `z.coerce.number()`) reads `0x50` as 80, `1e3` as 1000 and ` 8080 ` as
 * 8080: a typo in a deployment must be an error, not another port.
 */
const wholeNumber = z.union([z.number(), z.string().regex(/^\d{1,15}$/, 'must be a whole number in decimal digits')])
  .transform(Number)
  .pipe(z.number().int());

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).transform((url) => url.replace(/\/+$/, ''));

/**
 * A URL keys or tokens are fetched from: https, or plain http only on this machine (a loopback
 * address), where nothing travels over a network. Anywhere else the issuer's keys could be swapped
 * and the platform token read on the way.
 */
const trustedUrl = httpUrl.refine(
  (url) => new URL(url).protocol === 'https:' || isLoopback(new URL(url).hostname),
  'must be an https:// URL: plain http:// is accepted only for a loopback address (127.0.0.0/8, ::1, localhost), as keys and tokens would travel in clear',
);

export const OPTIONS = {
  mode: { flag: 'mode', env: 'V2GW_MODE', schema: z.enum(['translate', 'native'], { error: 'must be translate or native' }).default('translate'), help: 'translate: serve v2 over a v1 backend. native: serve v2 from the gateway\'s own store alone, with no v1 backend.' },
  dataDir: { flag: 'data-dir', env: 'V2GW_DATA_DIR', schema: z.string().min(1).optional(), help: 'Directory of the embedded store (SQLite), created if absent; survives restarts. Unset (and no --store): an in-memory store, lost on restart.' },
  store: { flag: 'store', env: 'V2GW_STORE', schema: z.string().regex(/^postgres(ql)?:\/\/./, 'must be a postgres:// URL').optional(), help: 'PostgreSQL URL of a store shared by replicas, instead of the embedded one.' },
  v1Url: { flag: 'v1-url', env: 'V2GW_V1_URL', schema: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(), help: 'Base URL of the v1 backend (translate mode; native mode has none). Unset: an in-process v1 emulator with a demo organisation.' },
  port: { flag: 'port', env: 'V2GW_PORT', schema: wholeNumber.pipe(z.number().min(0).max(65535, 'must be a port number, 0 to 65535')).default(8080), help: 'Port to listen on (0 picks a free one).' },
  adminPort: { flag: 'admin-port', env: 'V2GW_ADMIN_PORT', schema: wholeNumber.pipe(z.number().min(0).max(65535, 'must be a port number, 0 to 65535')).optional(), help: 'Serve /metrics, /healthz and /readyz on this port too, on a listener of their own (same host), apart from the API. Unset: they are on the API port only.' },
  adminHost: { flag: 'admin-host', env: 'V2GW_ADMIN_HOST', schema: z.string().min(1).optional(), help: 'Address the --admin-port listener binds; unset: the same as --host. A sidecar keeps the API on loopback and opens the admin listener (0.0.0.0) to the kubelet\'s probes and the scraper.' },
  host: { flag: 'host', env: 'V2GW_HOST', schema: z.string().min(1).default('127.0.0.1'), help: 'Address to bind. The default serves loopback only, as a sidecar should; use 0.0.0.0 in a container.' },
  v1TimeoutMs: { flag: 'v1-timeout-ms', env: 'V2GW_V1_TIMEOUT_MS', schema: wholeNumber.pipe(z.number().positive()).default(10_000), help: 'Deadline for each v1 call; past it the request fails with DEADLINE_EXCEEDED.' },
  requestTimeoutMs: { flag: 'request-timeout-ms', env: 'V2GW_REQUEST_TIMEOUT_MS', schema: wholeNumber.pipe(z.number().positive()).default(30_000), help: 'Deadline for a whole v2 request, however many v1 calls it makes; a shorter grpc-timeout from a gRPC caller wins. Past it: DEADLINE_EXCEEDED.' },
  pageTokenKey: { flag: 'page-token-key', env: 'V2GW_PAGE_TOKEN_KEY', schema: z.string().min(16, 'must be at least 16 characters').optional(), help: 'Secret that seals page tokens; share it between replicas. Unset: a random key per process, so tokens do not survive a restart.' },
  pageTokenKeyFile: { flag: 'page-token-key-file', env: 'V2GW_PAGE_TOKEN_KEY_FILE', schema: z.string().min(1).optional(), help: 'File holding the page-token secret (e.g. a mounted Kubernetes secret); used when --page-token-key is unset.' },
  bodyLimit: { flag: 'body-limit', env: 'V2GW_BODY_LIMIT', schema: wholeNumber.pipe(z.number().positive()).default(1_048_576), help: 'Largest request body in bytes; larger bodies get INVALID_ARGUMENT.' },
  v1MaxBodyBytes: { flag: 'v1-max-body-bytes', env: 'V2GW_V1_MAX_BODY_BYTES', schema: wholeNumber.pipe(z.number().positive()).default(33_554_432), help: 'Largest v1 answer a v2 request reads, in bytes, counted as it arrives; past it the v1 call is aborted and the request fails with INTERNAL. The v1 pass-through streams and has no such cap.' },
  headersTimeoutMs: { flag: 'headers-timeout-ms', env: 'V2GW_HEADERS_TIMEOUT_MS', schema: wholeNumber.pipe(z.number().positive()).default(10_000), help: 'Most time an HTTP/1.1 client may take to send a request\'s headers (slow clients, slowloris); past it the connection gets DEADLINE_EXCEEDED and is closed. At most --request-receive-timeout-ms.' },
  requestReceiveTimeoutMs: { flag: 'request-receive-timeout-ms', env: 'V2GW_REQUEST_RECEIVE_TIMEOUT_MS', schema: wholeNumber.pipe(z.number().min(0)).default(60_000), help: 'Most time an HTTP/1.1 client may take to send a whole request, body included (a v1 pass-through upload too); past it: DEADLINE_EXCEEDED and the connection is closed. 0: no limit.' },
  maxFanOut: { flag: 'max-fan-out', env: 'V2GW_MAX_FAN_OUT', schema: wholeNumber.pipe(z.number().positive()).default(16), help: 'Most v1 calls one request may spend hydrating references; past it the request fails with RESOURCE_EXHAUSTED.' },
  shedEventLoopDelayMs: { flag: 'shed-event-loop-delay-ms', env: 'V2GW_SHED_EVENT_LOOP_DELAY_MS', schema: wholeNumber.pipe(z.number().min(0)).default(1000), help: 'Refuse new API calls with UNAVAILABLE (and RetryInfo) while the mean event-loop delay over the last second is past this many ms; health, readiness and metrics are never refused. 0: never.' },
  shedMaxRssBytes: { flag: 'shed-max-rss-bytes', env: 'V2GW_SHED_MAX_RSS_BYTES', schema: wholeNumber.pipe(z.number().min(0)).default(0), help: 'Refuse new API calls with UNAVAILABLE while the resident set is past this many bytes (set it below the container memory limit, e.g. 90%). 0: never.' },
  logLevel: { flag: 'log-level', env: 'V2GW_LOG_LEVEL', schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), help: 'pino log level.' },
  hydrationCacheMs: { flag: 'hydration-cache-ms', env: 'V2GW_HYDRATION_CACHE_MS', schema: wholeNumber.pipe(z.number().min(0).max(60_000)).default(2000), help: 'How long v1 rows fetched to hydrate references (a role binding\'s identity) are reused across requests; writes through the gateway drop them at once. 0 turns the cache off.' },
  listScanCacheBytes: { flag: 'list-scan-cache-bytes', env: 'V2GW_LIST_SCAN_CACHE_BYTES', schema: wholeNumber.pipe(z.number().min(0)).default(8 * 1024 * 1024), help: 'Memory for v1 lists already read (translate mode): when v1 answers a caller\'s List with exactly the bytes of an answer read before for that caller, its rows, and what the List worked out from them, are reused instead of read again, and of an answer that differs from the last in some rows, only those rows are read. v1 is still asked every time, so nothing served is stale. 0 turns it off.' },
  walkCacheMs: { flag: 'walk-cache-ms', env: 'V2GW_WALK_CACHE_MS', schema: wholeNumber.pipe(z.number().min(0)).default(30_000), help: 'How long a list walk\'s order, learned on its first page, serves its later pages (translate mode): each later page then fetches only its own rows by id. Writes through the gateway drop it at once. 0 turns it off.' },
  walkCacheBytes: { flag: 'walk-cache-bytes', env: 'V2GW_WALK_CACHE_BYTES', schema: wholeNumber.pipe(z.number().min(0)).default(16 * 1024 * 1024), help: 'Memory the walk cache may hold, in bytes (estimated from its keys); the least recently used walks go first.' },
  tlsCert: { flag: 'tls-cert', env: 'V2GW_TLS_CERT', schema: z.string().min(1).optional(), help: 'PEM certificate (chain) to serve TLS with, HTTP/2 and HTTP/1.1 chosen by ALPN; needs --tls-key. Unset: cleartext, gRPC as h2c.' },
  tlsKey: { flag: 'tls-key', env: 'V2GW_TLS_KEY', schema: z.string().min(1).optional(), help: 'PEM private key of --tls-cert.' },
  docs: { flag: 'docs', env: 'V2GW_DOCS', switch: true, schema: bool.default(false), help: 'Serve a page at /docs that renders the API (/openapi.json, which is always served) with Swagger UI, from local files.' },
  debugHeaders: { flag: 'debug-headers', env: 'V2GW_DEBUG_HEADERS', switch: true, schema: bool.default(false), help: 'Add x-v2gw-v1-calls (v1 calls made) to every v2 response.' },
  // Side-by-side comparison (docs/compare.md).
  compareWith: { flag: 'compare-with', env: 'V2GW_COMPARE_WITH', schema: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(), help: 'A second v2 target to shadow read-only calls to and compare answers with (report at /_gateway/compare/report). The caller always gets this gateway\'s answer and never waits for the other.' },
  compareProtocol: { flag: 'compare-protocol', env: 'V2GW_COMPARE_PROTOCOL', schema: z.enum(['rest', 'grpc'], { error: 'must be rest or grpc' }).default('rest'), help: 'How the --compare-with target is spoken to: rest (the methods\' HTTP rules) or grpc (HTTP/2).' },
  compareSample: { flag: 'compare-sample', env: 'V2GW_COMPARE_SAMPLE', schema: z.coerce.number().min(0).max(1, 'must be between 0 and 1').default(1), help: 'Share of calls compared, picked by a hash of (method, request, caller), so every replica picks the same ones.' },
  compareUnsafe: { flag: 'compare-unsafe', env: 'V2GW_COMPARE_UNSAFE', switch: true, schema: bool.default(false), help: 'Send writes to the --compare-with target too. Only for a target that is isolated (its writes reach nothing real).' },
  compareNoise: { flag: 'compare-noise', env: 'V2GW_COMPARE_NOISE', switch: true, schema: bool.default(false), help: 'Ask this gateway each compared call twice and count a field as different only when it differs from the target clearly more often than from itself.' },
  compareTargetRate: { flag: 'compare-target-rate', env: 'V2GW_COMPARE_TARGET_RATE', schema: z.coerce.number().min(0).max(1, 'must be between 0 and 1').default(0.01), help: 'The mismatch rate a method must be shown to stay under (95 % upper bound) for its verdict to pass.' },
  compareQueue: { flag: 'compare-queue', env: 'V2GW_COMPARE_QUEUE', schema: wholeNumber.pipe(z.number().positive()).default(1000), help: 'Most comparisons waiting to run; past it new ones are dropped and counted.' },
  compareConcurrency: { flag: 'compare-concurrency', env: 'V2GW_COMPARE_CONCURRENCY', schema: wholeNumber.pipe(z.number().positive()).default(8), help: 'Comparisons running at once.' },
  compareTimeoutMs: { flag: 'compare-timeout-ms', env: 'V2GW_COMPARE_TIMEOUT_MS', schema: wholeNumber.pipe(z.number().positive()).default(5000), help: 'Deadline of one comparison (the target\'s answer and any re-read); past it the comparison counts under errors.' },
  compareRetryMs: { flag: 'compare-retry-ms', env: 'V2GW_COMPARE_RETRY_MS', schema: wholeNumber.pipe(z.number().min(0)).default(250), help: 'Back-off before a differing answer is read again; one that then agrees counts as transient. 0: never read again.' },
  compareSamples: { flag: 'compare-samples', env: 'V2GW_COMPARE_SAMPLES', schema: wholeNumber.pipe(z.number().min(0)).default(20), help: 'Differing pairs kept per method (declared secrets redacted), shown only to a reader with the --compare-samples-token-file token. 0: none.' },
  compareSamplesTokenFile: { flag: 'compare-samples-token-file', env: 'V2GW_COMPARE_SAMPLES_TOKEN_FILE', schema: z.string().min(1).optional(), help: 'A file holding a secret (16 characters or more): the report shows kept samples (callers\' requests and answers) only to a request bearing it (`Authorization: Bearer …`). Unset: no samples are kept or shown; the report holds counts, field paths and verdicts only.' },
  compareExpect: { flag: 'compare-expect', env: 'V2GW_COMPARE_EXPECT', schema: z.string().min(1).optional(), help: 'A JSON file of a team\'s expected differences, `[{"method", "field", "reason"}]` (`*` allowed in method): counted under `expected`, never in the verdict.' },
  compareRun: { flag: 'compare-run', env: 'V2GW_COMPARE_RUN', schema: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 letters, digits, `.`, `_` or `-`').optional(), help: 'Name of this comparison run: the store keeps counters per run, so a new name starts a fresh comparison (the old run\'s counts stay, unread). Unset: the unnamed run.' },
  capture: { flag: 'capture', env: 'V2GW_CAPTURE', schema: z.string().min(1).optional(), help: 'Append each v2 call to this file as a JSON line (method, request message, protocol; credentials redacted), for `npm run compare`.' },
  // Identity (docs/identity.md): native mode's authentication and authorization, and the sidecar's workload identity.
  authIssuer: { flag: 'auth-issuer', env: 'V2GW_AUTH_ISSUER', multiple: true, schema: z.array(trustedUrl).optional(), help: 'Native mode: an OIDC issuer whose bearer tokens are accepted (repeatable; the environment variable takes a comma-separated list). Tokens are verified against its published keys, and callers are authorized by their role bindings.' },
  authAudience: { flag: 'auth-audience', env: 'V2GW_AUTH_AUDIENCE', schema: z.string().min(1).optional(), help: 'Native mode: the audience (`aud`) accepted tokens must name: this API\'s URL. Required with --auth-issuer.' },
  authDisabled: { flag: 'auth-disabled', env: 'V2GW_AUTH_DISABLED', switch: true, schema: bool.default(false), help: 'Native mode without --auth-issuer: serve any caller on a host that is not loopback. Without it such a gateway refuses to start.' },
  authGrantsCacheMs: { flag: 'auth-grants-cache-ms', env: 'V2GW_AUTH_GRANTS_CACHE_MS', schema: wholeNumber.pipe(z.number().min(0).max(60_000)).default(2000), help: 'How long a caller\'s capabilities are reused: native mode with --auth-issuer reads them from its role bindings; translate mode asks v1 (GET /auth/v1/ok) for what its store keeps. Writes through this process drop them at once. 0: read on every request.' },
  authJwksCooldownMs: { flag: 'auth-jwks-cooldown-ms', env: 'V2GW_AUTH_JWKS_COOLDOWN_MS', schema: wholeNumber.pipe(z.number().min(0)).default(30_000), help: 'Native mode with --auth-issuer: after fetching an issuer\'s keys, how long before a token naming an unknown key may cause another fetch (a rotated key is accepted after at most this long; forged key ids cannot hammer the issuer).' },
  identity: { flag: 'identity', env: 'V2GW_IDENTITY', schema: z.string().regex(/^[0-9a-f]{40}(\/[0-9a-f]{16})*$/, 'must be an identity uid').optional(), help: 'Translate mode: the uid of the identity this gateway assumes for requests that bring no token of their own (needs --identity-token-file and --issuer-url). It serves its own pod only: loopback --host, loopback Host headers, no browser (Origin), JSON writes.' },
  identityTokenFile: { flag: 'identity-token-file', env: 'V2GW_IDENTITY_TOKEN_FILE', schema: z.string().min(1).optional(), help: 'The workload\'s platform token (e.g. a projected Kubernetes service-account token), read afresh for every exchange.' },
  issuerUrl: { flag: 'issuer-url', env: 'V2GW_ISSUER_URL', schema: trustedUrl.optional(), help: 'The issuer whose STS (`/sts/exchange`) exchanges the platform token for an API token of --identity (https://; plain http:// only on loopback).' },
  identityAllowRemote: { flag: 'identity-allow-remote', env: 'V2GW_IDENTITY_ALLOW_REMOTE', switch: true, schema: bool.default(false), help: 'With --identity: serve on a --host that is not loopback, and to any Host header. Every caller that reaches the port then acts as the workload identity; without it such a gateway refuses to start.' },
  // Events (docs/events.md): subscriptions' sinks, and native mode's deliveries to them.
  eventsAllowPrivateSinks: { flag: 'events-allow-private-sinks', env: 'V2GW_EVENTS_ALLOW_PRIVATE_SINKS', switch: true, schema: bool.default(false), help: 'Let subscriptions name sinks on loopback, link-local or private addresses (refused by default, when created and when a sink\'s name resolves to one at delivery).' },
  eventsIssuerUrl: { flag: 'events-issuer-url', env: 'V2GW_EVENTS_ISSUER_URL', schema: trustedUrl.optional(), help: 'Native mode: the issuer (`iss`) of the tokens that sign event deliveries, which must reach this gateway\'s /.well-known/openid-configuration. Unset: the gateway\'s own base URL.' },
  eventsRetryForMs: { flag: 'events-retry-for-ms', env: 'V2GW_EVENTS_RETRY_FOR_MS', schema: wholeNumber.pipe(z.number().positive()).default(86_400_000), help: 'Native mode: how long an event is retried to a sink that is down, times out or answers 5xx or 429, with jittered exponential back-off; then it is given up and counted as failed.' },
  eventsPollMs: { flag: 'events-poll-ms', env: 'V2GW_EVENTS_POLL_MS', schema: wholeNumber.pipe(z.number().positive()).default(1000), help: 'Native mode: how often the deliverer looks for events written by other replicas (its own writes wake it at once).' },
} as const;

type Options = typeof OPTIONS;
export type Config = { -readonly [K in keyof Options]: z.output<Options[K]['schema']> };

export class ConfigError extends Error {}

export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): Config {
  const { values } = parseArgs({
    args: [...argv],
    options: Object.fromEntries(
      Object.values(OPTIONS).map((o) => [o.flag, { type: 'switch' in o ? 'boolean' : 'string', multiple: 'multiple' in o }] as const),
    ),
    strict: true,
    allowPositionals: false,
  });
  const raw: Record<string, unknown> = {};
  for (const [key, option] of Object.entries(OPTIONS)) {
    const fromEnv = env[option.env];
    const value = values[option.flag] ?? ('multiple' in option && fromEnv ? fromEnv.split(',').map((v) => v.trim()).filter(Boolean) : fromEnv);
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const shape = Object.fromEntries(Object.entries(OPTIONS).map(([key, o]) => [key, o.schema]));
  const parsed = z.object(shape).safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const option = OPTIONS[issue.path[0] as keyof Options];
      return `--${option.flag} / ${option.env}: ${issue.message}`;
    });
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const config = parsed.data as Config;
  if (config.dataDir && config.store) {
    throw new ConfigError('--data-dir / V2GW_DATA_DIR and --store / V2GW_STORE are mutually exclusive: a gateway has one store');
  }
  if (!config.tlsCert !== !config.tlsKey) {
    throw new ConfigError('--tls-cert / V2GW_TLS_CERT and --tls-key / V2GW_TLS_KEY go together: set both to serve TLS, or neither');
  }
  identityRules(config);
  if (!config.pageTokenKey && config.pageTokenKeyFile) {
    try {
      config.pageTokenKey = readFileSync(config.pageTokenKeyFile, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(`cannot read --page-token-key-file: ${(error as Error).message}`);
    }
    if (config.pageTokenKey.length < 16) throw new ConfigError('the page-token key file must hold at least 16 characters');
  }
  return config;
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|\[::1\]|localhost)$/i;

/** An address (or name) that reaches this machine only: 127.0.0.0/8, ::1 (bare or bracketed), localhost. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

/** The identity flags go together, each in its mode; a native gateway open to all must say so. */
function identityRules(config: Config): void {
  const issuers = config.authIssuer ?? [];
  if (issuers.length > 0 !== !!config.authAudience) {
    throw new ConfigError('--auth-issuer / V2GW_AUTH_ISSUER and --auth-audience / V2GW_AUTH_AUDIENCE go together: tokens are verified against an issuer for an audience');
  }
  if (issuers.length > 0 && config.mode !== 'native') {
    throw new ConfigError('--auth-issuer / V2GW_AUTH_ISSUER is for native mode: in translate mode v1 judges every token');
  }
  if (issuers.length > 0 && config.authDisabled) throw new ConfigError('--auth-disabled / V2GW_AUTH_DISABLED contradicts --auth-issuer / V2GW_AUTH_ISSUER');
  if (config.mode === 'native' && issuers.length === 0 && !config.authDisabled && !isLoopback(config.host)) {
    throw new ConfigError(`native mode without --auth-issuer serves every caller as anyone: it binds loopback only (not --host ${config.host}) unless --auth-disabled / V2GW_AUTH_DISABLED says that is meant`);
  }
  const sidecar = [config.identity, config.identityTokenFile, config.issuerUrl].filter((v) => v !== undefined).length;
  if (sidecar !== 0 && sidecar !== 3) {
    throw new ConfigError('--identity, --identity-token-file and --issuer-url (V2GW_IDENTITY, V2GW_IDENTITY_TOKEN_FILE, V2GW_ISSUER_URL) go together: the identity, the platform token to present, and the STS to present it to');
  }
  if (sidecar === 3 && config.mode !== 'translate') throw new ConfigError('--identity is for translate mode: native mode calls no v1 to present a token to');
  if (sidecar === 3 && !isLoopback(config.host) && !config.identityAllowRemote) {
    throw new ConfigError(`--identity on --host ${config.host} would lend the workload identity to every caller that can reach this address: bind loopback (the default), or set --identity-allow-remote / V2GW_IDENTITY_ALLOW_REMOTE if that is meant`);
  }
  if (config.identityAllowRemote && sidecar !== 3) throw new ConfigError('--identity-allow-remote / V2GW_IDENTITY_ALLOW_REMOTE is for a gateway with --identity');
}

/** Where the store lives, as `openStore` takes it: the PostgreSQL URL, the data directory, or in memory. */
export function storeLocation(config: Pick<Config, 'dataDir' | 'store'>): string {
  return config.store ?? config.dataDir ?? ':memory:';
}

/** The certificate and key to serve TLS with, read from their files; undefined for cleartext. */
export function tlsFiles(config: Pick<Config, 'tlsCert' | 'tlsKey'>): { cert: Buffer; key: Buffer } | undefined {
  if (!config.tlsCert || !config.tlsKey) return undefined;
  const read = (path: string, option: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new ConfigError(`cannot read ${option}: ${(error as Error).message}`);
    }
  };
  return { cert: read(config.tlsCert, '--tls-cert'), key: read(config.tlsKey, '--tls-key') };
}

/** A store location fit for logs: a URL's password is masked. */
export function describeStore(location: string): string {
  try {
    const url = new URL(location);
    if (!/^postgres(ql)?:$/.test(url.protocol)) return location;
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return location;
  }
}

type Option = Options[keyof Options];

/** A setting's value when neither its flag nor its variable is given: its schema's default, or undefined (unset). */
export function defaultOf(option: Option): unknown {
  const parsed = option.schema.safeParse(undefined);
  return parsed.success ? parsed.data : undefined;
}

const MIB = 1024 * 1024;

/** A default as `--help` and the README print it: `unset`, or the value (a whole number of MiB said so too). */
export function describeDefault(value: unknown): string {
  if (value === undefined) return 'unset';
  if (typeof value === 'number' && value >= MIB && value % MIB === 0) return `${value} = ${value / MIB} MiB`;
  return String(value);
}

export function usage(): string {
  const lines = Object.values(OPTIONS).map((o) => `  --${o.flag.padEnd(26)} ${o.env.padEnd(31)} ${o.help} (default: ${describeDefault(defaultOf(o))})`);
  return `Usage: npm start -- [options]\n\n  ${'flag'.padEnd(28)} ${'environment'.padEnd(31)} description (default)\n${lines.join('\n')}\n  ${'--help'.padEnd(28)} ${''.padEnd(31)} print this and exit\n  ${'--version'.padEnd(28)} ${''.padEnd(31)} print the version and exit\n`;
}
