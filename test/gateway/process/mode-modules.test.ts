/**
 * Each mode loads what it serves with and nothing of the other's: a module
 * loaded is memory held for the life of the process (its code, and its
 * source, which V8 keeps), whether or not it is ever used. Asserted on the
 * modules a real gateway process (src/cli.ts) has loaded once listening.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url).pathname;
const CLI = `${ROOT}src/cli.ts`;
const RECORDER = new URL('../../support/record-modules.ts', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'v2gw-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The module URLs a gateway started with `args` has loaded by the time it listens. */
async function modulesLoaded(name: string, args: string[], cli = CLI): Promise<string[]> {
  const file = join(dir, `${name}.json`);
  const child = spawn(process.execPath, ['--import', RECORDER, cli, '--port', '0', '--host', '127.0.0.1', '--log-level', 'info', ...args], {
    env: { ...process.env, V2GW_TEST_MODULES_FILE: file },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (err += chunk));
  const exited = once(child, 'exit');
  const until = Date.now() + 30_000;
  while (!out.includes('v2gw listening')) {
    if (child.exitCode !== null || Date.now() > until) throw new Error(`${name}: the gateway did not start: ${err}${out}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  try {
    child.kill('SIGUSR2');
    while (!existsSync(file)) {
      if (child.exitCode !== null || Date.now() > until) throw new Error(`${name}: no list of modules written: ${err}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return JSON.parse(readFileSync(file, 'utf8')) as string[];
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const loads = (modules: string[], part: string) => modules.some((url) => url.includes(part));
const NODE_UNDICI = 'node-internal:internal/deps/undici/undici';

describe('modules loaded per mode', () => {
  it('native mode on SQLite loads no v1 client, no pass-through, no undici, no PostgreSQL driver, no Swagger UI and no v1 emulator', async () => {
    const modules = await modulesLoaded('native', ['--mode', 'native']);
    expect(loads(modules, '/src/native/native-backend.ts')).toBe(true);
    for (const part of ['/src/v1/client.ts', '/src/translate/v1-backend.ts', '/src/passthrough/', '/node_modules/@fastify/reply-from/', '/node_modules/undici/', '/node_modules/pg/', '/node_modules/swagger-ui-dist/', '/src/emulator/']) {
      expect(loads(modules, part), part).toBe(false);
    }
  });

  it('translate mode loads the v1 client and the pass-through, and no native backend (until a resource the store keeps is asked for), PostgreSQL driver, Swagger UI, v1 emulator, ConnectRPC Node adapter or Node\'s own undici (with a v1 to serve)', async () => {
    const modules = await modulesLoaded('translate', ['--v1-url', 'http://127.0.0.1:9']);
    expect(loads(modules, '/src/v1/client.ts')).toBe(true);
    expect(loads(modules, '/src/passthrough/plugin.ts')).toBe(true);
    // One copy of undici: a library of the pass-through's own would bring another (one did, ~5 MB).
    expect(modules.filter((url) => /\/node_modules\/.+\/node_modules\/undici\//.test(url))).toEqual([]);
    // ConnectRPC's Node adapter waits for the first call it serves (gRPC-Web, Connect, health, reflection);
    // Node's bundled undici comes with it, or with an ES module import of node:http (src/node-http.ts).
    for (const part of ['/src/native/native-backend.ts', '/node_modules/pg/', '/node_modules/swagger-ui-dist/', '/src/emulator/', '/node_modules/@connectrpc/connect-node/', NODE_UNDICI]) {
      expect(loads(modules, part), part).toBe(false);
    }
  });

  it('the build that npm start and the image run is one bundle: no module of it needs the type stripper or node_modules, and each mode loads its own chunks', { timeout: 120_000 }, async () => {
    execFileSync(process.execPath, [`${ROOT}scripts/build.ts`], { stdio: 'inherit' });
    const CLI_BUILT = `${ROOT}dist/src/cli.js`;
    const [translate, native] = await Promise.all([
      modulesLoaded('built-translate', ['--v1-url', 'http://127.0.0.1:9'], CLI_BUILT),
      modulesLoaded('built-native', ['--mode', 'native'], CLI_BUILT),
    ]);
    const chunk = (name: string) => new RegExp(`/dist/src/${name}-[A-Z0-9]+\\.js$`);
    const hasChunk = (modules: string[], name: string) => modules.some((url) => chunk(name).test(url));
    expect(hasChunk(translate, 'client'), 'the v1 client').toBe(true);
    expect(hasChunk(translate, 'native-backend')).toBe(false);
    expect(hasChunk(native, 'native-backend'), 'the native backend').toBe(true);
    expect(hasChunk(native, 'client')).toBe(false);
    for (const modules of [translate, native]) {
      expect(modules.filter((url) => url.startsWith('file:') && /\.[mc]?ts$/.test(url))).toEqual([]);
      expect(modules.filter((url) => url.includes('/node_modules/'))).toEqual([]);
      expect(loads(modules, NODE_UNDICI)).toBe(false);
    }
  });
});
