import { describe, it, expect } from 'vitest';
import { parseJsonBytes } from '../../src/v1/json-body.ts';
import { prng } from '../support/prng.ts';

const bytes = (text: string) => Buffer.from(text, 'utf8');

/** JSON.parse's verdict: its value, or that it threw. */
function verdict(parse: () => unknown): { value: unknown } | { threw: true } {
  try {
    return { value: parse() };
  } catch (error) {
    expect(error).toBeInstanceOf(SyntaxError);
    return { threw: true };
  }
}

const STRINGS = ['', 'a', 'group-0001', 'say "hi"', 'back\\slash', '\\', '"', '},{"', '],[', '{', '日本語', '\u{1F600}', 'tab\tnew\nline', '\u0000', '\uFEFF'];
const KEYS = ['items', 'nextPageToken', 'id', 'name', '__proto__', 'constructor', 'a"b', 'x\\', ''];

function randomValue(next: () => number, depth: number): unknown {
  const pick = <T,>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const r = next();
  if (depth > 3 || r < 0.35) return pick<unknown>([null, true, false, 0, -1.5, 1e21, 12345678901234567890, pick(STRINGS)]);
  if (r < 0.7) return Array.from({ length: Math.floor(next() * 6) }, () => randomValue(next, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(next() * 5) }, () => [pick(KEYS), randomValue(next, depth + 1)]));
}

/** A document as v1 might write it: an object with a large array, with whitespace here and there. */
function randomDocument(next: () => number): string {
  const items = Array.from({ length: Math.floor(next() * 60) }, () => randomValue(next, 1));
  const doc = { ...(next() < 0.5 ? { before: randomValue(next, 2) } : {}), items, nextPageToken: 'abc', tail: randomValue(next, 2) };
  const text = JSON.stringify(doc, null, next() < 0.3 ? 2 : undefined);
  return next() < 0.1 ? `\uFEFF ${text}\n` : text;
}

describe('parseJsonBytes', () => {
  it('reads a large list answer exactly as JSON.parse does, pieces and all', () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ id: `org/${i}`, name: `group-${i}`, description: `"quoted" },{ ${i}` }));
    const text = JSON.stringify({ items, nextPageToken: 'next' });
    expect(parseJsonBytes(bytes(text))).toEqual(JSON.parse(text));
    expect(parseJsonBytes(bytes(text), 100)).toEqual(JSON.parse(text));
  });

  it('keeps a __proto__ key an own property, as JSON.parse does', () => {
    const text = `{"__proto__": {"polluted": true}, "items": [1, 2, 3, 4, 5, 6, 7, 8]}`;
    const parsed = parseJsonBytes(bytes(text), 4) as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(parsed).toEqual(JSON.parse(text));
  });

  it('lets the last of duplicate keys win, as JSON.parse does', () => {
    const text = '{"items": [1, 2, 3, 4, 5, 6], "items": [7, 8, 9, 10, 11, 12]}';
    expect(parseJsonBytes(bytes(text), 4)).toEqual(JSON.parse(text));
    expect(Object.keys(parseJsonBytes(bytes(text), 4) as object)).toEqual(Object.keys(JSON.parse(text)));
  });

  it('drops a leading BOM, as undici does', () => {
    expect(parseJsonBytes(bytes('\uFEFF{"items": [1, 2, 3, 4, 5]}'), 4)).toEqual({ items: [1, 2, 3, 4, 5] });
    expect(parseJsonBytes(bytes('\uFEFF{"a": 1}'))).toEqual({ a: 1 });
  });

  it('refuses what JSON.parse refuses', () => {
    for (const text of ['{"items": [1, 2, 3,]}', '{"items": [1, , 2]}', '{"items": [1,2,,3,4]}', '{"items": [1, 2, 3}', '{"items": [1, 2, 3]} x', '{"items": [{"a": 1], 2]}', '{"items" [1, 2]}', '{"items": [1, 2], }', '{"items": ["a\\"]}']) {
      expect(() => JSON.parse(text), text).toThrow(SyntaxError);
      expect(() => parseJsonBytes(bytes(text), 2), text).toThrow(SyntaxError);
    }
  });

  it('agrees with JSON.parse on random documents and on every corruption of them (seeded)', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = prng(seed);
      const text = randomDocument(next);
      const piece = 1 + Math.floor(next() * 200);
      const clean = text.replace(/^\uFEFF/, '');
      expect(verdict(() => parseJsonBytes(bytes(text), piece)), `seed ${seed}`).toEqual(verdict(() => JSON.parse(bytes(clean).toString())));
      // One character removed or one inserted, where a structural one may break the document.
      for (let k = 0; k < 5; k++) {
        const at = Math.floor(next() * clean.length);
        const broken = next() < 0.5 ? clean.slice(0, at) + clean.slice(at + 1) : clean.slice(0, at) + '",]}:\\ 0'[Math.floor(next() * 8)] + clean.slice(at);
        expect(verdict(() => parseJsonBytes(bytes(broken), piece)), `seed ${seed} corruption ${k}: ${broken}`).toEqual(verdict(() => JSON.parse(bytes(broken).toString())));
      }
    }
  });
});
