import { describe, it, expect } from 'vitest';
import {
  MAX_JSON_DEPTH, MAX_STRING_BYTES, checkInput, checkJson, checkQuery, checkText, printable, textProblem,
} from '../../src/aip/input-limits.ts';
import { invalidOn } from '../support/invalid-argument.ts';

/** `levels` objects nested under `key`, innermost holding `leaf`. */
function nested(levels: number, key = 'a', leaf: unknown = 1): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < levels; i++) value = { [key]: value };
  return value;
}

/** The same as JSON text, parsed as the transport parses it (no recursion in the building). */
function nestedText(levels: number): unknown {
  return JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`);
}

const LONE_HIGH = 'x\uD800y';
const LONE_LOW = '\uDC00';
const PAIR = 'emoji \u{1F600} ok';

describe('textProblem / checkText', () => {
  it('takes ordinary text, surrogate pairs, other control characters and the empty string', () => {
    for (const text of ['', 'name', PAIR, 'tab\tnew\nline\u0001', 'é\uFFFF\u{10FFFF}']) expect(textProblem(text)).toBeUndefined();
  });

  it('refuses NUL anywhere', () => {
    for (const text of ['\u0000', 'a\u0000', '\u0000b', 'a\u0000b']) expect(textProblem(text)).toContain('NUL');
    expect(invalidOn('name', () => checkText('name', 'a\u0000b')).message).toContain('NUL');
  });

  it('refuses a lone high or low surrogate, at either end or inside', () => {
    for (const text of [LONE_HIGH, LONE_LOW, '\uD800', 'a\uDBFF', '\uDFFFb', '\uDC00\uD800']) expect(textProblem(text)).toContain('surrogate');
    invalidOn('description', () => checkText('description', LONE_HIGH));
  });

  it('refuses a string longer than MAX_STRING_BYTES of UTF-8, counting bytes, not characters', () => {
    expect(MAX_STRING_BYTES).toBe(65_536);
    expect(textProblem('x'.repeat(MAX_STRING_BYTES))).toBeUndefined();
    expect(textProblem('x'.repeat(MAX_STRING_BYTES + 1))).toContain(String(MAX_STRING_BYTES));
    // 'é' is two bytes: half as many characters reach the limit.
    expect(textProblem('é'.repeat(MAX_STRING_BYTES / 2))).toBeUndefined();
    expect(textProblem('é'.repeat(MAX_STRING_BYTES / 2 + 1))).toContain('bytes');
    // A three-byte character just under the limit by characters is far over it by bytes.
    expect(textProblem('€'.repeat(MAX_STRING_BYTES / 2))).toContain('bytes');
  });
});

describe('checkJson: nesting', () => {
  it(`takes a body ${MAX_JSON_DEPTH} levels deep (the body is level 1) and refuses one level more`, () => {
    expect(MAX_JSON_DEPTH).toBe(32);
    expect(() => checkJson(nested(MAX_JSON_DEPTH))).not.toThrow();
    const error = invalidOn(`${'a.'.repeat(MAX_JSON_DEPTH - 1)}a`, () => checkJson(nested(MAX_JSON_DEPTH + 1)));
    expect(error.message).toContain(`more than ${MAX_JSON_DEPTH} levels`);
  });

  it('counts arrays as levels, and names list items by index', () => {
    expect(() => checkJson({ a: [[[1]]] }, '', 4)).not.toThrow();
    invalidOn('a[0][0][0]', () => checkJson({ a: [[[[1]]]] }, '', 4));
    invalidOn('requests[1].roleBinding.x', () => checkJson({ requests: [{ roleBinding: {} }, { roleBinding: { x: {} } }] }, '', 4));
  });

  it('refuses thousands of levels without exhausting the stack, naming the path down to the limit', () => {
    for (const levels of [1_000, 4_400, 100_000]) {
      const error = invalidOn(`${'a.'.repeat(MAX_JSON_DEPTH - 1)}a`, () => checkJson(nestedText(levels)));
      expect(error.message).toContain('levels deep');
    }
  });

  it('stops at the limit: however deep the body, it reads no level past it', () => {
    // Work counted, not timed: every level is a proxy that records being read.
    const levelsRead = new Set<number>();
    let value: unknown = 1;
    for (let level = 100_000; level >= 1; level--) {
      const inner = value;
      value = new Proxy({ a: inner }, { ownKeys: (target) => (levelsRead.add(level), Reflect.ownKeys(target)) });
    }
    invalidOn(`${'a.'.repeat(MAX_JSON_DEPTH - 1)}a`, () => checkJson(value));
    expect(Math.max(...levelsRead)).toBe(MAX_JSON_DEPTH);
    expect(levelsRead.size).toBe(MAX_JSON_DEPTH);
  });

  it('names the path under a prefix, inside a free-form map', () => {
    const body = { github: { appInstallations: { 123: nested(40) } } };
    const error = invalidOn(`github.appInstallations.123.${'a.'.repeat(MAX_JSON_DEPTH - 4)}a`, () => checkJson(body));
    expect(error.details[0]!.fieldViolations).toHaveLength(1);
  });

  it('leaves wide but shallow bodies alone', () => {
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, [i, { v: String(i) }]]));
    expect(() => checkJson(wide)).not.toThrow();
  });
});

describe('checkJson: text', () => {
  it('names the field of a bad string value at any depth, lists included', () => {
    invalidOn('name', () => checkJson({ name: 'a\u0000' }));
    invalidOn('claimMatch.claims.aud', () => checkJson({ claimMatch: { claims: { aud: LONE_HIGH } } }));
    invalidOn('capabilities[2]', () => checkJson({ capabilities: ['A', 'B', '\u0000'] }));
    invalidOn('description', () => checkJson({ description: 'x'.repeat(MAX_STRING_BYTES + 1) }));
  });

  it('refuses bad object keys, naming the path with the key escaped', () => {
    const error = invalidOn('claimMatch.claims.a\\u0000b', () => checkJson({ claimMatch: { claims: { 'a\u0000b': 'x' } } }));
    expect(error.message).toContain('key must not contain NUL');
    invalidOn('x\\ud800', () => checkJson({ 'x\uD800': 1 }));
  });

  it('takes numbers, booleans, null and well-formed text', () => {
    expect(() => checkJson({ a: 1, b: true, c: null, d: PAIR, e: [1.5, false, null, ''] })).not.toThrow();
  });

  it('treats an own "__proto__" key like any other key', () => {
    const body = JSON.parse('{"__proto__": {"x": "a\\u0000"}}') as unknown;
    invalidOn('__proto__.x', () => checkJson(body));
  });
});

describe('checkQuery', () => {
  it('names the parameter, in any of its values', () => {
    invalidOn('name', () => checkQuery({ name: 'a\u0000' }));
    invalidOn('uidp.ids', () => checkQuery({ 'uidp.ids': ['ok', '\uDC00'] }));
    expect(() => checkQuery({ name: 'fine', page_size: '10', skip: undefined, ids: ['a', 'b'] })).not.toThrow();
  });

  it('refuses a bad parameter name', () => {
    invalidOn('na\\u0000me', () => checkQuery({ 'na\u0000me': 'x' }));
  });
});

describe('checkInput', () => {
  it('checks path variables, the mask, the query and the body, naming each', () => {
    invalidOn('uid', () => checkInput({ uid: 'a\u0000' }));
    invalidOn('parent', () => checkInput({ parent: LONE_LOW }));
    invalidOn('update_mask', () => checkInput({ mask: 'name\u0000' }));
    invalidOn('issuer', () => checkInput({ query: { issuer: 'https://i\u0000' } }));
    invalidOn('name', () => checkInput({ uid: 'u', body: { name: '\u0000' } }));
    expect(() => checkInput({ uid: 'u', parent: '', mask: undefined, query: {}, body: { name: 'n' } })).not.toThrow();
    expect(() => checkInput({})).not.toThrow();
  });
});

describe('printable', () => {
  it('writes NUL and lone surrogates as \\u escapes and leaves the rest', () => {
    expect(printable('a\u0000b')).toBe('a\\u0000b');
    expect(printable('\uD800x\uDC00')).toBe('\\ud800x\\udc00');
    expect(printable(PAIR)).toBe(PAIR);
  });

  it('cuts a very long key', () => {
    expect(printable('k'.repeat(1000))).toBe(`${'k'.repeat(256)}…`);
  });
});
