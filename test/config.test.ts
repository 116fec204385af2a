import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, OPTIONS, loadConfig, tlsFiles, usage } from '../src/config.ts';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'v2gw-config-test-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig defaults', () => {
  it('has sidecar defaults with no flags and an empty environment', () => {
    expect(loadConfig([], {})).toEqual({
      v1Url: undefined,
      port: 8080,
      host: '127.0.0.1',
      v1TimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      pageTokenKey: undefined,
      pageTokenKeyFile: undefined,
      bodyLimit: 1_048_576,
      maxFanOut: 16,
      hydrationCacheMs: 2000,
      walkCacheMs: 30000,
      walkCacheBytes: 16777216,
      listScanCacheBytes: 8388608,
      mode: 'translate',
      logLevel: 'info',
      docs: false,
      debugHeaders: false,
      v1MaxBodyBytes: 33_554_432,
      headersTimeoutMs: 10_000,
      requestReceiveTimeoutMs: 60_000,
      shedEventLoopDelayMs: 1000,
      shedMaxRssBytes: 0,
      compareWith: undefined,
      compareProtocol: 'rest',
      compareSample: 1,
      compareUnsafe: false,
      compareNoise: false,
      compareTargetRate: 0.01,
      compareQueue: 1000,
      compareConcurrency: 8,
      compareTimeoutMs: 5000,
      compareRetryMs: 250,
      compareSamples: 20,
      capture: undefined,
      authDisabled: false,
      identityAllowRemote: false,
      authGrantsCacheMs: 2000,
      authJwksCooldownMs: 30_000,
      eventsAllowPrivateSinks: false,
      eventsRetryForMs: 86_400_000,
      eventsPollMs: 1000,
    });
  });

  it('ignores unrelated and empty environment variables', () => {
    const config = loadConfig([], { PORT: '1', V2GW_PORT: '', HOME: '/root', V2GW_HOST: '' });
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
  });
});

