import { readFileSync } from 'node:fs';
import asc from 'assemblyscript/asc';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readListAnswer, ScannedRows } from '../../src/v1/list-body.ts';
import { KEPT_BYTES, listScan } from '../../src/v1/list-scan.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

function rowsOf(answer: unknown): ScannedRows {
  const items = (answer as { items: unknown }).items;
  expect(items).toBeInstanceOf(ScannedRows);
  return items as ScannedRows;
}

function list(rows: readonly object[]): Buffer {
  return Buffer.from(JSON.stringify({ items: rows }));
}

describe('the list scan module', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('is what wasm/list-scan.ts compiles to (`npm run wasm` after changing it)', async () => {
    const written: Record<string, Uint8Array> = {};
    const { error, stderr } = await asc.main(['--config', `${ROOT}wasm/asconfig.json`, '--target', 'release', '--outFile', 'compiled.wasm'], {
      writeFile: (name: string, contents: string | Uint8Array) => {
        written[name] = Buffer.from(contents);
      },
    });
    expect(error, String(stderr)).toBeNull();
    expect(Buffer.from(written['compiled.wasm']!).equals(readFileSync(`${ROOT}src/v1/list-scan.wasm`))).toBe(true);
  });

  it('reads more rows than its output holds at once, each in its place', () => {
    const rows = Array.from({ length: 40_000 }, (_, i) => ({ id: `r${i}`, n: i % 7 === 0 ? null : i }));
    const read = rowsOf(readListAnswer(list(rows), ['id', 'n']));
    expect(read.count).toBe(rows.length);
    expect(read.partial).toEqual(rows);
    expect(read.whole(39_999)).toEqual(rows[39_999]);
  });

  it('hands back the memory a large body grew once its scan is done, and the rows keep their own bytes', () => {
    const small = list([{ id: 'a' }]);
    const large = Array.from({ length: 60_000 }, (_, i) => ({ id: `g${i}`, description: 'x'.repeat(200) }));
    const body = list(large);
    expect(body.length).toBeGreaterThan(KEPT_BYTES);
    const read = rowsOf(readListAnswer(body, ['id']));
    expect(listScan!.memoryBytes).toBeLessThan(KEPT_BYTES);
    // Another body scanned since: the large one's rows read from their own bytes still.
    readListAnswer(small, ['id']);
    expect(read.row(59_999)).toEqual({ id: 'g59999' });
    expect(read.whole(12_345)).toEqual(large[12_345]);
  });

  it('reads rows for as many members as a mapping names, and leaves more than it holds to the whole parse', () => {
    const row = Object.fromEntries(Array.from({ length: 100 }, (_, k) => [`member${k}`, k]));
    const body = list([row, row]);
    const names = (n: number) => Array.from({ length: n }, (_, k) => `member${k}`);
    expect(rowsOf(readListAnswer(body, names(60))).partialRow(1)).toEqual(Object.fromEntries(names(60).map((name, k) => [name, k])));
    expect(readListAnswer(body, names(100))).toEqual(JSON.parse(body.toString()));
  });

  it('leaves values nested past its depth to the whole parse, which reads them as JSON.parse does', () => {
    const nested = (depth: number) => `{"items":[{"id":"a","deep":${'['.repeat(depth)}${']'.repeat(depth)}}]}`;
    expect(rowsOf(readListAnswer(Buffer.from(nested(500)), ['id'])).row(0)).toEqual({ id: 'a' });
    const deep = readListAnswer(Buffer.from(nested(1_000)), ['id']);
    expect((deep as { items: unknown }).items).toBeInstanceOf(Array);
    expect(JSON.stringify(deep)).toBe(JSON.stringify(JSON.parse(nested(1_000))));
    // The depth is the same for every body, whatever the one before it nested.
    const before = (depth: number) => `{"deep":${'['.repeat(depth)}${']'.repeat(depth)},"items":[{"id":"a"}]}`;
    readListAnswer(Buffer.from(before(1_000)), ['id']);
    expect((readListAnswer(Buffer.from(before(600)), ['id']) as { items: unknown }).items).toBeInstanceOf(Array);
    expect(rowsOf(readListAnswer(Buffer.from(before(500)), ['id'])).row(0)).toEqual({ id: 'a' });
  });

  it('is not needed: without WebAssembly (node --jitless) every body is parsed whole, to the same values', async () => {
    vi.stubGlobal('WebAssembly', undefined);
    vi.resetModules();
    const scan = await import('../../src/v1/list-scan.ts');
    const without = await import('../../src/v1/list-body.ts');
    expect(scan.listScan).toBeUndefined();
    const body = list([{ id: 'a', name: 'x' }, { id: 'b' }]);
    const read = without.readListAnswer(body, ['id']);
    expect(read).toEqual(JSON.parse(body.toString()));
    expect((read as { items: unknown }).items).toBeInstanceOf(Array);
    // Nothing was scanned, so there is nothing to reread from: the memo reads the next answer whole.
    expect(without.rereadListAnswer(body, read, list([{ id: 'a', name: 'y' }, { id: 'b' }]), ['id'])).toBeUndefined();
  });
});
