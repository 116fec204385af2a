/**
 * The text key: its UTF-8 byte order (what SQLite and COLLATE "C" compare) must
 * equal compareValues' code-unit order, on strings built to hit the places
 * where the two orders part (U+E000–U+FFFF against the supplementary planes)
 * and the key's own escape (U+10FFFF).
 */
import { describe, expect, it } from 'vitest';
import { compareValues } from '../../src/aip/value-order.ts';
import { textKey } from '../../src/store/text-key.ts';

const ALPHABET = ['a', 'B', '/', '\u0001', '\u00e9', '\u4e2d', '\ud7ff', '\ue000', '\uff01', '\uffff', '\u{10000}', '\u{1f600}', '\u{10fffe}', '\u{10ffff}'];

const byteOrder = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));

describe('textKey', () => {
  it('orders by bytes as compareValues orders the strings', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const word = () => Array.from({ length: Math.floor(next() * 5) }, () => ALPHABET[Math.floor(next() * ALPHABET.length)]).join('');
    for (let i = 0; i < 5000; i++) {
      const a = word();
      const b = word();
      expect(byteOrder(textKey(a), textKey(b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBe(Math.sign(compareValues(a, b)));
    }
  });

  it('is the string itself unless it holds U+E000–U+FFFF or U+10FFFF; null and undefined are empty', () => {
    expect(textKey('plain ascii / é 中 😀')).toBe('plain ascii / é 中 😀');
    expect(textKey('\uff01')).not.toBe('\uff01');
    expect(textKey('\u{10ffff}')).not.toBe('\u{10ffff}');
    expect(textKey(null)).toBe('');
    expect(textKey(undefined)).toBe('');
  });

  it('would be needed: plain byte order disagrees with compareValues here', () => {
    expect(byteOrder('\uff01', '\u{1f600}')).toBe(-1);
    expect(compareValues('\uff01', '\u{1f600}')).toBe(1);
  });
});