describe('loadConfig from the environment', () => {
  it('reads every V2GW_* variable', () => {
    const config = loadConfig([], {
      V2GW_V1_URL: 'http://v1.internal:9000',
      V2GW_PORT: '9090',
      V2GW_HOST: '0.0.0.0',
      V2GW_V1_TIMEOUT_MS: '2500',
      V2GW_REQUEST_TIMEOUT_MS: '7000',
      V2GW_PAGE_TOKEN_KEY: 'sixteen-chars-ok',
      V2GW_BODY_LIMIT: '2048',
      V2GW_MAX_FAN_OUT: '4',
      V2GW_HYDRATION_CACHE_MS: '0',
      V2GW_WALK_CACHE_MS: '5000',
      V2GW_WALK_CACHE_BYTES: '1024',
      V2GW_LIST_SCAN_CACHE_BYTES: '2048',
      V2GW_LOG_LEVEL: 'debug',
      V2GW_DOCS: 'true',
      V2GW_DEBUG_HEADERS: 'true',
      V2GW_V1_MAX_BODY_BYTES: '1048576',
      V2GW_HEADERS_TIMEOUT_MS: '2000',
      V2GW_REQUEST_RECEIVE_TIMEOUT_MS: '0',
      V2GW_SHED_EVENT_LOOP_DELAY_MS: '250',
      V2GW_SHED_MAX_RSS_BYTES: '536870912',
      V2GW_ADMIN_PORT: '9091',
      V2GW_COMPARE_WITH: 'http://v2.internal:8080',
      V2GW_COMPARE_PROTOCOL: 'grpc',
      V2GW_COMPARE_SAMPLE: '0.1',
      V2GW_COMPARE_UNSAFE: 'true',
      V2GW_COMPARE_NOISE: '1',
      V2GW_COMPARE_TARGET_RATE: '0.005',
      V2GW_COMPARE_QUEUE: '10',
      V2GW_COMPARE_CONCURRENCY: '2',
      V2GW_COMPARE_TIMEOUT_MS: '900',
      V2GW_COMPARE_RETRY_MS: '0',
      V2GW_COMPARE_SAMPLES: '3',
      V2GW_CAPTURE: '/tmp/calls.jsonl',
      V2GW_IDENTITY: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/bbbbbbbbbbbbbbbb',
      V2GW_IDENTITY_TOKEN_FILE: '/var/run/secrets/tokens/platform',
      V2GW_ISSUER_URL: 'https://issuer.example/',
      V2GW_IDENTITY_ALLOW_REMOTE: 'true',
      V2GW_AUTH_GRANTS_CACHE_MS: '500',
      V2GW_EVENTS_ALLOW_PRIVATE_SINKS: 'true',
      V2GW_EVENTS_ISSUER_URL: 'https://gw.example/',
      V2GW_EVENTS_RETRY_FOR_MS: '60000',
      V2GW_EVENTS_POLL_MS: '250',
    });
    expect(config).toEqual({
      v1Url: 'http://v1.internal:9000',
      port: 9090,
      host: '0.0.0.0',
      v1TimeoutMs: 2500,
      requestTimeoutMs: 7000,
      pageTokenKey: 'sixteen-chars-ok',
      pageTokenKeyFile: undefined,
      bodyLimit: 2048,
      maxFanOut: 4,
      hydrationCacheMs: 0,
      walkCacheMs: 5000,
      walkCacheBytes: 1024,
      listScanCacheBytes: 2048,
      mode: 'translate',
      logLevel: 'debug',
      docs: true,
      debugHeaders: true,
      v1MaxBodyBytes: 1_048_576,
      headersTimeoutMs: 2000,
      requestReceiveTimeoutMs: 0,
      shedEventLoopDelayMs: 250,
      shedMaxRssBytes: 536_870_912,
      adminPort: 9091,
      compareWith: 'http://v2.internal:8080',
      compareProtocol: 'grpc',
      compareSample: 0.1,
      compareUnsafe: true,
      compareNoise: true,
      compareTargetRate: 0.005,
      compareQueue: 10,
      compareConcurrency: 2,
      compareTimeoutMs: 900,
      compareRetryMs: 0,
      compareSamples: 3,
      capture: '/tmp/calls.jsonl',
      identity: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/bbbbbbbbbbbbbbbb',
      identityTokenFile: '/var/run/secrets/tokens/platform',
      issuerUrl: 'https://issuer.example',
      identityAllowRemote: true,
      authDisabled: false,
      authGrantsCacheMs: 500,
      authJwksCooldownMs: 30_000,
      eventsAllowPrivateSinks: true,
      eventsIssuerUrl: 'https://gw.example',
      eventsRetryForMs: 60_000,
      eventsPollMs: 250,
    });
  });

  it.each([
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ])('reads V2GW_DEBUG_HEADERS=%s as %s', (raw, value) => {
    expect(loadConfig([], { V2GW_DEBUG_HEADERS: raw }).debugHeaders).toBe(value);
  });

  it('accepts port 0 (pick a free port)', () => {
    expect(loadConfig([], { V2GW_PORT: '0' }).port).toBe(0);
  });
});

describe('loadConfig flags', () => {
  it('reads flags', () => {
    const config = loadConfig(
      ['--v1-url', 'https://v1.example.com', '--port', '7000', '--host', '::', '--log-level', 'warn', '--debug-headers', '--max-fan-out=8'],
      {},
    );
    expect(config).toMatchObject({ v1Url: 'https://v1.example.com', port: 7000, host: '::', logLevel: 'warn', debugHeaders: true, maxFanOut: 8 });
  });

  it('flags win over the environment', () => {
    const config = loadConfig(
      ['--port', '7000', '--v1-url', 'http://flag:1', '--page-token-key', 'flag-key-0123456789'],
      { V2GW_PORT: '9090', V2GW_V1_URL: 'http://env:2', V2GW_PAGE_TOKEN_KEY: 'env-key-0123456789', V2GW_LOG_LEVEL: 'error' },
    );
    expect(config.port).toBe(7000);
    expect(config.v1Url).toBe('http://flag:1');
    expect(config.pageTokenKey).toBe('flag-key-0123456789');
    expect(config.logLevel).toBe('error'); // no flag: the environment still applies
  });

  it('refuses unknown flags and positional arguments', () => {
    expect(() => loadConfig(['--colour', 'red'], {})).toThrow();
    expect(() => loadConfig(['serve'], {})).toThrow();
  });
});

