/** The image's promises that can be checked without a container engine: its data directory and its health probe. */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '../../src/config.ts';
import { gatewayFlags, probeHost } from '../../src/healthcheck.ts';
import { loadConfig } from '../../src/config.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const dockerfile = readFileSync(`${ROOT}Dockerfile`, 'utf8');
const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

/** The ENV of the runtime stage, as `docker build` reads `ENV A=1 \` continuation lines. */
function runtimeEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  const joined = runtimeStage.replace(/\\\n\s*/g, ' ');
  for (const line of joined.split('\n').filter((l) => l.startsWith('ENV '))) {
    // KEY=value or KEY="a value with spaces".
    for (const [, key, quoted, plain] of line.slice(4).matchAll(/(\w+)=(?:"([^"]*)"|(\S*))/g)) env[key!] = quoted ?? plain!;
  }
  return env;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

function runNode(script: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [`${ROOT}${script}`], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  return { child, out: () => out };
}

async function healthcheck(env: Record<string, string>): Promise<number> {
  const probe = runNode('src/healthcheck.ts', env);
  const [code] = await once(probe.child, 'exit');
  return code as number;
}

describe('Dockerfile', () => {
  it('keeps the embedded store on its volume: V2GW_DATA_DIR names the VOLUME, owned by the user it runs as', () => {
    const env = runtimeEnv();
    expect(env.V2GW_DATA_DIR).toBe('/data');
    expect(runtimeStage).toMatch(/^VOLUME \/data$/m);
    expect(runtimeStage).toMatch(/chown node:node \/data/);
    expect(runtimeStage).toMatch(/^USER node$/m);
  });

  it('sets only variables the gateway reads', () => {
    const known = new Set(Object.values(OPTIONS).map((o) => o.env));
    for (const name of Object.keys(runtimeEnv()).filter((n) => n.startsWith('V2GW_'))) expect(known).toContain(name);
  });

  it('runs Node with the flags of `npm start`, and they cap V8\'s young generation', async () => {
    const start = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: { start: string } }).scripts.start;
    const startFlags = start.split(/\s+/).filter((arg) => arg.startsWith('--'));
    const nodeOptions = runtimeEnv().NODE_OPTIONS ?? '';
    expect(nodeOptions.split(/\s+/)).toEqual(startFlags);
    // Churn far past any default semi-space, then read the young generation's size: capped, it never grows past two semi-spaces.
    const script = "let k=[];for(let i=0;i<3e6;i++){k.push({i,s:'x'+i});if(k.length>2e4)k=[]}" +
      "console.log(require('node:v8').getHeapSpaceStatistics().find((s)=>s.space_name==='new_space').space_size)";
    const sizeWith = async (options: string) => {
      const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, NODE_OPTIONS: options }, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      await once(child, 'exit');
      return Number(out.trim());
    };
    // Two semi-spaces, plus pages a scavenge holds for a moment on a busy machine (seen: 1.5 MB past two
    // 4 MB semi-spaces under CI's load): bounded by three, where Node's own default grows to many more.
    const semiSpaceMb = Number(/--max-semi-space-size=(\d+)/.exec(nodeOptions)?.[1]);
    expect(await sizeWith(nodeOptions)).toBeLessThanOrEqual(3 * semiSpaceMb * 2 ** 20);
    expect(await sizeWith('')).toBeGreaterThan(3 * semiSpaceMb * 2 ** 20);
  });

  it('runs Node with a heap limit under 2 GiB, where V8 bounds its old generation\'s growth below 4x', async () => {
    const nodeOptions = runtimeEnv().NODE_OPTIONS ?? '';
    const script = "console.log(require('node:v8').getHeapStatistics().heap_size_limit)";
    const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, NODE_OPTIONS: nodeOptions }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    await once(child, 'exit');
    // The limit counts the young generation too: under 2 GiB with it, the old generation's is under 2 GiB as well.
    expect(Number(out.trim())).toBeLessThan(2048 * 2 ** 20);
  });

  it('builds from what its build stage copies, and the build it runs starts', { timeout: 60_000 }, () => {
    const buildStage = dockerfile.slice(dockerfile.indexOf('\nFROM '), dockerfile.indexOf('\nFROM ', dockerfile.indexOf('\nFROM ') + 1));
    expect(buildStage).toMatch(/RUN node scripts\/build\.ts/);
    // `COPY a b c ./` and `COPY src ./src`: every source named, as the build context gives it.
    const copied = [...buildStage.matchAll(/^COPY (?!--)(.+)$/gm)].flatMap((m) => m[1]!.trim().split(/\s+/).slice(0, -1));
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'scripts', 'src']));
    const dir = mkdtempSync(join(tmpdir(), 'v2gw-image-build-'));
    try {
      for (const path of copied) cpSync(`${ROOT}${path}`, join(dir, path), { recursive: true });
      // What `npm ci` puts there in the image; linked, not installed, here.
      symlinkSync(`${ROOT}node_modules`, join(dir, 'node_modules'));
      execFileSync(process.execPath, ['scripts/build.ts'], { cwd: dir, stdio: 'pipe' });
      const version = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }).version;
      expect(execFileSync(process.execPath, ['dist/src/cli.js', '--version'], { cwd: dir, encoding: 'utf8' }).trim()).toBe(`v2gw ${version}`);
      expect(runtimeStage).toMatch(/^CMD \["node", "dist\/src\/cli\.js"\]$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('probes health with the script that follows the gateway settings', () => {
    expect(runtimeStage).toMatch(/HEALTHCHECK[^\n]*\\\n\s*CMD \["node", "src\/healthcheck\.ts"\]/);
  });
});

