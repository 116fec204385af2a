/**
 * Page tokens: opaque, tamper-proof and bound to the query that minted them.
 *
 * A token is AES-256-GCM over a small JSON payload, so it is both secret (clients
 * cannot read or build a cursor) and authenticated (any change fails to open).
 * It carries the query's fingerprint, the keyset cursor (the sort values of the
 * last row served), how many rows `skip` has consumed so far, and when it was
 * issued. It is self-contained, so any replica holding the same key can serve
 * the next page.
 *
 * Its header names the sealing key by a short id (a keyed digest, which says
 * nothing of the key), so a token from another key — most often one minted
 * before the gateway restarted with a random key — is refused with that reason
 * and the setting that avoids it. Anything else that fails to open (altered,
 * truncated, made up) gets one plain refusal. A made-up token carrying a
 * made-up id reads as another key's, which tells its maker nothing.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, createSecretKey, randomBytes, randomFillSync, type KeyObject } from 'node:crypto';
import { invalidField } from './errors.ts';

export const PAGE_TOKEN_TTL_MS = 3 * 24 * 60 * 60 * 1000;

/** 2: the header carries the key id. */
const VERSION = 2;
const KEY_ID_BYTES = 8;
const HEADER_BYTES = 1 + KEY_ID_BYTES;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_TOKEN_CHARS = 4096;
const AAD = Buffer.from('v2gw/page-token/v1');
/** IVs a draw of random bytes makes: 4,092 bytes. */
const IVS_PER_DRAW = 341;

/**
 * IVs cut from random bytes drawn 4 KiB at a time: one call into the CSPRNG per 341 tokens rather than
 * one per token, which was ~1% of a List page. Each IV is still 96 bits of its own, used once.
 */
class IvPool {
  readonly #bytes = Buffer.alloc(IV_BYTES * IVS_PER_DRAW);
  #at = this.#bytes.length;

  /** The next IV: a view valid until the next call, so it is used at once. */
  next(): Buffer {
    if (this.#at + IV_BYTES > this.#bytes.length) {
      randomFillSync(this.#bytes);
      this.#at = 0;
    }
    return this.#bytes.subarray(this.#at, (this.#at += IV_BYTES));
  }
}

export interface PageCursor {
  /** Sort-key values of the last row served, in order-by order, uid last. */
  after: unknown[];
  /** Rows skipped by `skip` across all pages so far. */
  skipped: number;
}

interface Payload {
  f: string;
  a: unknown[];
  s: number;
  t: number;
}

/** A stable digest of everything that defines a query (resource, filters, order). */
export function queryFingerprint(query: unknown): string {
  return createHash('sha256').update(canonicalJson(query)).digest('base64url').slice(0, 22);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Turns configured key material (any string) into a 256-bit key; unset means a random key for this process. */
export function pageTokenKey(secret: string | undefined): Buffer {
  if (!secret) return randomBytes(32);
  return createHash('sha256').update('v2gw page-token key\0').update(secret).digest();
}

export class PageTokenCodec {
  /** A KeyObject made once: building one from raw bytes on every seal showed in List profiles. */
  readonly #key: KeyObject;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #ivs = new IvPool();
  /** Version and key id, the same on every token this codec seals. */
  readonly #header: Buffer;
  /** The label and the header, authenticated with each token's payload. */
  readonly #aad: Buffer;

  constructor(key: Buffer, options: { ttlMs?: number; now?: () => number } = {}) {
    if (key.length !== 32) throw new Error('page token key must be 32 bytes');
    this.#key = createSecretKey(key);
    const keyId = createHmac('sha256', key).update('v2gw page-token key id').digest().subarray(0, KEY_ID_BYTES);
    this.#header = Buffer.concat([Buffer.of(VERSION), keyId]);
    this.#aad = Buffer.concat([AAD, this.#header]);
    this.#ttlMs = options.ttlMs ?? PAGE_TOKEN_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  seal(fingerprint: string, cursor: PageCursor): string {
    const payload: Payload = { f: fingerprint, a: cursor.after, s: cursor.skipped, t: this.#now() };
    const iv = this.#ivs.next();
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(this.#aad);
    // In order: the tag is known once final() has run.
    return Buffer.concat([this.#header, iv, cipher.update(JSON.stringify(payload), 'utf8'), cipher.final(), cipher.getAuthTag()]).toString('base64url');
  }

  /**
   * Opens a token for the query with `fingerprint`. Returns the cursor, or
   * `undefined` when the token has outlived its lifetime: the spec says the
   * query then restarts from the first page, without an error.
   */
  open(token: string, fingerprint: string): PageCursor | undefined {
    const payload = this.#decrypt(token);
    if (this.#now() - payload.t > this.#ttlMs) return undefined;
    if (payload.f !== fingerprint) {
      throw invalidField('page_token', 'the token belongs to a different query; filters and order_by must not change between pages');
    }
    return { after: payload.a, skipped: payload.s };
  }

  #decrypt(token: string): Payload {
    const unreadable = () => invalidField('page_token', 'not a page token issued by this service');
    if (token.length > MAX_TOKEN_CHARS || !/^[A-Za-z0-9_-]+$/.test(token)) throw unreadable();
    const raw = Buffer.from(token, 'base64url');
    if (raw.length < HEADER_BYTES + IV_BYTES + TAG_BYTES || raw[0] !== VERSION) throw unreadable();
    if (!raw.subarray(0, HEADER_BYTES).equals(this.#header)) {
      throw invalidField('page_token', 'the token was sealed by another key, e.g. before the gateway restarted with a random key: '
        + 'list again from the first page. To keep page tokens across restarts, set --page-token-key (the same on every replica).');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(HEADER_BYTES, HEADER_BYTES + IV_BYTES));
      decipher.setAAD(this.#aad);
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const clear = Buffer.concat([decipher.update(raw.subarray(HEADER_BYTES + IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
      const payload = JSON.parse(clear.toString('utf8')) as Payload;
      if (typeof payload.f !== 'string' || !Array.isArray(payload.a) || !Number.isInteger(payload.s) || !Number.isFinite(payload.t)) {
        throw unreadable();
      }
      return payload;
    } catch {
      throw unreadable();
    }
  }
}