describe('loadConfig validation', () => {
  it.each(['70000', '-1', 'abc', '80.5', '65536', '0x50', '1e3', '80abc', ' 8080', '+80', '0b101'])('refuses port %j, naming the flag and the env var', (port) => {
    const fromFlag = configError(() => loadConfig([`--port=${port}`], {}));
    expect(fromFlag.message).toContain('--port');
    expect(fromFlag.message).toContain('V2GW_PORT');
    const fromEnv = configError(() => loadConfig([], { V2GW_PORT: port }));
    expect(fromEnv.message).toContain('--port');
    expect(fromEnv.message).toContain('V2GW_PORT');
  });

  it.each(['not a url', 'ftp://example.com', 'example.com:8080', 'file:///etc/passwd'])('refuses v1 URL %j, naming the flag and the env var', (url) => {
    const e = configError(() => loadConfig(['--v1-url', url], {}));
    expect(e.message).toContain('--v1-url');
    expect(e.message).toContain('V2GW_V1_URL');
    const fromEnv = configError(() => loadConfig([], { V2GW_V1_URL: url }));
    expect(fromEnv.message).toContain('V2GW_V1_URL');
  });

  it('accepts http and https v1 URLs', () => {
    expect(loadConfig(['--v1-url', 'http://127.0.0.1:9000'], {}).v1Url).toBe('http://127.0.0.1:9000');
    expect(loadConfig(['--v1-url', 'https://api.example.com/base'], {}).v1Url).toBe('https://api.example.com/base');
  });

  it('refuses a page-token key shorter than 16 characters', () => {
    const e = configError(() => loadConfig(['--page-token-key', 'short'], {}));
    expect(e.message).toContain('--page-token-key');
    expect(e.message).toContain('V2GW_PAGE_TOKEN_KEY');
    configError(() => loadConfig([], { V2GW_PAGE_TOKEN_KEY: '15-characters!!' }));
    expect(loadConfig([], { V2GW_PAGE_TOKEN_KEY: '16-characters!!!' }).pageTokenKey).toBe('16-characters!!!');
  });

  it('refuses a bad log level and non-positive limits', () => {
    expect(configError(() => loadConfig(['--log-level', 'verbose'], {})).message).toContain('--log-level');
    expect(configError(() => loadConfig(['--max-fan-out', '0'], {})).message).toContain('--max-fan-out');
    expect(configError(() => loadConfig([], { V2GW_BODY_LIMIT: '-5' })).message).toContain('V2GW_BODY_LIMIT');
    expect(configError(() => loadConfig([], { V2GW_V1_TIMEOUT_MS: '0' })).message).toContain('--v1-timeout-ms');
  });

  it.each(['0x10', '1e4', '16 ', '2.0'])('reads every number in decimal digits only: %j is refused for each numeric setting', (raw) => {
    for (const option of Object.values(OPTIONS)) {
      if (!/timeout|limit|bytes|fan-out|cache|port/.test(option.flag)) continue;
      const e = configError(() => loadConfig([], { [option.env]: raw }));
      expect(e.message).toContain(`--${option.flag}`);
      expect(e.message).toContain('decimal digits');
    }
  });

  it('refuses a bad V2GW_DEBUG_HEADERS value', () => {
    expect(configError(() => loadConfig([], { V2GW_DEBUG_HEADERS: 'yes' })).message).toContain('V2GW_DEBUG_HEADERS');
  });

  it('reports every invalid setting at once', () => {
    const e = configError(() => loadConfig(['--port', 'x'], { V2GW_V1_URL: 'nope', V2GW_LOG_LEVEL: 'loud' }));
    expect(e.message).toContain('--port');
    expect(e.message).toContain('--v1-url');
    expect(e.message).toContain('--log-level');
  });
});

