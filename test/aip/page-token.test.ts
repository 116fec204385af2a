import { describe, it, expect } from 'vitest';
import { PAGE_TOKEN_TTL_MS, PageTokenCodec, pageTokenKey, queryFingerprint, type PageCursor } from '../../src/aip/page-token.ts';
import type { ApiError } from '../../src/aip/errors.ts';
import { invalidOn } from '../support/invalid-argument.ts';

const KEY_A = pageTokenKey('a shared secret for replicas');
const KEY_B = pageTokenKey('another secret, another service');
const FP = queryFingerprint({ resource: 'groups', filters: { name: 'eng' }, order: 'name asc,uid asc' });
const OTHER_FP = queryFingerprint({ resource: 'groups', filters: { name: 'ops' }, order: 'name asc,uid asc' });
const CURSOR: PageCursor = { after: ['eng', null, 42, true, 'abc/def'], skipped: 7 };

/** What the refusal tells the client about the page token. */
const violation = (error: ApiError) => (error.details.find((d) => d['@type'].endsWith('BadRequest'))!.fieldViolations as { description: string }[])[0]!.description;

/** A clock the test controls. */
function clock(start = Date.UTC(2025, 0, 1)) {
  const state = { now: start };
  return { state, now: () => state.now };
}

describe('PageTokenCodec round trip', () => {
  it('opens what it sealed, with the same cursor', () => {
    const codec = new PageTokenCodec(KEY_A);
    const token = codec.seal(FP, CURSOR);
    expect(codec.open(token, FP)).toEqual(CURSOR);
  });

  it('mints URL-safe base64 text with no padding', () => {
    const token = new PageTokenCodec(KEY_A).seal(FP, CURSOR);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('keeps an empty cursor and a zero skip', () => {
    const codec = new PageTokenCodec(KEY_A);
    expect(codec.open(codec.seal(FP, { after: [], skipped: 0 }), FP)).toEqual({ after: [], skipped: 0 });
  });

  it('keeps unicode strings and large numbers in the cursor exactly', () => {
    const codec = new PageTokenCodec(KEY_A);
    const cursor = { after: ['żółw 🐢', 'a"b\\c', 2 ** 53 - 1, -0.5], skipped: 123456 };
    expect(codec.open(codec.seal(FP, cursor), FP)).toEqual(cursor);
  });

  it('is opaque: the cursor values do not appear in the token text or its decoded bytes', () => {
    const token = new PageTokenCodec(KEY_A).seal(FP, { after: ['very-recognisable-name'], skipped: 0 });
    expect(token).not.toContain('very-recognisable-name');
    expect(Buffer.from(token, 'base64url').toString('latin1')).not.toContain('very-recognisable-name');
  });

  it('seals the same cursor twice into different tokens (fresh IV), both valid', () => {
    const codec = new PageTokenCodec(KEY_A);
    const t1 = codec.seal(FP, CURSOR);
    const t2 = codec.seal(FP, CURSOR);
    expect(t1).not.toBe(t2);
    expect(codec.open(t1, FP)).toEqual(CURSOR);
    expect(codec.open(t2, FP)).toEqual(CURSOR);
  });

  it('never uses an IV twice, across the refills of its pool of random bytes', () => {
    const codec = new PageTokenCodec(KEY_A);
    const tokens = Array.from({ length: 1200 }, () => codec.seal(FP, CURSOR));
    // Bytes 9-20 of a token are its IV (after the version byte and the key id).
    const ivs = new Set(tokens.map((t) => Buffer.from(t, 'base64url').subarray(9, 21).toString('hex')));
    expect(ivs.size).toBe(tokens.length);
    for (const token of [tokens[0]!, tokens[340]!, tokens[341]!, tokens[1199]!]) expect(codec.open(token, FP)).toEqual(CURSOR);
  });

  it('is self-contained: another codec holding the same key opens it (another replica)', () => {
    const token = new PageTokenCodec(pageTokenKey('replica secret 123')).seal(FP, CURSOR);
    expect(new PageTokenCodec(pageTokenKey('replica secret 123')).open(token, FP)).toEqual(CURSOR);
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => new PageTokenCodec(Buffer.alloc(16))).toThrow();
    expect(() => new PageTokenCodec(Buffer.alloc(33))).toThrow();
    expect(() => new PageTokenCodec(Buffer.alloc(32))).not.toThrow();
  });
});

describe('PageTokenCodec integrity', () => {
  it('refuses a token with any single byte altered', () => {
    const codec = new PageTokenCodec(KEY_A);
    const token = codec.seal(FP, CURSOR);
    const raw = Buffer.from(token, 'base64url');
    expect(raw.length).toBeGreaterThan(1 + 12 + 16);
    for (let i = 0; i < raw.length; i++) {
      for (const mask of [0x01, 0x80]) {
        const tampered = Buffer.from(raw);
        tampered[i] = tampered[i]! ^ mask;
        invalidOn('page_token', () => codec.open(tampered.toString('base64url'), FP));
      }
    }
  });

  it('refuses a truncated token and one with bytes appended', () => {
    const codec = new PageTokenCodec(KEY_A);
    const raw = Buffer.from(codec.seal(FP, CURSOR), 'base64url');
    invalidOn('page_token', () => codec.open(raw.subarray(0, raw.length - 1).toString('base64url'), FP));
    invalidOn('page_token', () => codec.open(raw.subarray(1).toString('base64url'), FP));
    invalidOn('page_token', () => codec.open(Buffer.concat([raw, Buffer.of(0)]).toString('base64url'), FP));
  });

  it('refuses a token sealed under another key, saying so and how to keep tokens across restarts', () => {
    const token = new PageTokenCodec(KEY_B).seal(FP, CURSOR);
    const why = violation(invalidOn('page_token', () => new PageTokenCodec(KEY_A).open(token, FP)));
    expect(why).toMatch(/sealed by another key/);
    expect(why).toMatch(/restart/);
    expect(why).toContain('--page-token-key');
  });

  it('gives a tampered or forged token the plain refusal, never the other-key one', () => {
    const codec = new PageTokenCodec(KEY_A);
    const raw = Buffer.from(codec.seal(FP, CURSOR), 'base64url');
    const refusals = new Set<string>();
    // Every byte after the header (version and key id): the IV, the sealed payload and its tag.
    for (let i = 9; i < raw.length; i++) {
      const tampered = Buffer.from(raw);
      tampered[i] = tampered[i]! ^ 0x01;
      refusals.add(violation(invalidOn('page_token', () => codec.open(tampered.toString('base64url'), FP))));
    }
    for (const forged of ['not-a-token', Buffer.alloc(80, 7).toString('base64url'), Buffer.concat([Buffer.of(1), Buffer.alloc(60)]).toString('base64url')]) {
      refusals.add(violation(invalidOn('page_token', () => codec.open(forged, FP))));
    }
    expect([...refusals]).toEqual(['not a page token issued by this service']);
  });

  it('refuses a token bound to another query (fingerprint A opened as B)', () => {
    const codec = new PageTokenCodec(KEY_A);
    const token = codec.seal(FP, CURSOR);
    invalidOn('page_token', () => codec.open(token, OTHER_FP));
    // and the token still works for its own query
    expect(codec.open(token, FP)).toEqual(CURSOR);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'not a token!'],
    ['standard base64 with padding', 'AAAA+/AA=='],
    ['too short to hold IV and tag', 'AQID'],
    ['plain JSON text', '{"f":"x","a":[],"s":0,"t":0}'],
    ['whitespace around a token', ' AAAA '],
    ['oversized (5000 characters)', 'A'.repeat(5000)],
    ['just over the 4096-character limit', 'A'.repeat(4097)],
    ['random bytes of a plausible length', Buffer.alloc(80, 7).toString('base64url')],
    ['a right version byte then zeros', Buffer.concat([Buffer.of(1), Buffer.alloc(60)]).toString('base64url')],
  ])('refuses garbage input: %s', (_label, input) => {
    invalidOn('page_token', () => new PageTokenCodec(KEY_A).open(input, FP));
  });
});

