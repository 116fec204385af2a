/**
 * withQuery against URLSearchParams, which it replaces on every v1 call: the
 * same bytes for random names and values over every kind of character the form
 * encoding treats apart (plain, reserved, space, non-ASCII, astral, lone
 * surrogates), for arrays, booleans and left-out members.
 */
import { describe, expect, it } from 'vitest';
import { formEncode, withQuery, type QueryValue } from '../../src/v1/query-string.ts';
import { prng } from '../support/prng.ts';

function reference(path: string, query: Readonly<Record<string, QueryValue>>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, item);
    else params.append(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

const PIECES = ['a', 'Z', '0', '9', '*', '-', '.', '_', ' ', '+', '%', '&', '=', '?', '#', '/', ':', '!', "'", '(', ')', '~', '"', '<', '\u0000', '\u007f', 'é', 'ü', '✓', '\u{1F600}', '\uD800', '\uDFFF', '%20'];

describe('withQuery', () => {
  it('encodes as URLSearchParams does, over random names and values', () => {
    const random = prng(20261126);
    const text = () => Array.from({ length: Math.floor(random() * 8) }, () => PIECES[Math.floor(random() * PIECES.length)]).join('');
    for (let i = 0; i < 2_000; i++) {
      const query: Record<string, QueryValue> = {};
      const members = Math.floor(random() * 4);
      for (let m = 0; m < members; m++) {
        const kind = random();
        query[text() || `k${m}`] = kind < 0.6 ? text() : kind < 0.75 ? Array.from({ length: Math.floor(random() * 3) }, text) : kind < 0.9 ? random() < 0.5 : undefined;
      }
      expect(withQuery('/iam/v1/groups', query), JSON.stringify(query)).toBe(reference('/iam/v1/groups', query));
    }
  });

  it('leaves the path alone when nothing is asked, and each piece of the form encoding where it belongs', () => {
    expect(withQuery('/p', undefined)).toBe('/p');
    expect(withQuery('/p', {})).toBe('/p');
    expect(withQuery('/p', { a: undefined, b: [] })).toBe('/p');
    expect(withQuery('/p', { id: 'org/0a1b', 'uidp.childrenOf': 'x y', flag: true })).toBe('/p?id=org%2F0a1b&uidp.childrenOf=x+y&flag=true');
    expect(formEncode("*-._!'()~")).toBe("*-._%21%27%28%29%7E");
    expect(formEncode('\uD800')).toBe('%EF%BF%BD');
  });
});
