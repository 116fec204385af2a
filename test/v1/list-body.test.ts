import { describe, expect, it } from 'vitest';
import { readListAnswer, rereadListAnswer, ScannedRows } from '../../src/v1/list-body.ts';
import { prng } from '../support/prng.ts';

const bytes = (text: string) => Buffer.from(text, 'utf8');

/** What readListAnswer answers, made plain: scanned rows as their partial rows and their whole rows. */
function plain(answer: unknown): unknown {
  if (typeof answer !== 'object' || answer === null || !(answer as { items?: unknown }).items) return answer;
  const { items, ...rest } = answer as { items: unknown };
  if (!(items instanceof ScannedRows)) return answer;
  return { ...rest, items: { partial: items.partial, whole: items.partial.map((_, i) => items.whole(i)) } };
}

/** What readListAnswer should answer, from JSON.parse: each row's members picked, and the rows whole. */
function expected(text: string, members: readonly string[]): unknown {
  // Through UTF-8 and back, as the body travels (a lone surrogate becomes U+FFFD).
  const parsed = JSON.parse(bytes(text).toString('utf8')) as { items?: unknown };
  const items = parsed.items;
  if (!Array.isArray(items) || !items.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row))) return parsed;
  const partial = items.map((row: Record<string, unknown>) => Object.fromEntries(members.filter((m) => Object.hasOwn(row, m)).map((m) => [m, row[m]])));
  return { ...parsed, items: { partial, whole: items } };
}

/** Its verdict: the answer made plain, or that it threw (a SyntaxError, as JSON.parse throws). */
function verdict(read: () => unknown): { value: unknown } | { threw: true } {
  try {
    return { value: plain(read()) };
  } catch (error) {
    expect(error).toBeInstanceOf(SyntaxError);
    return { threw: true };
  }
}

const MEMBERS = ['id', 'createdAt'];