describe('PageTokenCodec lifetime', () => {
  it('uses a 3-day lifetime by default', () => {
    expect(PAGE_TOKEN_TTL_MS).toBe(3 * 24 * 60 * 60 * 1000);
  });

  it('opens a token just inside 3 days', () => {
    const c = clock();
    const codec = new PageTokenCodec(KEY_A, { now: c.now });
    const token = codec.seal(FP, CURSOR);
    c.state.now += PAGE_TOKEN_TTL_MS - 1;
    expect(codec.open(token, FP)).toEqual(CURSOR);
    c.state.now += 1; // exactly 3 days
    expect(codec.open(token, FP)).toEqual(CURSOR);
  });

  it('answers undefined (restart from the first page, no error) for a token older than 3 days', () => {
    const c = clock();
    const codec = new PageTokenCodec(KEY_A, { now: c.now });
    const token = codec.seal(FP, CURSOR);
    c.state.now += PAGE_TOKEN_TTL_MS + 1;
    expect(codec.open(token, FP)).toBeUndefined();
    c.state.now += 365 * 24 * 60 * 60 * 1000;
    expect(codec.open(token, FP)).toBeUndefined();
  });

  it('expiry is judged on the sealing time, carried inside the token (another replica agrees)', () => {
    const c = clock();
    const token = new PageTokenCodec(KEY_A, { now: c.now }).seal(FP, CURSOR);
    c.state.now += PAGE_TOKEN_TTL_MS + 60_000;
    const replica = new PageTokenCodec(pageTokenKey('a shared secret for replicas'), { now: c.now });
    expect(replica.open(token, FP)).toBeUndefined();
  });

  it('honours a custom ttlMs', () => {
    const c = clock();
    const codec = new PageTokenCodec(KEY_A, { now: c.now, ttlMs: 1000 });
    const token = codec.seal(FP, CURSOR);
    c.state.now += 1000;
    expect(codec.open(token, FP)).toEqual(CURSOR);
    c.state.now += 1;
    expect(codec.open(token, FP)).toBeUndefined();
  });

  it('still refuses an expired token that was tampered with (expiry is no bypass)', () => {
    const c = clock();
    const codec = new PageTokenCodec(KEY_A, { now: c.now });
    const raw = Buffer.from(codec.seal(FP, CURSOR), 'base64url');
    raw[20] = raw[20]! ^ 0xff;
    c.state.now += PAGE_TOKEN_TTL_MS * 2;
    invalidOn('page_token', () => codec.open(raw.toString('base64url'), FP));
  });
});