describe('loadConfig page-token key file', () => {
  it('reads the key from the file, trimming the trailing newline', () => {
    const file = join(dir, 'key');
    writeFileSync(file, '0123456789abcdef0123456789abcdef\n');
    const config = loadConfig(['--page-token-key-file', file], {});
    expect(config.pageTokenKey).toBe('0123456789abcdef0123456789abcdef');
    expect(config.pageTokenKeyFile).toBe(file);
  });

  it('reads the file named by V2GW_PAGE_TOKEN_KEY_FILE', () => {
    const file = join(dir, 'env-key');
    writeFileSync(file, '  a-mounted-kubernetes-secret  \n');
    expect(loadConfig([], { V2GW_PAGE_TOKEN_KEY_FILE: file }).pageTokenKey).toBe('a-mounted-kubernetes-secret');
  });

  it('prefers an explicit key over the file', () => {
    const file = join(dir, 'unused');
    writeFileSync(file, 'key-from-the-file-xxxxxxxx');
    expect(loadConfig(['--page-token-key', 'key-from-the-flag-xxxxx', '--page-token-key-file', file], {}).pageTokenKey).toBe('key-from-the-flag-xxxxx');
  });

  it('refuses a file holding a key shorter than 16 characters (after trimming)', () => {
    const file = join(dir, 'short');
    writeFileSync(file, 'short-key      \n\n');
    const e = configError(() => loadConfig(['--page-token-key-file', file], {}));
    expect(e.message).toMatch(/16/);
  });

  it('refuses an empty file', () => {
    const file = join(dir, 'empty');
    writeFileSync(file, '');
    configError(() => loadConfig(['--page-token-key-file', file], {}));
  });

  it('refuses a missing file with a ConfigError naming the flag', () => {
    const e = configError(() => loadConfig(['--page-token-key-file', join(dir, 'does-not-exist')], {}));
    expect(e.message).toContain('--page-token-key-file');
  });
});

describe('usage', () => {
  it('lists every flag and environment variable', () => {
    const text = usage();
    for (const option of Object.values(OPTIONS)) {
      expect(text).toContain(`--${option.flag}`);
      expect(text).toContain(option.env);
    }
  });

  it('shows every setting\'s default, as loadConfig applies it when nothing is given', () => {
    const defaults: Record<string, unknown> = loadConfig([], {});
    const lines = usage().split('\n');
    for (const [key, option] of Object.entries(OPTIONS)) {
      const line = lines.find((l) => l.trimStart().startsWith(`--${option.flag} `));
      const value = defaults[key];
      expect(line, option.flag).toMatch(value === undefined ? /\(default: unset\)$/ : new RegExp(`\\(default: ${String(value)}( = \\d+ MiB)?\\)$`));
    }
    expect(lines.find((l) => l.includes('--v1-max-body-bytes'))).toContain('(default: 33554432 = 32 MiB)');
  });
});

describe('loadConfig TLS', () => {
  it('takes --tls-cert and --tls-key together, or neither', () => {
    expect(loadConfig([], {}).tlsCert).toBeUndefined();
    const both = loadConfig(['--tls-cert', '/certs/tls.crt'], { V2GW_TLS_KEY: '/certs/tls.key' });
    expect(both).toMatchObject({ tlsCert: '/certs/tls.crt', tlsKey: '/certs/tls.key' });
    for (const [argv, env] of [[['--tls-cert', '/certs/tls.crt'], {}], [[], { V2GW_TLS_KEY: '/certs/tls.key' }]] as const) {
      const e = configError(() => loadConfig(argv, env));
      expect(e.message).toContain('--tls-cert');
      expect(e.message).toContain('V2GW_TLS_KEY');
    }
  });

  it('reads both files, or reports the one it cannot read', () => {
    const certFile = join(dir, 'tls.crt');
    const keyFile = join(dir, 'tls.key');
    writeFileSync(certFile, 'CERT');
    writeFileSync(keyFile, 'KEY');
    expect(tlsFiles({ tlsCert: undefined, tlsKey: undefined })).toBeUndefined();
    const files = tlsFiles({ tlsCert: certFile, tlsKey: keyFile });
    expect(files?.cert.toString()).toBe('CERT');
    expect(files?.key.toString()).toBe('KEY');
    expect(configError(() => tlsFiles({ tlsCert: certFile, tlsKey: join(dir, 'missing.key') })).message).toContain('--tls-key');
  });
});

