/**
 * The translate-mode List's speed-ups (src/translate/v1-list/with-*.ts) against the plain reader: random v1
 * lists, random queries (filters, order_by, page sizes, skip), walks over their pages with the list
 * changing between pages, rows lacking times; every combination of the wrappers on and off must answer
 * every page exactly as the plain reader does. Kept times change what a page says by design (a time v1
 * lacks is the store's), so with them on the plain reader is given v1 rows that already hold those times.
 */
import { describe, expect, it } from 'vitest';
import groups from '../../mappings/groups.ts';
import { PageTokenCodec } from '../../src/aip/page-token.ts';
import type { Page, RequestContext } from '../../src/port/backend.ts';
import { applyKeptTimes, KeptTimes } from '../../src/translate/kept-times.ts';
import { readListQuery, type ListQuery } from '../../src/port/list-query.ts';
import { v1UidKey } from '../../src/port/registry.ts';
import { renderV2 } from '../../src/translate/v1-row.ts';
import type { Json } from '../../src/vocabulary/json.ts';
import { v1List, type V1ListOptions } from '../../src/translate/v1-list/compose.ts';
import type { KeptTimesByUid } from '../../src/port/backend.ts';
import type { V1ListSource } from '../../src/translate/v1-list/source.ts';
import { WalkCache } from '../../src/translate/walk-cache.ts';
import { KeptRenderings } from '../../src/translate/kept-renderings.ts';
import type { RawQuery } from '../../src/aip/list-request.ts';
import type { ResourceTimes, TimestampStore } from '../../src/store/types.ts';
import { AnswerBody } from '../../src/v1/answer-body.ts';
import { ListScanMemo } from '../../src/v1/list-scan-memo.ts';
import { prng } from '../support/prng.ts';

const mapping = groups;
const uidKey = v1UidKey(mapping);
const tokens = new PageTokenCodec(Buffer.alloc(32, 7));
const TIME_MEMBERS = ['createdAt', 'updatedAt'] as const;

/** The store's times for a uid: fixed by the uid, so any reader that records a first sighting records the same. */
function storedTimes(uid: string): ResourceTimes {
  let h = 0;
  for (const c of uid) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  const created = Date.UTC(2024, 0, 1) + (h % 100_000) * 1000;
  return { createTime: new Date(created).toISOString(), updateTime: new Date(created + (h % 7) * 60_000).toISOString() };
}

/** The store of kept times: a uid first seen gets storedTimes; a write through the gateway moves its updateTime. */
class FakeTimestamps implements TimestampStore {
  readonly #times = new Map<string, ResourceTimes>();

  current(uid: string): ResourceTimes {
    return this.#times.get(uid) ?? storedTimes(uid);
  }