describe('queryFingerprint', () => {
  it('is insensitive to the order of object keys, at every depth', () => {
    const a = queryFingerprint({ resource: 'groups', filters: { name: 'x', 'uidp.ids': ['a', 'b'], nested: { p: 1, q: 2 } }, order: 'uid asc' });
    const b = queryFingerprint({ order: 'uid asc', filters: { nested: { q: 2, p: 1 }, 'uidp.ids': ['a', 'b'], name: 'x' }, resource: 'groups' });
    expect(a).toBe(b);
  });

  it('is sensitive to values, types, resource and order', () => {
    const base = { resource: 'groups', filters: { name: 'x' }, order: 'uid asc' };
    const fp = queryFingerprint(base);
    expect(queryFingerprint({ ...base, filters: { name: 'y' } })).not.toBe(fp);
    expect(queryFingerprint({ ...base, filters: {} })).not.toBe(fp);
    expect(queryFingerprint({ ...base, resource: 'roles' })).not.toBe(fp);
    expect(queryFingerprint({ ...base, order: 'uid desc' })).not.toBe(fp);
    expect(queryFingerprint({ a: true })).not.toBe(queryFingerprint({ a: 'true' }));
    expect(queryFingerprint({ a: 1 })).not.toBe(queryFingerprint({ a: '1' }));
  });

  it('is sensitive to array order (repeated values are positional)', () => {
    expect(queryFingerprint({ ids: ['a', 'b'] })).not.toBe(queryFingerprint({ ids: ['b', 'a'] }));
  });

  it('does not confuse keys and values across nesting', () => {
    expect(queryFingerprint({ a: { b: 'c' } })).not.toBe(queryFingerprint({ 'a.b': 'c' }));
    expect(queryFingerprint({ a: 'b,c' })).not.toBe(queryFingerprint({ a: ['b', 'c'] }));
  });

  it('ignores keys whose value is undefined', () => {
    expect(queryFingerprint({ a: 1, b: undefined })).toBe(queryFingerprint({ a: 1 }));
  });

  it('is deterministic and compact', () => {
    const q = { resource: 'roles', filters: {}, order: 'name asc,uid asc' };
    expect(queryFingerprint(q)).toBe(queryFingerprint(structuredClone(q)));
    expect(queryFingerprint(q)).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});

describe('pageTokenKey', () => {
  it('derives the same 32-byte key from the same secret', () => {
    const k1 = pageTokenKey('correct horse battery staple');
    const k2 = pageTokenKey('correct horse battery staple');
    expect(k1).toHaveLength(32);
    expect(k1.equals(k2)).toBe(true);
  });

  it('derives different keys from different secrets', () => {
    expect(pageTokenKey('secret-one-xxxxxxx').equals(pageTokenKey('secret-two-xxxxxxx'))).toBe(false);
  });

  it('does not use the secret itself as the key', () => {
    const secret = 'x'.repeat(32);
    expect(pageTokenKey(secret).equals(Buffer.from(secret))).toBe(false);
  });

  it('gives a fresh random key when unset', () => {
    const k1 = pageTokenKey(undefined);
    const k2 = pageTokenKey(undefined);
    expect(k1).toHaveLength(32);
    expect(k2).toHaveLength(32);
    expect(k1.equals(k2)).toBe(false);
  });

  it('random keys do not open each other\'s tokens: one from before a restart is called another key\'s', () => {
    const token = new PageTokenCodec(pageTokenKey(undefined)).seal(FP, CURSOR);
    expect(violation(invalidOn('page_token', () => new PageTokenCodec(pageTokenKey(undefined)).open(token, FP)))).toMatch(/sealed by another key/);
  });
});
