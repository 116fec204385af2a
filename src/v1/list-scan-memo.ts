/**
 * v1 lists read once per distinct answer. Every List still asks v1 (nothing
 * here is stale: each page is served from v1's answer to that very request),
 * but the latest answer to each request is kept with its reading (list-body.ts),
 * and v1's next answer to it is compared with those bytes. The same bytes: the
 * reading is reused, not scanned again. Scanning a 1,000-row list is about a
 * third of a page's CPU; comparing its 300 KB with the kept copy is a memcmp.
 * Bytes that differ only in some rows (a list polled while it changes): only
 * those rows are scanned, the rest of the reading is taken over
 * (rereadListAnswer). Callers that poll a list pay the comparison, and the rows
 * that changed. The comparison is made as the answer arrives (`likely`, and
 * answer-bytes.ts): the pieces that match the kept bytes are not held at all.
 *
 * The reading is a pure function of the bytes and of the members read, so a
 * caller is only ever given the reading of bytes v1 sent it. Readings are still
 * kept per caller (`scope`, a digest of the token), as the gateway's other
 * caches are: shared between callers, a quick answer would tell one caller that
 * another had just been sent the same list. Readings are shared by the requests
 * of a caller and must not be changed by their users (rows are read, never
 * written; whole rows are parsed afresh each time). Bounded by bytes (the body
 * kept, an estimate of its rows and of the renderings a List may keep with it), least recently used
 * first.
 */
import { LRUCache } from 'lru-cache';
import type { AnswerBody } from './answer-body.ts';
import { readListAnswer, rereadListAnswer, ScannedRows } from './list-body.ts';

export interface ListScanMemoOptions {
  /** 0 disables it: every answer is scanned. */
  maxBytes: number;
  /** Told of each lookup: whether an answer of these bytes had been read. */
  onLookup?: (hit: boolean) => void;
}

/**
 * The estimate of one row beside its bytes: its reading (the members read, its span), and
 * what a List keeps with the reading (translate/reading-memo.ts: a query's matching rows and their keys).
 */
const ROW_BYTES = 120 + 200;

/**
 * Rows of a reading a List may keep a value of with it: their renderings (translate/reading-memo.ts,
 * rowValues). Each is counted at twice its share of the body: a rendered object outweighs its JSON.
 */
export const ROW_VALUES_PER_READING = 256;

/** A reading's share of the budget: its body, its rows' readings, and the renderings it may keep. */
function readingBytes(r: Reading): number {
  const rendered = r.rows === 0 ? 0 : (Math.min(r.rows, ROW_VALUES_PER_READING) * 2 * r.bytes.byteLength) / r.rows;
  return Math.max(1, Math.ceil(r.bytes.byteLength + r.rows * ROW_BYTES + rendered));
}

interface Reading {
  bytes: Buffer;
  reading: unknown;
  rows: number;
}

export class ListScanMemo {
  readonly #readings: LRUCache<string, Reading> | undefined;
  readonly #onLookup: ListScanMemoOptions['onLookup'];

  constructor(options: ListScanMemoOptions) {
    this.#onLookup = options.onLookup;
    if (options.maxBytes <= 0) return;
    this.#readings = new LRUCache({ maxSize: options.maxBytes, sizeCalculation: readingBytes });
  }

  /** Whether a reading outlives its request: with a budget of 0 none does, and no List meets one again. */
  get keeps(): boolean {
    return this.#readings !== undefined;
  }

  /**
   * readListAnswer's reading of the answer: the one made before when the same bytes were read for the
   * same members, the same `request` (v1's path and query) and the same `scope` (whose answer it is:
   * translate/caller-key.ts); else made from that earlier reading where it can be, and kept in its place.
   */
  read(answer: AnswerBody, members: readonly string[], presence: readonly string[], scope: string, request: string): unknown {
    if (!this.#readings) return readListAnswer(answer.bytes(), members, presence);
    const key = readingKey(members, presence, scope, request);
    const kept = this.#readings.get(key);
    // An answer gathered against the kept bytes (`likely`) and found the same is those very bytes, known
    // equal without comparing again; any other is compared piece by piece and never joined when equal.
    const hit = kept !== undefined && answer.equals(kept.bytes);
    this.#onLookup?.(hit);
    if (hit) return kept.reading;
    const bytes = answer.bytes();
    const reading = (kept && rereadListAnswer(kept.bytes, kept.reading, bytes, members, presence)) ?? readListAnswer(bytes, members, presence);
    // A reading made from the kept one holds it until its List has worked out its rows (translate/v1-list/with-reading-memo.ts);
    // the kept one lets go of its own earlier one now, so no chain grows past two.
    if (kept) rowsOf(kept.reading)?.forgetEarlier();
    const rows = rowsOf(reading);
    // Only scanned lists are kept: anything else was parsed whole, and is small or not a list.
    if (rows) this.#readings.set(key, { bytes, reading, rows: rows.count });
    return reading;
  }

  /**
   * The bytes of the latest answer kept for the same reading (`read`'s arguments but the answer): what
   * v1 is likely to answer again, for the exchange to compare with as the answer arrives.
   */
  likely(members: readonly string[], presence: readonly string[], scope: string, request: string): Buffer | undefined {
    return this.#readings?.peek(readingKey(members, presence, scope, request))?.bytes;
  }
}

function readingKey(members: readonly string[], presence: readonly string[], scope: string, request: string): string {
  return `${scope}\u0000${request}\u0000${members.join('\u0001')}\u0000${presence.join('\u0001')}`;
}

/** The rows of a reading, when it was scanned. */
function rowsOf(reading: unknown): ScannedRows | undefined {
  const items = (reading as { items?: unknown } | null)?.items;
  return items instanceof ScannedRows ? items : undefined;
}
