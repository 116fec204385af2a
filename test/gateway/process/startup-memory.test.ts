/**
 * The young generation start-up grows, handed back before the gateway listens (src/startup-memory.ts):
 * read from the gateway's own /metrics (prom-client's heap spaces), started as `npm start` starts it and
 * without `--expose-gc`. And what the collection must not take with it: the shape of Node's tick objects,
 * read from V8's own account of `process.nextTick` (`%DebugPrint`, in a Node of its own).
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

const CLI = new URL('../../../src/cli.ts', import.meta.url).pathname;
const STARTUP_MEMORY = new URL('../../../src/startup-memory.ts', import.meta.url).href;
const MIB = 2 ** 20;
/** A cap start-up reaches whatever the machine: its young generation is two such semi-spaces. */
const SEMI_SPACE_MB = 16;

/** The gateway's new space (bytes V8 reserved for it) and how its listening line says start-up's memory went. */
async function startedWith(nodeFlags: string[]): Promise<{ newSpace: number; startupMemory: string }> {
  const child = spawn(process.execPath, [...nodeFlags, `--max-semi-space-size=${SEMI_SPACE_MB}`, CLI, '--port', '0', '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    const until = Date.now() + 20_000;
    while (!out.includes('serving v2beta1 at') && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 25));
    const listening = JSON.parse(out.split('\n').find((line) => line.includes('"v2gw listening"'))!) as { startupMemory: string };
    const address = /serving v2beta1 at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    const metrics = await (await fetch(`${address}/metrics`)).text();
    const newSpace = Number(/^nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)/m.exec(metrics)![1]);
    return { newSpace, startupMemory: listening.startupMemory };
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

describe('start-up memory', () => {
  it('is handed back before the gateway listens when Node exposes gc, as npm start and the image run it', { timeout: 60_000 }, async () => {
    const released = await startedWith(['--expose-gc']);
    expect(released.startupMemory).toBe('released');
    // Shrunk to a semi-space or two of V8's least, and grown again only by what answering /metrics kept.
    expect(released.newSpace).toBeLessThan(SEMI_SPACE_MB * MIB);
  });

  it('is kept, and the listening line says why, without --expose-gc', { timeout: 60_000 }, async () => {
    const kept = await startedWith([]);
    expect(kept.startupMemory).toBe('kept (Node runs without --expose-gc)');
    // Start-up alone grew the young generation to its cap: what the collection above hands back.
    expect(kept.newSpace).toBeGreaterThan(SEMI_SPACE_MB * MIB);
  });

  it('leaves Node\'s tick objects their shape, so every process.nextTick after it stays on V8\'s fast path', () => {
    // Ticks before the collection, as start-up makes them; then the collection; then ticks as requests make them.
    const script = `
      import { releaseStartupMemory } from ${JSON.stringify(STARTUP_MEMORY)};
      const ticks = (n) => new Promise((resolve) => {
        let left = n;
        const one = () => { if (--left === 0) resolve(); };
        for (let i = 0; i < n; i++) process.nextTick(one, i);
      });
      await ticks(100);
      if (!releaseStartupMemory()) throw new Error('no collection: gc is not exposed');
      await ticks(100);
      %DebugPrint(process.nextTick);
    `;
    const printed = execFileSync(process.execPath, ['--expose-gc', '--allow-natives-syntax', '--input-type=module', '--eval', script], { encoding: 'utf8' });
    // The tick's object literal defines its five properties (three symbol keys, callback, args) each through
    // feedback that expects one map; a second map turns it megamorphic, the generic path, for good.
    const defines = [...printed.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1]);
    expect(defines).toEqual(['MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC']);
  });
});