describe('src/healthcheck.ts', () => {
  it('reaches a wildcard bind on loopback', () => {
    expect(probeHost('0.0.0.0')).toBe('127.0.0.1');
    expect(probeHost('::')).toBe('::1');
    expect(probeHost('10.1.2.3')).toBe('10.1.2.3');
  });

  it('reads the gateway\'s own flags from a container\'s PID 1 command line, with or without an init in front', () => {
    /** A command line as /proc/N/cmdline holds it: each argument ended by NUL. */
    const cmdline = (...args: string[]) => args.map((arg) => `${arg}\x00`).join('');
    expect(gatewayFlags(cmdline('node', 'src/cli.ts', '--port', '9000', '--host', '::'))).toEqual(['--port', '9000', '--host', '::']);
    expect(gatewayFlags(cmdline('/sbin/docker-init', '--', 'node', '/app/src/cli.ts', '--port=9001'))).toEqual(['--port=9001']);
    expect(gatewayFlags(cmdline('node', 'src/cli.ts'))).toEqual([]);
    // The image runs the build (npm run build): its entry point is the gateway's too.
    expect(gatewayFlags(cmdline('node', '/app/dist/src/cli.js', '--port', '9002'))).toEqual(['--port', '9002']);
    expect(gatewayFlags(cmdline('node', 'dist/src/healthcheck.js', '--port', '1'))).toEqual([]);
    expect(gatewayFlags(cmdline('/sbin/init', 'splash'))).toEqual([]);
    expect(gatewayFlags(cmdline('node', 'src/healthcheck.ts', '--port', '1'))).toEqual([]);
    // Flags win over the image's V2GW_PORT, as they do for the gateway.
    expect(loadConfig(gatewayFlags(cmdline('node', 'src/cli.ts', '--port', '9000')), { V2GW_PORT: '8080' }).port).toBe(9000);
  });

  it('passes for a gateway started with --port and --host flags when given the same flags', async () => {
    const port = await freePort();
    const flags = ['--port', String(port), '--host', '127.0.0.2', '--mode', 'native'];
    const gateway = spawn(process.execPath, [`${ROOT}src/cli.ts`, ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    gateway.stdout.on('data', (chunk) => (out += chunk));
    const probe = async (args: string[]) => (await once(spawn(process.execPath, [`${ROOT}src/healthcheck.ts`, ...args], { stdio: 'ignore' }), 'exit'))[0];
    try {
      const until = Date.now() + 15_000;
      while (!out.includes('v2gw listening') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(await probe(flags)).toBe(0);
      expect(await probe(['--port', String(port)])).toBe(1);
    } finally {
      gateway.kill('SIGTERM');
      await once(gateway, 'exit');
    }
  });

  it('passes for a gateway on any V2GW_PORT and V2GW_HOST, and fails where none answers', async () => {
    const port = await freePort();
    // Native mode off loopback with no issuer must say it is meant (--auth-disabled).
    const env = { V2GW_PORT: String(port), V2GW_HOST: '0.0.0.0', V2GW_MODE: 'native', V2GW_AUTH_DISABLED: 'true', V2GW_LOG_LEVEL: 'info' };
    expect(await healthcheck(env)).toBe(1);
    const gateway = runNode('src/cli.ts', env);
    try {
      const until = Date.now() + 15_000;
      while (!gateway.out().includes('v2gw listening') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(await healthcheck(env)).toBe(0);
      expect(await healthcheck({ ...env, V2GW_PORT: String(await freePort()) })).toBe(1);
    } finally {
      gateway.child.kill('SIGTERM');
      await once(gateway.child, 'exit');
    }
  });
});
