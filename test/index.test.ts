/**
 * src/index.ts, the gateway's public entry (what bench/ may import): it serves an embedder, and
 * importing it holds no server, logger, store or native backend until one is asked for (the
 * benchmark's translating floors import it and must hold only what they use).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildGateway, loadConfig, mappingRegistry, nativeBackend, openStore, requestContext, v1Renderer } from '../src/index.ts';

const ENTRY = new URL('../src/index.ts', import.meta.url).href;
const RECORDER = new URL('./support/record-modules.ts', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'v2gw-entry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The module URLs a process has loaded once it has imported the public entry and nothing else. */
async function loadedByImport(): Promise<string[]> {
  const file = join(dir, 'modules.json');
  const script = `await import(${JSON.stringify(ENTRY)}); process.kill(process.pid, 'SIGUSR2'); setTimeout(() => {}, 200);`;
  const child = spawn(process.execPath, ['--import', RECORDER, '--input-type=module', '-e', script], {
    env: { ...process.env, V2GW_TEST_MODULES_FILE: file },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (chunk) => (err += chunk));
  const [code] = await once(child, 'exit');
  expect(err).toBe('');
  expect(code).toBe(0);
  return JSON.parse(readFileSync(file, 'utf8')) as string[];
}

describe('the public entry', () => {
  it('loads the contract, the mappings and the renderer on import, and no configuration, server, logger, store or native backend', async () => {
    const modules = await loadedByImport();
    const loads = (part: string) => modules.some((url) => url.includes(part));
    for (const part of ['/src/contract/registry.ts', '/mappings/index.ts', '/src/translate/v1-row.ts']) expect(loads(part), part).toBe(true);
    for (const part of ['/src/config.ts', '/src/server.ts', '/src/log.ts', '/src/store/open.ts', '/src/native/native-backend.ts', '/node_modules/fastify/', '/node_modules/pino/', '/node_modules/kysely/']) {
      expect(loads(part), part).toBe(false);
    }
  });

  it("renders a v1 row as the gateway's v2 document", () => {
    const row = { id: 'a'.repeat(40), name: 'acme', description: 'the org', createdAt: '2026-01-02T03:04:05Z', updatedAt: '2026-01-02T03:04:05Z' };
    expect(v1Renderer('groups')(row)).toMatchObject({ uid: row.id, name: 'acme', description: 'the org' });
  });

  it('opens a store and writes through the native backend, as native mode does', async () => {
    const store = await openStore(':memory:');
    try {
      const registry = mappingRegistry();
      const backend = await nativeBackend(store, registry);
      await backend.seed();
      const ctx = await requestContext({ authorization: 'Bearer embedder', requestId: 'public-entry', budgetMs: 10_000 });
      const org = (await backend.create(registry.get('groups'), '', { name: 'embedded-org' }, ctx)).row;
      expect(org).toMatchObject({ body: { name: 'embedded-org' }, uid: expect.stringMatching(/^[0-9a-f]{40}$/) });
    } finally {
      await store.close();
    }
  });

  it('builds a gateway from flags, which answers once listening', async () => {
    const app = await buildGateway(await loadConfig(['--mode', 'native', '--port', '0', '--host', '127.0.0.1'], {}), { logStream: { write() {} } as never });
    try {
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      const answer = await fetch(`${url}/healthz`);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ status: 'ok' });
    } finally {
      await app.close();
    }
  });
});
