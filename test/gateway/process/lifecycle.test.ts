/** The gateway as a process: the CLI, its exit codes, and shutdown that finishes what it acknowledged. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client, startStack } from '../../support/stack.ts';

const CLI = new URL('../../../src/cli.ts', import.meta.url).pathname;
const EMULATOR_CLI = new URL('../../../src/emulator/v1/cli.ts', import.meta.url).pathname;

function run(args: string[], env: Record<string, string> = {}, script = CLI) {
  const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return { child, out: () => stdout, err: () => stderr };
}

async function waitFor(predicate: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('npm start (src/cli.ts)', () => {
  it('without --v1-url serves the demo organisation, says how to call it, and exits 0 on SIGTERM', async () => {
    const proc = run(['--port', '0', '--log-level', 'warn']);
    try {
      await waitFor(() => proc.out().includes('curl'));
      const address = /serving v2beta1 at (http:\/\/127\.0\.0\.1:\d+)/.exec(proc.out())![1]!;
      const org = /descendants_of=([0-9a-f]{40})/.exec(proc.out())![1]!;
      const client = new Client(address);
      expect((await client.get('/healthz')).status).toBe(200);
      expect((await client.get('/readyz')).status).toBe(200);
      const groups = await client.get('/iam/v2beta1/groups', { 'uidp.descendants_of': org }, { authorization: 'Bearer demo' });
      expect(groups.body.totalCount).toBe('2');
      // The demo's issuer: the printed exchange yields an API token for a native gateway's audience.
      await waitFor(() => proc.out().includes('/sts/exchange'));
      const issuer = /--auth-issuer (http:\/\/127\.0\.0\.1:\d+) --auth-audience (\S+)/.exec(proc.out())!;
      const [subject, identity] = [/platform\/token\?sub=([\w-]+)/.exec(proc.out())![1]!, /identity=([0-9a-f]{40})/.exec(proc.out())![1]!];
      const platform = (await (await fetch(`${issuer[1]}/platform/token?sub=${subject}`)).json()) as { token: string };
      const exchanged = await fetch(`${issuer[1]}/sts/exchange?aud=${encodeURIComponent(issuer[2]!)}&identity=${identity}`, { headers: { authorization: `Bearer ${platform.token}` } });
      expect(exchanged.status).toBe(200);
      const claims = JSON.parse(Buffer.from(((await exchanged.json()) as { token: string }).token.split('.')[1]!, 'base64url').toString());
      expect(claims).toMatchObject({ iss: issuer[1], sub: identity, aud: issuer[2] });
    } finally {
      proc.child.kill('SIGTERM');
    }
    const [code] = await once(proc.child, 'exit');
    expect(code).toBe(0);
  });

  it('takes settings from V2GW_* variables', async () => {
    const proc = run([], { V2GW_PORT: '0', V2GW_LOG_LEVEL: 'info', V2GW_HOST: '127.0.0.1' });
    try {
      await waitFor(() => proc.out().includes('v2gw listening'));
      expect(proc.out()).toContain('"pageTokens":"sealed with a random key per process');
    } finally {
      proc.child.kill('SIGTERM');
      await once(proc.child, 'exit');
    }
  });

  it('names the page-token key by a fingerprint replicas can compare, never by itself, and says why v1 cannot be reached', async () => {
    const key = 'replica-shared-secret-0123456789';
    const run1 = run(['--port', '0', '--v1-url', 'http://127.0.0.1:9', '--page-token-key', key]);
    const run2 = run(['--port', '0', '--v1-url', 'http://127.0.0.1:9'], { V2GW_PAGE_TOKEN_KEY: key });
    try {
      await waitFor(() => run1.out().includes('is not reachable') && run2.out().includes('is not reachable'));
      const fingerprint = (out: string) => /sealed with the configured key ([0-9a-f]{8})/.exec(out)?.[1];
      expect(fingerprint(run1.out())).toMatch(/^[0-9a-f]{8}$/);
      expect(fingerprint(run2.out())).toBe(fingerprint(run1.out()));
      for (const out of [run1.out(), run2.out()]) {
        expect(out).not.toContain(key);
        expect(out).toContain('"v1Url":"http://127.0.0.1:9"');
        expect(out).toMatch(/"cause":"ECONNREFUSED[^"]*127\.0\.0\.1:9"/);
      }
    } finally {
      run1.child.kill('SIGTERM');
      run2.child.kill('SIGTERM');
      await Promise.all([once(run1.child, 'exit'), once(run2.child, 'exit')]);
    }
  });

  it('names the store by engine and place with its password masked, and both ports; no secret from flags, variables or files reaches the output', async () => {
    const password = 'pg-password-never-logged';
    const key = 'key-from-a-file-never-logged-0123';
    const dir = mkdtempSync(join(tmpdir(), 'v2gw-secrets-'));
    writeFileSync(join(dir, 'key'), key);
    const proc = run(['--port', '0', '--admin-port', '0', '--mode', 'native', '--store', `postgres://postgres:${password}@127.0.0.1:5432/test`], { V2GW_PAGE_TOKEN_KEY_FILE: join(dir, 'key') });
    try {
      await waitFor(() => proc.out().includes('v2gw listening'));
      expect(proc.out()).toContain('"store":"PostgreSQL postgres://postgres:***@127.0.0.1:5432/test"');
      expect(proc.out()).toMatch(/sealed with the configured key [0-9a-f]{8}/);
      // Both ports: the API's and the admin listener's.
      expect(proc.out()).toMatch(/"address":"http:\/\/127\.0\.0\.1:\d+","adminAddress":"http:\/\/127\.0\.0\.1:\d+"/);
    } finally {
      proc.child.kill('SIGTERM');
      await once(proc.child, 'exit');
      rmSync(dir, { recursive: true, force: true });
    }
    for (const secret of [password, key]) {
      expect(proc.out()).not.toContain(secret);
      expect(proc.err()).not.toContain(secret);
    }
  });

  it('prints the mode, the store and the page-token key in the demo banner too', async () => {
    const proc = run(['--port', '0', '--log-level', 'warn']);
    try {
      await waitFor(() => proc.out().includes('grpcurl'));
      expect(proc.out()).toContain('Mode translate; store SQLite in memory; page tokens sealed with a random key per process');
      expect(proc.out()).toMatch(/npx buf curl --protocol grpc --http2-prior-knowledge .* http:\/\/127\.0\.0\.1:\d+\/chainguard\.platform\.iam\.v2beta1\.GroupsService\/ListGroups/);
    } finally {
      proc.child.kill('SIGTERM');
      await once(proc.child, 'exit');
    }
  });

  it('warns at start that native mode without an issuer verifies no token', async () => {
    const proc = run(['--port', '0', '--mode', 'native']);
    try {
      await waitFor(() => proc.out().includes('v2gw listening') && proc.out().includes('AUTHENTICATION IS OFF'));
      expect(proc.out()).toContain('"mode":"native"');
    } finally {
      proc.child.kill('SIGTERM');
      await once(proc.child, 'exit');
    }
  });

  it('prints its version with --version and exits 0', async () => {
    const proc = run(['--version']);
    const [code] = await once(proc.child, 'exit');
    expect(code).toBe(0);
    expect(proc.out()).toMatch(/^v2gw \d+\.\d+\.\d+\n$/);
  });

  it.each([[['--port', 'eighty'], {}], [[], { V2GW_PORT: '0x50' }]] as const)('refuses bad configuration with exit code 2 and names the setting (%j %j)', async (args, env) => {
    const proc = run([...args], env);
    const [code] = await once(proc.child, 'exit');
    expect(code).toBe(2);
    expect(proc.err()).toContain('--port / V2GW_PORT');
  });

  it('refuses an unknown flag with exit code 2', async () => {
    const proc = run(['--v1url', 'http://x']);
    const [code] = await once(proc.child, 'exit');
    expect(code).toBe(2);
    expect(proc.err()).toContain('Usage');
  });
});

describe('npm run emulator (src/emulator/v1/cli.ts)', () => {
  it('prints its usage with --help and exits 0', async () => {
    const proc = run(['--help'], {}, EMULATOR_CLI);
    const [code] = await once(proc.child, 'exit');
    expect(code).toBe(0);
    expect(proc.out()).toContain('Usage: npm run emulator');
    expect(proc.out()).toContain('--omit-group-timestamps');
  });

  it.each([['--bogus'], ['--port', '0x50'], ['--port', '70000'], ['--port', '-1'], ['--port=1e3'], ['--seed', 'lots'], ['--latency-ms', '-5']])('refuses %j in one plain line with exit code 2, no stack trace', async (...args) => {
    const proc = run(args, {}, EMULATOR_CLI);
    const [code] = await once(proc.child, 'exit');
    expect(code).toBe(2);
    const first = proc.err().split('\n')[0]!;
    expect(first).toMatch(/^v1 emulator: /);
    // The problem is one line; a blank line, then the usage.
    expect(proc.err().split('\n')[1]).toBe('');
    expect(proc.err()).toContain('Usage: npm run emulator');
    expect(proc.err()).not.toMatch(/\n\s+at /);
  });

  it('serves v1 standalone, and a gateway started with --v1-url uses it', async () => {
    const emulator = run(['--port', '0', '--seed', 'demo'], {}, EMULATOR_CLI);
    let gateway: ReturnType<typeof run> | undefined;
    try {
      await waitFor(() => /listening on http:\/\/[\d.]+:\d+/.test(emulator.out()));
      const v1Url = /listening on (http:\/\/[\d.]+:\d+)/.exec(emulator.out())![1]!;
      const v1 = await new Client(v1Url).get('/iam/v1/groups', {}, { authorization: 'Bearer demo' });
      expect(v1.body.items.length).toBeGreaterThan(0);

      gateway = run(['--port', '0', '--v1-url', v1Url, '--log-level', 'info']);
      await waitFor(() => /Server listening at http:\/\/[\d.]+:\d+/.test(gateway!.out()));
      const address = /Server listening at (http:\/\/[\d.]+:\d+)/.exec(gateway.out())![1]!;
      const v2 = await new Client(address).get('/iam/v2beta1/groups', {}, { authorization: 'Bearer demo' });
      expect(v2.body.totalCount).toBe(String(v1.body.items.length));
      expect(gateway.out()).not.toContain('DEMO data');
    } finally {
      gateway?.child.kill('SIGTERM');
      emulator.child.kill('SIGTERM');
    }
    const [code] = await once(emulator.child, 'exit');
    expect(code).toBe(0);
  });
});

describe('shutdown', () => {
  it('finishes in-flight writes before closing', async () => {
    const stack = await startStack({ emulator: { latencyMs: 150 } });
    const org = stack.emulator.state.createGroup(null, { name: 'drain' }).id;
    const pending = stack.client.post(`/iam/v2beta1/groups/${org}`, { name: 'acknowledged' });
    // Close once the gateway has the request (a fixed pause raced a loaded machine), while v1 still holds it.
    const active = async () => (await stack.gateway.metrics.registry.getSingleMetric('http_server_active_requests')!.get()).values[0]?.value ?? 0;
    while ((await active()) < 1) await new Promise((resolve) => setTimeout(resolve, 2));
    const closing = stack.gateway.close();
    const reply = await pending;
    await closing;
    expect(reply.status).toBe(200);
    expect(stack.emulator.state.listGroups({ id: reply.body.uid })).toHaveLength(1);
    await stack.emulator.close();
  });
});