describe('readListAnswer', () => {
  it('reads each row\'s wanted members, and a row whole on demand', () => {
    const text = '{"items": [{"id": "a", "name": "x", "createdAt": "t1"}, {"name": "y", "id": "b"}], "nextPageToken": "n"}';
    const answer = readListAnswer(bytes(text), MEMBERS) as { items: ScannedRows; nextPageToken: string };
    expect(answer.items).toBeInstanceOf(ScannedRows);
    expect(answer.items.partial).toEqual([{ id: 'a', createdAt: 't1' }, { id: 'b' }]);
    expect(Object.hasOwn(answer.items.partial[1]!, 'createdAt')).toBe(false);
    expect(answer.items.whole(1)).toEqual({ name: 'y', id: 'b' });
    expect(answer.nextPageToken).toBe('n');
  });

  it('reads a presence member only for whether it is blank: null and "" as they are, true for any other value', () => {
    const text = '{"items": [{"id": "a", "createdAt": "2024-01-01T00:00:00Z"}, {"id": "b", "createdAt": null}, {"id": "c", "createdAt": ""}, {"id": "d"}, {"id": "e", "createdAt": 0}, {"id": "f", "createdAt": "\\u0000"}]}';
    const answer = readListAnswer(bytes(text), ['id'], ['createdAt']) as { items: ScannedRows };
    expect(answer.items.partial).toEqual([
      { id: 'a', createdAt: true }, { id: 'b', createdAt: null }, { id: 'c', createdAt: '' }, { id: 'd' }, { id: 'e', createdAt: true }, { id: 'f', createdAt: true },
    ]);
    expect(answer.items.whole(0)).toEqual({ id: 'a', createdAt: '2024-01-01T00:00:00Z' });
  });

  it('reads members of any JSON type, escaped strings and escaped keys as JSON.parse does', () => {
    const text = String.raw`{"items": [{"id": "a\"b\u00e9", "createdAt": null}, {"\u0069d": {"x": [1, -2.5e3]}, "createdAt": false}, {"id": "日本語"}]}`;
    expect(plain(readListAnswer(bytes(text), MEMBERS))).toEqual(expected(text, MEMBERS));
  });

  it('lets the last of duplicate keys win, in rows and at the top', () => {
    const text = '{"items": [{"id": "first", "id": "last"}], "items": [{"id": "again", "id": "final"}]}';
    expect(plain(readListAnswer(bytes(text), MEMBERS))).toEqual(expected(text, MEMBERS));
    expect((readListAnswer(bytes(text), MEMBERS) as { items: ScannedRows }).items.partial).toEqual([{ id: 'final' }]);
  });

  it('keeps a __proto__ key an own property, and a BOM and whitespace do not matter', () => {
    const text = '\uFEFF {\n "__proto__": {"polluted": true},\t"items" : [ {"id" : "a"} , {"id":"b"} ]\r\n}\n';
    const answer = readListAnswer(bytes(text), MEMBERS) as Record<string, unknown>;
    expect(Object.getPrototypeOf(answer)).toBe(Object.prototype);
    expect(Object.hasOwn(answer, '__proto__')).toBe(true);
    expect(plain(answer)).toEqual(expected(text.slice(1), MEMBERS));
  });

  it('answers a body of another shape exactly as parsing it whole does', () => {
    for (const text of ['{}', '{"items": null}', '{"items": "none"}', '{"items": [1, "two", null]}', '{"items": [{"id": "a"}, 2]}', '[1, 2]', '"ok"', '{"nextPageToken": "x"}']) {
      expect(readListAnswer(bytes(text), MEMBERS), text).toEqual(JSON.parse(text));
    }
    expect(plain(readListAnswer(bytes('{"items": []}'), MEMBERS))).toEqual({ items: { partial: [], whole: [] } });
  });

  it('refuses what JSON.parse refuses, in rows it reads whole or not', () => {
    const bad = [
      '{"items": [{"id": "a", "name": "tab\there"}]}', // a raw control character in a string
      '{"items": [{"id": "a", "name": "unit\u001fseparator"}]}', '{"items": [{"id": "a", "name": "nul\u0000"}]}', // the first and last of them
      '{"items": [{"id": "a", "name": "\\x"}]}', // an escape JSON has not
      '{"items": [{"id": "a", "name": "\\u12g4"}]}',
      '{"items": [{"id": "a", "n": 01}]}', '{"items": [{"id": "a", "n": 1.}]}', '{"items": [{"id": "a", "n": -}]}', '{"items": [{"id": "a", "n": 1e}]}',
      '{"items": [{"id": "a", "v": tru}]}', '{"items": [{"id": "a", "v": nul}]}', '{"items": [{"id": "a", "v": undefined}]}',
      '{"items": [{"id": "a", "o": {"x": 1]}]}', '{"items": [{"id": "a", "o": {"x" 1}}]}', '{"items": [{"id": "a", "o": [1,]}]}', '{"items": [{"id": "a", "o": {,}}]}',
      '{"items": [{"id": "a", "o": {"x": 1 "y": 2}}]}', '{"items": [{"id": "a", "o": [1 2]}]}', // a missing comma
      '{"items": [{"id": "a", "o": {"x": 1x"y": 2}}]}', '{"items": [{"id": "a", "o": [1x2]}]}', '{"items": [{"id": "a"x"b": 1}x{"id": "c"}]}', '{"items": [{"id": "a"}]x"b": 1}',
      '{"items": [{"id": "a",}]}', '{"items": [{"id": "a"},]}', '{"items": [{"id": "a"} {"id": "b"}]}', '{"items": [{"id" "a"}]}', '{"items": [{id: "a"}]}',
      '{"items": [{"id": "a"}]', '{"items": [{"id": "a"}]} x', '{"items": [{"id": "a"}], }', '{"items": [{"id": "a', '',
    ];
    for (const text of bad) {
      expect(() => JSON.parse(text), text).toThrow(SyntaxError);
      expect(() => readListAnswer(bytes(text), MEMBERS), text).toThrow(SyntaxError);
    }
  });

  it('finds a string\'s end, an escape or a control character wherever it falls among the bytes read at once, to the body\'s end', () => {
    // Strings are run through sixteen bytes at a time: each stop, and each byte either side of a stop's
    // value, at every place in the first two blocks, in a member read and in one passed over, whole and cut short.
    const STOPS = ['\\"', '\\\\', '\\n', '\\u0041', '\t', '\u0000', '\u001f', ' ', '!', '#', '[', ']', '\u007f', 'é', '\u{1F600}'];
    const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ';
    const texts: string[] = [];
    for (let before = 0; before <= 33; before++) {
      for (const stop of STOPS) {
        const value = `${LETTERS.slice(0, before)}${stop}xyz`;
        texts.push(`{"items": [{"id": "${value}", "name": "${value}"}, {"name": "${value}", "id": "b"}]}`);
      }
    }
    for (const text of texts) {
      for (const cut of [text, text.slice(0, text.indexOf('xyz') + 1), text.slice(0, text.indexOf('xyz') - 1)]) {
        const want = verdict(() => expected(cut, MEMBERS));
        // Refused by the reading itself, not only when a row is later parsed whole.
        if ('threw' in want) expect(() => readListAnswer(bytes(cut), MEMBERS), cut).toThrow(SyntaxError);
        else expect(verdict(() => readListAnswer(bytes(cut), MEMBERS)), cut).toEqual(want);
      }
    }
  });

  it('agrees with JSON.parse on random lists and on every corruption of them (seeded)', () => {
    const VALUES = [null, true, false, 0, -1.5, 1e21, 'x', '', 'say "hi"', 'back\\slash', '日本語', '\u{1F600}', 'tab\tline', { a: [1, { b: 'c' }] }, [], {}];
    const KEYS = ['id', 'createdAt', 'name', 'description', '__proto__', 'i', 'ids', 'a"b'];
    for (let seed = 1; seed <= 300; seed++) {
      const next = prng(seed);
      const pick = <T,>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
      const items = Array.from({ length: Math.floor(next() * 20) }, () =>
        Object.fromEntries(Array.from({ length: Math.floor(next() * 6) }, () => [pick(KEYS), pick(VALUES)])));
      const text = JSON.stringify({ items, nextPageToken: 'abc', ...(next() < 0.3 ? { totalCount: 5 } : {}) }, null, next() < 0.3 ? 2 : undefined);
      expect(verdict(() => readListAnswer(bytes(text), MEMBERS)), `seed ${seed}`).toEqual({ value: expected(text, MEMBERS) });
      for (let k = 0; k < 8; k++) {
        const at = Math.floor(next() * text.length);
        const broken = next() < 0.5 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + '",]}:\\ 0{[-e.\t'[Math.floor(next() * 14)] + text.slice(at);
        const want = verdict(() => expected(broken, MEMBERS));
        expect(verdict(() => readListAnswer(bytes(broken), MEMBERS)), `seed ${seed} corruption ${k}: ${broken}`).toEqual(want);
      }
    }
  });

  it('rereads a changed answer as reading it whole does, taking over the rows that did not change (seeded)', () => {
    const VALUES = [null, true, 0, 'x', '', 'say "hi"', '日本語', { a: [1] }, 'a longer value, so rows differ in length'];
    const KEYS = ['id', 'createdAt', 'name', 'description'];
    let reused = 0;
    let unchanged = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const next = prng(seed);
      const pick = <T,>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
      const row = () => Object.fromEntries(Array.from({ length: 1 + Math.floor(next() * 4) }, () => [pick(KEYS), pick(VALUES)]));
      const items = Array.from({ length: Math.floor(next() * 12) }, row);
      const top = { nextPageToken: 'abc' };
      const space = next() < 0.3 ? 2 : undefined;
      const before = JSON.stringify({ items, ...top }, null, space);
      const changed = [...items];
      const at = Math.floor(next() * (items.length + 1));
      const edit = Math.floor(next() * 6);
      let text: string;
      if (edit === 0 && at < items.length) changed[at] = row(); // a row changed
      else if (edit === 1) changed.splice(at, 0, row()); // a row added
      else if (edit === 2 && at < items.length) changed.splice(at, 1); // a row gone
      text = JSON.stringify({ items: changed, ...top, ...(edit === 3 ? { nextPageToken: 'abd' } : {}) }, null, space);
      if (edit === 4 || edit === 5) {
        // Bytes corrupted or inserted anywhere: the reread must refuse what a whole read refuses.
        const where = Math.floor(next() * text.length);
        text = edit === 4 ? text.slice(0, where) + text.slice(where + 1) : text.slice(0, where) + '",]}:\\ 0{[-e.\t'[Math.floor(next() * 14)] + text.slice(where);
      }
      const earlier = readListAnswer(bytes(before), MEMBERS);
      const reread = rereadListAnswer(bytes(before), earlier, bytes(text), MEMBERS);
      const whole = verdict(() => readListAnswer(bytes(text), MEMBERS));
      if (reread === undefined) continue;
      // Whatever it answers is what the whole read answers; a body the whole read refuses it never answers.
      expect({ value: plain(reread) }, `seed ${seed} edit ${edit}: ${before} -> ${text}`).toEqual(whole);
      reused++;
      const [was, now] = [(earlier as { items: ScannedRows }).items.partial, (reread as { items: ScannedRows }).items.partial];
      if (now.length > 1 && was.includes(now[0]!) && was.includes(now[now.length - 1]!)) unchanged++;
    }
    // The reread is taken for most changes, and keeps the earlier rows where the change left them.
    expect(reused).toBeGreaterThan(150);
    expect(unchanged).toBeGreaterThan(50);
  });

  it('does not reread an answer that changed outside its rows, or an earlier answer it did not scan', () => {
    const before = '{"items": [{"id": "a"}, {"id": "b"}], "nextPageToken": "n"}';
    const earlier = readListAnswer(bytes(before), MEMBERS);
    expect(rereadListAnswer(bytes(before), earlier, bytes('{"items": [{"id": "a"}, {"id": "b"}], "nextPageToken": "m"}'), MEMBERS)).toBeUndefined();
    expect(rereadListAnswer(bytes(before), earlier, bytes('{"total": 2, "items": [{"id": "a"}, {"id": "b"}], "nextPageToken": "n"}'), MEMBERS)).toBeUndefined();
    expect(rereadListAnswer(bytes('[]'), [], bytes('[1]'), MEMBERS)).toBeUndefined();
    const changed = rereadListAnswer(bytes(before), earlier, bytes('{"items": [{"id": "a"}, {"id": "c"}], "nextPageToken": "n"}'), MEMBERS) as { items: ScannedRows; nextPageToken: string };
    expect(changed.items.partial).toEqual([{ id: 'a' }, { id: 'c' }]);
    expect(changed.items.partial[0]).toBe((earlier as { items: ScannedRows }).items.partial[0]);
    expect(changed.nextPageToken).toBe('n');
  });
});
