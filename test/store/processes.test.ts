/**
 * The store across processes: a writer killed with SIGKILL in the middle of a
 * burst loses no write it had acknowledged, and two processes opening one fresh
 * place at the same moment migrate it once, without error.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresEngine, sqliteEngine, type Engine, type Place } from './engines.ts';

const CHILD = fileURLToPath(new URL('./store-child.ts', import.meta.url));
const ACKNOWLEDGED_BEFORE_KILL = 400;

function child(place: Place, ...args: string[]) {
  return spawn(process.execPath, [CHILD, args[0]!, place.location, JSON.stringify(place.options), ...args.slice(1)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function exited(proc: ReturnType<typeof child>): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = '';
  proc.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => proc.on('close', (code, signal) => resolve({ code, signal, stderr })));
}

describe.each([
  { name: 'sqlite', make: sqliteEngine },
  { name: 'postgres', make: postgresEngine },
])('store across processes: $name', ({ make }) => {
  const engine: Engine = make();
  afterAll(() => engine.cleanup());

  it('every write acknowledged before a SIGKILL is there after restart', async () => {
    const place = await engine.fresh();
    // Migrate first, so the child's writes start at once.
    await (await place.open()).close();
    const writer = child(place, 'write');
    const done = exited(writer);
    const acknowledged: string[] = [];
    let partial = '';
    await new Promise<void>((resolve, reject) => {
      writer.stdout!.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString()).split('\n');
        partial = lines.pop()!;
        for (const line of lines) if (line && line !== 'ready') acknowledged.push(line);
        if (acknowledged.length >= ACKNOWLEDGED_BEFORE_KILL) {
          writer.kill('SIGKILL');
          resolve();
        }
      });
      void done.then(({ stderr }) => reject(new Error(`writer exited before the kill: ${stderr}`)));
    });
    const { signal } = await done;
    expect(signal).toBe('SIGKILL');

    const store = await place.open();
    try {
      const found = await store.resources.list({
        kind: 'groups',
        filters: [{ field: 'uid', op: 'in', value: acknowledged }],
        order: [{ field: 'uid', desc: false }],
        skip: 0,
        limit: 1,
      });
      expect(found.total).toBe(acknowledged.length);
      // A batch is all there or not at all, even the one the kill interrupted.
      const all = await store.resources.list({ kind: 'groups', filters: [], order: [{ field: 'uid', desc: false }], skip: 0, limit: 100_000 });
      const have = new Set(all.rows.map((r) => r.uid));
      for (const uid of have) {
        const batch = /^(w\d+)[abc]$/.exec(uid)?.[1];
        if (batch) expect(['a', 'b', 'c'].every((s) => have.has(batch + s)), uid).toBe(true);
      }
    } finally {
      await store.close();
    }
  });

  it('two processes opening one fresh place at once both succeed', async () => {
    const place = await engine.fresh();
    const results = await Promise.all(['one', 'two', 'three'].map((uid) => exited(child(place, 'insert', uid))));
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
    const store = await place.open();
    try {
      const rows = await store.resources.list({ kind: 'groups', filters: [], order: [{ field: 'uid', desc: false }], skip: 0, limit: 10 });
      expect(rows.rows.map((r) => r.uid)).toEqual(['one', 'three', 'two']);
    } finally {
      await store.close();
    }
  });
});