describe('loadConfig: identity settings', () => {
  const ISSUER = 'https://issuer.example';
  it('takes --auth-issuer more than once, and a comma-separated V2GW_AUTH_ISSUER', () => {
    const flags = loadConfig(['--mode', 'native', '--auth-issuer', ISSUER, '--auth-issuer', 'https://other.example/', '--auth-audience', 'https://api.example'], {});
    expect(flags.authIssuer).toEqual([ISSUER, 'https://other.example']);
    expect(loadConfig(['--mode', 'native'], { V2GW_AUTH_ISSUER: `${ISSUER}, https://other.example`, V2GW_AUTH_AUDIENCE: 'a' }).authIssuer).toEqual([ISSUER, 'https://other.example']);
  });

  it.each([
    [['--mode', 'native', '--auth-issuer', ISSUER], 'go together'],
    [['--auth-issuer', ISSUER, '--auth-audience', 'a'], 'for native mode'],
    [['--mode', 'native', '--host', '0.0.0.0'], 'binds loopback only'],
    [['--identity', 'a'.repeat(40), '--issuer-url', ISSUER], 'go together'],
    [['--mode', 'native', '--identity', 'a'.repeat(40), '--issuer-url', ISSUER, '--identity-token-file', '/t'], 'for translate mode'],
  ])('refuses %j', (argv, message) => {
    expect(() => loadConfig(argv, {})).toThrow(message);
  });

  const SIDECAR = ['--identity', 'a'.repeat(40), '--identity-token-file', '/t', '--issuer-url', ISSUER];

  it.each([
    [['--mode', 'native', '--auth-issuer', 'http://issuer.example', '--auth-audience', 'a'], '--auth-issuer / V2GW_AUTH_ISSUER: must be an https:// URL'],
    [['--mode', 'native', '--auth-issuer', 'http://10.0.0.7:8080', '--auth-audience', 'a'], 'plain http:// is accepted only for a loopback address'],
    [['--identity', 'a'.repeat(40), '--identity-token-file', '/t', '--issuer-url', 'http://issuer.example'], '--issuer-url / V2GW_ISSUER_URL: must be an https:// URL'],
    [['--identity', 'a'.repeat(40), '--identity-token-file', '/t', '--issuer-url', 'http://127.0.0.1.nip.io'], 'must be an https:// URL'],
  ])('refuses a plain http:// issuer that is not on loopback: %j', (argv, message) => {
    expect(() => loadConfig(argv, {})).toThrow(message);
  });

  it.each(['http://127.0.0.1:8080', 'http://127.3.2.1', 'http://localhost:9000/', 'http://[::1]:8080', 'https://issuer.example'])('accepts the issuer %s', (url) => {
    expect(loadConfig(['--mode', 'native', '--auth-issuer', url, '--auth-audience', 'a'], {}).authIssuer).toEqual([url.replace(/\/$/, '')]);
    expect(loadConfig(['--identity', 'a'.repeat(40), '--identity-token-file', '/t', '--issuer-url', url], {}).issuerUrl).toBe(url.replace(/\/$/, ''));
  });

  it('refuses --identity on a host that is not loopback, naming the risk, unless --identity-allow-remote says so', () => {
    for (const host of ['0.0.0.0', '::', '10.1.2.3', 'example.internal']) {
      expect(() => loadConfig([...SIDECAR, '--host', host], {})).toThrow('would lend the workload identity to every caller that can reach this address');
      expect(loadConfig([...SIDECAR, '--host', host, '--identity-allow-remote'], {}).identityAllowRemote).toBe(true);
    }
    for (const host of ['127.0.0.1', '::1', 'localhost']) expect(loadConfig([...SIDECAR, '--host', host], {}).host).toBe(host);
    expect(() => loadConfig(['--identity-allow-remote'], {})).toThrow('is for a gateway with --identity');
  });

  it('lets native mode without an issuer bind beyond loopback only with --auth-disabled', () => {
    expect(loadConfig(['--mode', 'native', '--host', '0.0.0.0', '--auth-disabled'], {}).authDisabled).toBe(true);
    expect(loadConfig(['--mode', 'native', '--host', '::1'], {}).host).toBe('::1');
  });
});