  async observe(_kind: string, uids: readonly string[]): Promise<Map<string, ResourceTimes>> {
    for (const uid of uids) if (!this.#times.has(uid)) this.#times.set(uid, storedTimes(uid));
    return new Map(uids.map((uid) => [uid, this.#times.get(uid)!]));
  }

  async created(): Promise<void> {}

  async touched(_kind: string, uid: string, now: string): Promise<void> {
    this.#times.set(uid, { createTime: this.current(uid).createTime, updateTime: now });
  }

  async forget(): Promise<void> {}

  async sweep(): Promise<number> {
    return 0;
  }
}

/** v1's list as it stands, changed between pages; a source over it, as v1 answers (v1's own filters ignored). */
class FakeV1 {
  rows: Json[] = [];
  /** For the plain reader's oracle of kept times: each row as it would be with its blank times the store's. */
  filledFrom: FakeTimestamps | undefined;

  #answer(): Json[] {
    const store = this.filledFrom;
    if (!store) return this.rows;
    return this.rows.map((row) => {
      const times = store.current(String(row[uidKey]));
      const filled = { ...row };
      if (isBlank(row.createdAt)) filled.createdAt = times.createTime;
      if (isBlank(row.updatedAt)) filled.updatedAt = times.updateTime;
      return filled;
    });
  }

  source(): V1ListSource {
    return {
      all: async () => structuredClone(this.#answer()),
      allRead: async (_mapping, _query, _ctx, reading) => {
        const rows = this.#answer();
        // An empty list as grpc-gateway sends it: no `items` at all.
        const body = Buffer.from(JSON.stringify(rows.length === 0 ? {} : { items: rows }));
        return reading.read(AnswerBody.of(body), 200);
      },
      byIds: async (_mapping, uids) => structuredClone(this.#answer().filter((row) => uids.includes(String(row[uidKey])))),
      page: async () => {
        throw new Error('groups are not paged by v1');
      },
    };
  }
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

interface Switches {
  scans: 'off' | 'unkept' | 'kept';
  readingMemo: boolean;
  walks: boolean;
  keptTimes: boolean;
}

const ALL_SWITCHES: Switches[] = [];
for (const scans of ['off', 'unkept', 'kept'] as const) {
  for (const readingMemo of [false, true]) {
    for (const walks of [false, true]) {
      for (const keptTimes of [false, true]) ALL_SWITCHES.push({ scans, readingMemo, walks, keptTimes });
    }
  }
}

/** A page's rows rendered as the runner renders them over the v1 adapter (its documents of rows the reading memo keeps, kept). */
const render = (kept: KeptTimes | undefined, renderings: KeptRenderings) => async (m: typeof mapping, rows: readonly Json[], times?: KeptTimesByUid): Promise<Json[]> => {
  // As the backend's renderer does: without times given, it looks up those it keeps.
  if (!times && kept) {
    const lacking = kept.lacking(m, rows, uidKey);
    if (lacking.length > 0) times = await kept.forUids(m, lacking);
  }
  return rows.map((row) => {
    const rowTimes = times?.get(String(row[uidKey]));
    return renderings.document(row, rowTimes, () => applyKeptTimes(m, renderV2(m.fields, row), rowTimes));
  });
};

/** A List as the runner answers it: the reader's page, its rows rendered. */
function renderedList(options: V1ListOptions, kept: KeptTimes | undefined, renderings: KeptRenderings) {
  const list = v1List(options);
  const rendered = render(kept, renderings);
  return async (m: typeof mapping, query: ListQuery, ctx: RequestContext): Promise<RenderedPage> => {
    const { rows, times, ...page } = await list(m, query, ctx);
    return { ...page, items: await rendered(m, rows, times) };
  };
}

type RenderedPage = Omit<Page, 'rows' | 'times'> & { items: Json[] };

/**
 * A List reader with these wrappers on, over `v1`; `changed` is a write through the gateway (walks
 * dropped), `touched` one that moved a row's updateTime in the store (`now`) and not v1's bytes.
 */
function readerWith(v1: FakeV1, switches: Switches, store: FakeTimestamps) {
  let clock = 0;
  const kept = switches.keptTimes ? new KeptTimes(store, () => clock) : undefined;
  const walks = switches.walks ? new WalkCache({ ttlMs: 60_000, maxBytes: 16 * 1024 * 1024 }) : undefined;
  const renderings = new KeptRenderings();
  const options: V1ListOptions = {
    source: v1.source(),
    maxFanOut: 10,
    scans: switches.scans === 'off' ? undefined : new ListScanMemo({ maxBytes: switches.scans === 'kept' ? 8 * 1024 * 1024 : 0 }),
    readingMemo: switches.readingMemo ? { rendersAlone: () => true, renderings } : undefined,
    walks,
    keptTimes: kept,
  };
  return {
    list: renderedList(options, kept, renderings),
    changed: () => walks?.invalidate(mapping.name),
    touched: async (uid: string, now: number) => {
      clock = now;
      if (kept) await kept.touched(mapping, uid);
      else await store.touched(mapping.name, uid, new Date(now).toISOString());
    },
  };
}

function context(): RequestContext {
  return { authorization: 'Bearer caller', requestId: 'r', deadline: Number.MAX_SAFE_INTEGER, signal: new AbortController().signal, counter: { v1Calls: 0 } } as unknown as RequestContext;
}

const ROOT = 'a'.repeat(40);
const OTHER_ROOT = 'b'.repeat(40);
const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'beta'];
const TIMES = ['2025-03-01T10:00:00.000Z', '2025-01-15T08:30:00.000Z', '2025-06-30T23:59:59.999Z', '2025-01-15T08:30:00.000Z'];

function randomRow(next: () => number, serial: number): Json {
  const pick = <T>(of: readonly T[]): T => of[Math.floor(next() * of.length)]!;
  const root = next() < 0.8 ? ROOT : OTHER_ROOT;
  const row: Json = { id: `${root}/${serial.toString(16).padStart(16, '0')}`, name: pick(NAMES), description: pick(['', 'd']) };
  // A row may lack either time: absent, null or empty, as v1 leaves them out for some resources.
  for (const member of TIME_MEMBERS) {
    const roll = next();
    if (roll < 0.5) row[member] = pick(TIMES);
    else if (roll < 0.65) row[member] = null;
    else if (roll < 0.8) row[member] = '';
  }
  return row;
}

function randomQuery(next: () => number, rows: readonly Json[]): RawQuery {
  const pick = <T>(of: readonly T[]): T => of[Math.floor(next() * of.length)]!;
  const query: RawQuery = {
    page_size: String(1 + Math.floor(next() * 12)),
    order_by: pick(['', 'uid', 'name', 'name desc', 'createTime', 'createTime desc, name', 'updateTime desc', 'name, updateTime']),
  };
  if (next() < 0.3) query.skip = String(Math.floor(next() * 4));
  const filter = next();
  if (filter < 0.25) query['uidp.children_of'] = ROOT;
  else if (filter < 0.4) query['uidp.descendants_of'] = OTHER_ROOT;
  else if (filter < 0.55) query.name = pick(NAMES);
  else if (filter < 0.65 && rows.length > 0) query['uidp.ids'] = rows.filter(() => next() < 0.4).map((row) => String(row.id));
  if (query.order_by === '') delete query.order_by;
  return query;
}

/** One change to v1's list, as another client (or the gateway) makes it between pages. */
function change(next: () => number, rows: Json[], serial: () => number): void {
  const roll = next();
  if (roll < 0.3 || rows.length === 0) rows.splice(Math.floor(next() * (rows.length + 1)), 0, randomRow(next, serial()));
  else if (roll < 0.55) rows.splice(Math.floor(next() * rows.length), 1);
  else if (roll < 0.8) rows[Math.floor(next() * rows.length)]!.name = NAMES[Math.floor(next() * NAMES.length)]!;
  else rows[Math.floor(next() * rows.length)]!.updatedAt = next() < 0.5 ? null : TIMES[Math.floor(next() * TIMES.length)]!;
}

/** A step of a session: a page of a query (following the page before it, or from the first), or a change. */
type Step = { kind: 'page'; query: number; follow: boolean } | { kind: 'change'; seed: number } | { kind: 'touch'; seed: number };

interface Session {
  initial: Json[];
  queries: RawQuery[];
  steps: Step[];
}

function randomSession(seed: number): Session {
  const next = prng(seed);
  let serial = 0;
  const initial = Array.from({ length: Math.floor(next() * 40) }, () => randomRow(next, serial++));
  const queries = Array.from({ length: 1 + Math.floor(next() * 3) }, () => randomQuery(next, initial));
  const steps: Step[] = [];
  for (let i = 0; i < 30; i++) {
    const roll = next();
    if (roll < 0.12) steps.push({ kind: 'change', seed: Math.floor(next() * 2 ** 31) });
    else if (roll < 0.2) steps.push({ kind: 'touch', seed: Math.floor(next() * 2 ** 31) });
    // Mostly the next page of the walk; now and then a walk started again (a List polled).
    else steps.push({ kind: 'page', query: Math.floor(next() * queries.length), follow: next() < 0.75 });
  }
  return { initial, queries, steps };
}

/** Every page the session asks for (or the error it gets), as a reader with these switches answers it. */
async function run(session: Session, switches: Switches, filled: boolean): Promise<(RenderedPage | string)[]> {
  const v1 = new FakeV1();
  v1.rows = structuredClone(session.initial);
  const store = new FakeTimestamps();
  if (filled) v1.filledFrom = store;
  const reader = readerWith(v1, switches, store);
  const shapes: ListQuery[] = session.queries.map((q) => readListQuery(mapping, q, tokens));
  const cursors = new Map<number, Page['next']>();
  let serial = 1_000;
  const answers: (RenderedPage | string)[] = [];
  for (const step of session.steps) {
    if (step.kind === 'change') {
      change(prng(step.seed), v1.rows, () => serial++);
      // A write through the gateway drops the resource's walks; one elsewhere is seen by the next full read.
      reader.changed();
      continue;
    }
    if (step.kind === 'touch') {
      // A write through the gateway that v1's list does not show: the row's kept updateTime moves.
      const row = v1.rows[step.seed % Math.max(1, v1.rows.length)];
      if (row) await reader.touched(String(row[uidKey]), Date.UTC(2026, 0, 1) + (step.seed % 1_000_000) * 1000);
      reader.changed();
      continue;
    }
    const { query, follow } = step;
    const cursor = follow ? cursors.get(query) : undefined;
    try {
      const page = await reader.list(mapping, { ...shapes[query]!, cursor }, context());
      cursors.set(query, page.next);
      // Pages are compared as JSON, as they are served.
      answers.push(JSON.parse(JSON.stringify(page)) as RenderedPage);
    } catch (error) {
      answers.push(`error: ${(error as Error).message}`);
      cursors.delete(query);
    }
  }
  return answers;
}

describe('the List\'s speed-ups against the plain reader', () => {
  const PLAIN: Switches = { scans: 'off', readingMemo: false, walks: false, keptTimes: false };

  for (let seed = 1; seed <= 40; seed++) {
    it(`session ${seed}: every combination of scanner, scan memo, reading memo, walk cache and kept times answers as the plain reader`, async () => {
      const session = randomSession(seed);
      // The plain reader, over v1 rows as they are, and as they would be holding the store's times.
      const plain = await run(session, PLAIN, false);
      const plainFilled = await run(session, PLAIN, true);
      for (const switches of ALL_SWITCHES) {
        const answers = await run(session, switches, false);
        expect(answers, JSON.stringify(switches)).toEqual(switches.keptTimes ? plainFilled : plain);
      }
    });
  }

  it('answers the same row objects again for the same bytes, so their documents are made once (and again when a kept time moves)', async () => {
    const v1 = new FakeV1();
    const next = prng(7);
    v1.rows = Array.from({ length: 12 }, (_, serial) => randomRow(next, serial));
    const renderings = new KeptRenderings();
    const list = v1List({ source: v1.source(), maxFanOut: 10, scans: new ListScanMemo({ maxBytes: 1 << 20 }), readingMemo: { rendersAlone: () => true, renderings } });
    const query = readListQuery(mapping, { page_size: '5' }, tokens);
    const first = await list(mapping, query, context());
    const second = await list(mapping, query, context());
    expect(second.rows.length).toBe(5);
    second.rows.forEach((row, i) => expect(row).toBe(first.rows[i]));
    let made = 0;
    const document = (row: Json, times?: ResourceTimes) => renderings.document(row, times, () => ({ made: ++made }));
    const row = second.rows[0]!;
    expect(document(row)).toBe(document(row));
    const moved = { createTime: TIMES[0]!, updateTime: TIMES[2]! };
    expect(document(row, moved)).toEqual({ made: 2 });
    expect(document(row, { ...moved })).toEqual({ made: 2 });
    // A row no memo keeps (a Get's, a plain List's) is converted every time.
    const loose = { ...row };
    expect(document(loose)).toEqual({ made: 3 });
    expect(document(loose)).toEqual({ made: 4 });
  });

  it('is not vacuous: sessions walk several pages, hit kept readings and see rows lacking times', async () => {
    let pagesWithMore = 0;
    let lackingTimes = 0;
    let memoHits = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const session = randomSession(seed);
      lackingTimes += session.initial.filter((row) => TIME_MEMBERS.some((m) => isBlank(row[m]))).length;
      const answers = await run(session, PLAIN, false);
      pagesWithMore += answers.filter((page) => typeof page !== 'string' && page.next !== undefined).length;
      const memo = new ListScanMemo({ maxBytes: 1 << 20, onLookup: (hit) => (memoHits += hit ? 1 : 0) });
      const v1 = new FakeV1();
      v1.rows = session.initial;
      const renderings = new KeptRenderings();
      const list = renderedList({ source: v1.source(), maxFanOut: 10, scans: memo, readingMemo: { rendersAlone: () => true, renderings } }, undefined, renderings);
      const query = readListQuery(mapping, session.queries[0]!, tokens);
      await list(mapping, query, context());
      await list(mapping, query, context());
    }
    expect(pagesWithMore).toBeGreaterThan(100);
    expect(lackingTimes).toBeGreaterThan(100);
    expect(memoHits).toBeGreaterThan(20);
  });
});
