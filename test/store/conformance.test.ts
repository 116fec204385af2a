/**
 * One suite, both engines: whatever the gateway may rely on from a Store is
 * asserted here against the embedded engine and PostgreSQL alike. Ordering and
 * paging are checked against the gateway's own in-memory windowing
 * (`windowRows`, `compareValues`) as the oracle.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareValues } from '../../src/aip/value-order.ts';
import { sortKey, windowRows } from '../../src/aip/list-window.ts';
import type { OrderKey } from '../../src/aip/order-by.ts';
import { getPath } from '../../src/vocabulary/json.ts';
import { StoreConflictError, type Json, type Store, type StoredResource, type StoreFilter, type StoreListQuery } from '../../src/store/types.ts';
import { postgresEngine, sqliteEngine, type Engine, type Place } from './engines.ts';
import { prng as random } from '../support/prng.ts';

const T0 = '2024-01-01T00:00:00.000Z';
const T1 = '2024-01-02T00:00:00.000Z';
const T2 = '2024-01-03T00:00:00.000Z';
const COLUMNS = new Set(['uid', 'parent', 'createTime', 'updateTime']);
const ORG = 'a'.repeat(40);
const OTHER_ORG = 'b'.repeat(40);

function parentOf(uid: string): string {
  const cut = uid.lastIndexOf('/');
  return cut < 0 ? '' : uid.slice(0, cut);
}

function resource(uid: string, body: Json = {}, more: Partial<StoredResource> = {}): StoredResource {
  return { kind: 'groups', uid, parent: parentOf(uid), body, createTime: T0, updateTime: T0, ...more };
}

function read(row: StoredResource, field: string): unknown {
  return COLUMNS.has(field) ? row[field as 'uid'] : getPath(row.body, field);
}

const uids = (rows: readonly StoredResource[]) => rows.map((r) => r.uid);
const byUid: OrderKey[] = [{ field: 'uid', desc: false }];


const ENGINES: { name: string; make: () => Engine }[] = [
  { name: 'sqlite', make: sqliteEngine },
  { name: 'postgres', make: postgresEngine },
];

describe.each(ENGINES)('store conformance: $name', ({ make }) => {
  const engine = make();
  let place: Place;
  let store: Store;

  beforeEach(async () => {
    place = await engine.fresh();
    store = await place.open();
  });
  afterEach(async () => {
    await store?.close();
  });
  afterAll(() => engine.cleanup());

  async function insertAll(rows: readonly StoredResource[]): Promise<void> {
    for (const r of rows) await store.resources.insert(r);
  }

  async function list(query: Partial<StoreListQuery> = {}) {
    return store.resources.list({ kind: 'groups', filters: [], order: byUid, skip: 0, limit: 1000, ...query });
  }

  async function matching(...filters: StoreFilter[]): Promise<string[]> {
    return uids((await list({ filters })).rows);
  }

  it('answers a readiness ping while open, and refuses it once closed', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
    await store.close();
    await expect(store.ping()).rejects.toThrow();
    store = await place.open();
  });

  describe('single rows', () => {
    it('gets what was inserted, body key order and unicode intact', async () => {
      const body = { uid: `${ORG}/0123456789abcdef`, name: 'Ünïcødé 😀 \uFF01', zeta: 1, alpha: [true, null, { nested: 'x' }], big: 12345678901 };
      const row = resource(`${ORG}/0123456789abcdef`, body, { createTime: T1, updateTime: T2 });
      await store.resources.insert(row);
      const got = await store.resources.get('groups', row.uid);
      expect(got).toEqual(row);
      expect(JSON.stringify(got!.body)).toBe(JSON.stringify(body));
      expect(await store.resources.get('groups', 'missing')).toBeUndefined();
      expect(await store.resources.get('roles', row.uid)).toBeUndefined();
    });

    it('refuses a taken uid within a kind, not across kinds', async () => {
      await store.resources.insert(resource(ORG, { name: 'first' }));
      await expect(store.resources.insert(resource(ORG, { name: 'second' }))).rejects.toBeInstanceOf(StoreConflictError);
      expect((await store.resources.get('groups', ORG))!.body).toEqual({ name: 'first' });
      await store.resources.insert({ ...resource(ORG), kind: 'roles' });
      expect((await store.resources.get('roles', ORG))!.kind).toBe('roles');
    });

    it('replaces body and updateTime, keeping createTime; undefined for no such row', async () => {
      await store.resources.insert(resource(ORG, { name: 'old', gone: true }, { createTime: T0, updateTime: T0 }));
      const replaced = await store.resources.replace('groups', ORG, { name: 'new' }, T2);
      expect(replaced).toEqual(resource(ORG, { name: 'new' }, { createTime: T0, updateTime: T2 }));
      expect(await store.resources.get('groups', ORG)).toEqual(replaced);
      expect(await store.resources.replace('groups', OTHER_ORG, {}, T2)).toBeUndefined();
      expect(await store.resources.get('groups', OTHER_ORG)).toBeUndefined();
    });

    it('deletes once', async () => {
      await store.resources.insert(resource(ORG));
      await store.resources.insert({ ...resource(ORG), kind: 'roles' });
      expect(await store.resources.delete('groups', ORG)).toBe(true);
      expect(await store.resources.delete('groups', ORG)).toBe(false);
      expect(await store.resources.get('groups', ORG)).toBeUndefined();
      expect(await store.resources.get('roles', ORG)).toBeDefined();
    });
  });

  describe('filters', () => {
    const a = ORG;
    const a1 = `${ORG}/1111111111111111`;
    const a1x = `${ORG}/1111111111111111/2222222222222222`;
    const a2 = `${ORG}/3333333333333333`;
    const b = OTHER_ORG;
    const b1 = `${OTHER_ORG}/1111111111111111`;

    beforeEach(async () => {
      await insertAll([
        resource(a, { name: 'Acme Root', tags: ['Blue', 'green'], enabled: true, size: 5, ref: b }, { createTime: T0 }),
        resource(a1, { name: 'acme team 100%', tags: [], enabled: false, size: '5', ref: `${b}/x` }, { createTime: T1 }),
        resource(a1x, { name: 'under_score', tags: ['RED'], ref: a1 }, { createTime: T2 }),
        resource(a2, { name: null, tags: 'Blue-ish', enabled: 'true', ref: a1x }, { createTime: T1 }),
        resource(b, { name: 'Beta', nested: { label: 'deep Blue' } }, { createTime: T2 }),
        resource(b1, { name: 'beta one', ref: a }, { createTime: T0 }),
      ]);
      await store.resources.insert({ ...resource(`${ORG}/9999999999999999`, { name: 'Acme Root' }), kind: 'roles' });
    });

    it('eq on a column, a body string and a body boolean, strictly typed', async () => {
      expect(await matching({ field: 'uid', op: 'eq', value: a1 })).toEqual([a1]);
      expect(await matching({ field: 'parent', op: 'eq', value: a })).toEqual([a1, a2]);
      expect(await matching({ field: 'name', op: 'eq', value: 'Acme Root' })).toEqual([a]);
      expect(await matching({ field: 'enabled', op: 'eq', value: true })).toEqual([a]);
      expect(await matching({ field: 'enabled', op: 'eq', value: false })).toEqual([a1]);
      expect(await matching({ field: 'enabled', op: 'eq', value: 'true' })).toEqual([a2]);
      expect(await matching({ field: 'size', op: 'eq', value: '5' })).toEqual([a1]);
      expect(await matching({ field: 'nested.label', op: 'eq', value: 'deep Blue' })).toEqual([b]);
    });

    it('in, including an empty list', async () => {
      expect(await matching({ field: 'uid', op: 'in', value: [b1, a, 'nope'] })).toEqual([a, b1]);
      expect(await matching({ field: 'name', op: 'in', value: ['Beta', 'beta one'] })).toEqual([b, b1]);
      expect(await matching({ field: 'uid', op: 'in', value: [] })).toEqual([]);
    });

    it('descendantOf, childOf, ancestorOf on the uid', async () => {
      expect(await matching({ field: 'uid', op: 'descendantOf', value: a })).toEqual([a1, a1x, a2]);
      expect(await matching({ field: 'uid', op: 'descendantOf', value: a1 })).toEqual([a1x]);
      expect(await matching({ field: 'uid', op: 'descendantOf', value: a1x })).toEqual([]);
      expect(await matching({ field: 'uid', op: 'childOf', value: a })).toEqual([a1, a2]);
      expect(await matching({ field: 'uid', op: 'ancestorOf', value: a1x })).toEqual([a, a1]);
      expect(await matching({ field: 'uid', op: 'ancestorOf', value: a })).toEqual([]);
    });

    it('within: each uid and what descends from it, the flat (parent-less) rows for \'\', nothing for none', async () => {
      expect(await matching({ field: 'uid', op: 'within', value: [a1, b1] })).toEqual([a1, a1x, b1]);
      expect(await matching({ field: 'uid', op: 'within', value: [a1x, a] })).toEqual([a, a1, a1x, a2]);
      expect(await matching({ field: 'uid', op: 'within', value: [''] })).toEqual([a, b]);
      expect(await matching({ field: 'uid', op: 'within', value: [a2, ''] })).toEqual([a, a2, b]);
      expect(await matching({ field: 'uid', op: 'within', value: [] })).toEqual([]);
    });

    it('descendantOf, childOf, ancestorOf on a body field', async () => {
      expect(await matching({ field: 'ref', op: 'descendantOf', value: b })).toEqual([a1]);
      expect(await matching({ field: 'ref', op: 'childOf', value: a })).toEqual([a1x]);
      expect(await matching({ field: 'ref', op: 'childOf', value: a1 })).toEqual([a2]);
      expect(await matching({ field: 'ref', op: 'ancestorOf', value: `${a1}/2222222222222222` })).toEqual([a1x, b1]);
    });

    it('inRoot true and false', async () => {
      expect(await matching({ field: 'uid', op: 'inRoot', value: true })).toEqual([a, b]);
      expect(await matching({ field: 'uid', op: 'inRoot', value: false })).toEqual([a1, a1x, a2, b1]);
    });

    it('gte on a timestamp column', async () => {
      expect(await matching({ field: 'createTime', op: 'gte', value: T1 })).toEqual([a1, a1x, a2, b]);
      expect(await matching({ field: 'createTime', op: 'gte', value: T2 })).toEqual([a1x, b]);
      expect(await matching({ field: 'name', op: 'gte', value: 'acme' })).toEqual([a1, a1x, b1]);
    });

    it('contains: case-insensitive, any element of an array, wildcards literal', async () => {
      expect(await matching({ field: 'name', op: 'contains', value: 'ACME' })).toEqual([a, a1]);
      expect(await matching({ field: 'name', op: 'contains', value: '100%' })).toEqual([a1]);
      expect(await matching({ field: 'name', op: 'contains', value: '%' })).toEqual([a1]);
      expect(await matching({ field: 'name', op: 'contains', value: '_' })).toEqual([a1x]);
      expect(await matching({ field: 'tags', op: 'contains', value: 'blue' })).toEqual([a, a2]);
      expect(await matching({ field: 'tags', op: 'contains', value: 'Re' })).toEqual([a, a1x]);
      expect(await matching({ field: 'nested.label', op: 'contains', value: 'BLUE' })).toEqual([b]);
      expect(await matching({ field: 'uid', op: 'contains', value: '3333' })).toEqual([a2]);
    });

    it('all filters together must hold; total counts the matches only', async () => {
      const result = await list({
        filters: [
          { field: 'uid', op: 'descendantOf', value: a },
          { field: 'name', op: 'contains', value: 'e' },
        ],
        limit: 1,
      });
      expect(uids(result.rows)).toEqual([a1]);
      expect(result.total).toBe(2);
      expect(result.more).toBe(true);
    });
  });

  describe('order and pages', () => {
    async function expectOracle(rows: readonly StoredResource[], query: Omit<StoreListQuery, 'kind' | 'filters'>): Promise<void> {
      const got = await list({ ...query });
      const cursor = query.after ? { after: [...query.after], skipped: 0 } : undefined;
      const want = windowRows(rows, { order: query.order, pageSize: query.limit, skip: query.skip, cursor }, read);
      expect(uids(got.rows)).toEqual(uids(want.page));
      expect(got.total).toBe(want.total);
      expect(got.more).toBe(want.next !== undefined);
    }

    it('every direction combination of name, createTime and uid', async () => {
      const rows = ['b', 'a', 'b', null, 'B', 'a', undefined, 'b'].map((name, i) =>
        resource(`${ORG}/${String(i).repeat(16)}`, name === undefined ? {} : { name }, { createTime: [T0, T1, T2][i % 3]! }));
      await insertAll(rows);
      for (const nameDesc of [false, true]) {
        for (const timeDesc of [false, true]) {
          for (const uidDesc of [false, true]) {
            const order = [{ field: 'name', desc: nameDesc }, { field: 'createTime', desc: timeDesc }, { field: 'uid', desc: uidDesc }];
            await expectOracle(rows, { order, skip: 0, limit: 100 });
            await expectOracle(rows, { order, skip: 0, limit: 100, after: sortKey(rows[0]!, order, read) });
          }
        }
      }
    });

    it('absent, null, objects and arrays first, then booleans, numbers, strings', async () => {
      const values: unknown[] = ['x', 10, true, undefined, null, -2.5, false, { o: 1 }, ['y'], '', 2, 'X'];
      const rows = values.map((name, i) => resource(`${ORG}/${i.toString(16).padStart(16, '0')}`, name === undefined ? {} : { name }));
      await insertAll(rows);
      const order = [{ field: 'name', desc: false }, { field: 'uid', desc: false }];
      const got = uids((await list({ order })).rows);
      const want = [...rows].sort((x, y) => compareValues(x.body.name, y.body.name) || compareValues(x.uid, y.uid));
      expect(got).toEqual(uids(want));
      expect(got.slice(0, 4)).toEqual(uids(rows.filter((r) => r.body.name === undefined || typeof r.body.name === 'object')));
      await expectOracle(rows, { order: [{ field: 'name', desc: true }, { field: 'uid', desc: false }], skip: 0, limit: 100 });
    });

    it('strings in code-unit order, as compareValues has them (not locale, not code point)', async () => {
      const names = ['b', 'B', 'a', 'á', 'Z', 'z', '', ' ', 'a b', 'ab', '😀', '\uFF01', '\uE000', '\u{10FFFF}', '\u{10FFFF}\u0001', '𝒜', 'ß', 'ss', 'ﬀ', '\u00A0', 'é', 'e\u0301'];
      const rows = names.map((name, i) => resource(`${ORG}/${i.toString(16).padStart(16, '0')}`, { name }));
      await insertAll(rows);
      for (const desc of [false, true]) {
        const order = [{ field: 'name', desc }, { field: 'uid', desc: false }];
        const got = (await list({ order })).rows.map((r) => r.body.name);
        const want = [...names].sort((x, y) => (desc ? -1 : 1) * compareValues(x, y));
        expect(got).toEqual(want);
        // And a cursor in the middle of the supplementary / private-use boundary resumes exactly there.
        await expectOracle(rows, { order, skip: 0, limit: 3, after: sortKey(rows[names.indexOf('😀')]!, order, read) });
      }
    });

    it('skip applies after the cursor; total ignores cursor, skip and limit; more says a row follows', async () => {
      const rows = Array.from({ length: 10 }, (_, i) => resource(`${ORG}/${i.toString(16).padStart(16, '0')}`));
      await insertAll(rows);
      const page = await list({ after: [rows[2]!.uid], skip: 2, limit: 3 });
      expect(uids(page.rows)).toEqual(uids(rows.slice(5, 8)));
      expect(page.total).toBe(10);
      expect(page.more).toBe(true);
      const last = await list({ after: [rows[6]!.uid], skip: 0, limit: 3 });
      expect(uids(last.rows)).toEqual(uids(rows.slice(7, 10)));
      expect(last.more).toBe(false);
      const beyond = await list({ skip: 20, limit: 3 });
      expect(beyond).toEqual({ rows: [], total: 10, more: false });
    });

    it('keyset pages equal windowRows while rows come and go between pages (seeded)', async () => {
      const rand = random(20240101);
      const pick = <T,>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
      const names: unknown[] = ['a', 'B', 'b', 'ä', 'z', '', '😀', '\uFF01', 'a/b', null, undefined, 3, -1, 2.5, true, false, ['q']];
      const roots = ['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(40)];
      const live = new Map<string, StoredResource>();
      let serial = 0;
      const add = async () => {
        const root = pick(roots);
        const uid = rand() < 0.2 ? `${root.slice(0, 39)}${(serial++ % 10).toString()}` : `${root}/${(serial++).toString(16).padStart(16, '0')}`;
        if (live.has(uid)) return;
        const name = pick(names);
        const r = resource(uid, name === undefined ? { n: rand() } : { name, n: Math.floor(rand() * 3) }, { createTime: pick([T0, T1, T2]) });
        await store.resources.insert(r);
        live.set(uid, r);
      };
      const filterChoices: { filters: StoreFilter[]; test: (r: StoredResource) => boolean }[] = [
        { filters: [], test: () => true },
        { filters: [{ field: 'uid', op: 'descendantOf', value: roots[0]! }], test: (r) => r.uid.startsWith(`${roots[0]}/`) },
        { filters: [{ field: 'uid', op: 'inRoot', value: false }], test: (r) => r.uid.includes('/') },
      ];
      for (let i = 0; i < 40; i++) await add();

      for (let trial = 0; trial < 12; trial++) {
        const fields = [...['name', 'createTime', 'n'].filter(() => rand() < 0.6), 'uid'];
        const order = fields.map((field) => ({ field, desc: rand() < 0.5 }));
        const { filters, test } = pick(filterChoices);
        const limit = 1 + Math.floor(rand() * 6);
        let after: unknown[] | undefined;
        for (let pageNo = 0; pageNo < 50; pageNo++) {
          const skip = rand() < 0.2 ? 1 : 0;
          const got = await list({ filters, order, limit, skip, ...(after ? { after } : {}) });
          const rows = [...live.values()].filter(test);
          const want = windowRows(rows, { order, pageSize: limit, skip, cursor: after ? { after, skipped: 0 } : undefined }, read);
          const context = `trial ${trial} page ${pageNo} order ${JSON.stringify(order)} filters ${JSON.stringify(filters)}`;
          expect(uids(got.rows), context).toEqual(uids(want.page));
          expect(got.total, context).toBe(want.total);
          expect(got.more, context).toBe(want.next !== undefined);
          if (!got.more) break;
          after = sortKey(got.rows[got.rows.length - 1]!, order, read);
          // Between pages: the last row served may vanish, others arrive or go.
          if (rand() < 0.3) {
            const last = got.rows[got.rows.length - 1]!;
            await store.resources.delete('groups', last.uid);
            live.delete(last.uid);
          }
          if (rand() < 0.5) {
            const victim = pick([...live.keys()]);
            await store.resources.delete('groups', victim);
            live.delete(victim);
          }
          if (rand() < 0.7) await add();
        }
      }
    });

    it('refuses an order that is not total (no uid) and a cursor of the wrong length', async () => {
      await expect(list({ order: [{ field: 'name', desc: false }] })).rejects.toThrow(/uid/);
      await expect(list({ order: byUid, after: ['a', 'b'] })).rejects.toThrow(/cursor/);
    });

    it('lists one kind only', async () => {
      await store.resources.insert(resource(ORG));
      await store.resources.insert({ ...resource(OTHER_ORG), kind: 'roles' });
      expect(uids((await list()).rows)).toEqual([ORG]);
      expect((await list({ kind: 'roles' })).total).toBe(1);
      expect((await list({ kind: 'repos' })).total).toBe(0);
    });
  });

  it('counts children of a parent, per kind, zero included', async () => {
    await insertAll([resource(ORG), resource(`${ORG}/1111111111111111`), resource(`${ORG}/2222222222222222`), resource(`${ORG}/1111111111111111/3333333333333333`)]);
    await store.resources.insert({ ...resource(`${ORG}/4444444444444444`), kind: 'roles' });
    expect(await store.resources.countChildren(ORG, ['groups', 'roles', 'repos'])).toEqual({ groups: 2, roles: 1, repos: 0 });
    expect(await store.resources.countChildren(OTHER_ORG, ['groups'])).toEqual({ groups: 0 });
    expect(await store.resources.countChildren(ORG, [])).toEqual({});
  });

  describe('timestamps', () => {
    it('observe records first sightings and keeps them, for many uids at once', async () => {
      const many = Array.from({ length: 1500 }, (_, i) => `${ORG}/${i.toString(16).padStart(16, '0')}`);
      const first = await store.timestamps.observe('groups', many.slice(0, 1000), T0);
      expect(first.size).toBe(1000);
      expect(first.get(many[0]!)).toEqual({ createTime: T0, updateTime: T0 });
      const second = await store.timestamps.observe('groups', [...many, many[0]!], T1);
      expect(second.size).toBe(1500);
      expect(second.get(many[999]!)).toEqual({ createTime: T0, updateTime: T0 });
      expect(second.get(many[1000]!)).toEqual({ createTime: T1, updateTime: T1 });
      expect((await store.timestamps.observe('roles', [many[0]!], T2)).get(many[0]!)).toEqual({ createTime: T2, updateTime: T2 });
      expect((await store.timestamps.observe('groups', [], T2)).size).toBe(0);
    });

    it('created overwrites, touched moves updateTime only (or records both), forget drops', async () => {
      await store.timestamps.observe('groups', [ORG], T0);
      await store.timestamps.created('groups', ORG, T1);
      expect((await store.timestamps.observe('groups', [ORG], T2)).get(ORG)).toEqual({ createTime: T1, updateTime: T1 });
      await store.timestamps.touched('groups', ORG, T2);
      expect((await store.timestamps.observe('groups', [ORG], T0)).get(ORG)).toEqual({ createTime: T1, updateTime: T2 });
      await store.timestamps.touched('groups', OTHER_ORG, T1);
      expect((await store.timestamps.observe('groups', [OTHER_ORG], T2)).get(OTHER_ORG)).toEqual({ createTime: T1, updateTime: T1 });
      await store.timestamps.forget('groups', ORG);
      expect((await store.timestamps.observe('groups', [ORG], T2)).get(ORG)).toEqual({ createTime: T2, updateTime: T2 });
    });

    it('concurrent sightings of one uid agree on one time', async () => {
      const seen = await Promise.all([T0, T1, T2, T0, T1].map((now) => store.timestamps.observe('groups', [ORG, OTHER_ORG], now)));
      const firsts = new Set(seen.map((m) => m.get(ORG)!.createTime));
      expect(firsts.size).toBe(1);
    });

    it('sweep forgets the uids of that kind not present, and says how many', async () => {
      const all = ['1', '2', '3', '4'].map((d) => `${ORG}/${d.repeat(16)}`);
      await store.timestamps.observe('groups', all, T0);
      await store.timestamps.observe('roles', all, T0);
      expect(await store.timestamps.sweep('groups', [all[1]!, all[3]!, 'unknown'])).toBe(2);
      const after = await store.timestamps.observe('groups', all, T1);
      expect(all.map((u) => after.get(u)!.createTime)).toEqual([T1, T0, T1, T0]);
      expect((await store.timestamps.observe('roles', all, T1)).get(all[0]!)!.createTime).toBe(T0);
      expect(await store.timestamps.sweep('groups', [])).toBe(4);
    });
  });

  describe('transactions', () => {
    it('commit everything the work wrote, and return its value', async () => {
      const value = await store.transaction(async (tx) => {
        await tx.resources.insert(resource(ORG));
        await tx.timestamps.created('groups', ORG, T1);
        return 42;
      });
      expect(value).toBe(42);
      expect(await store.resources.get('groups', ORG)).toBeDefined();
      expect((await store.timestamps.observe('groups', [ORG], T2)).get(ORG)!.createTime).toBe(T1);
    });

    it('roll back everything when the work throws, outer-store calls inside it included', async () => {
      await store.resources.insert(resource(OTHER_ORG, { name: 'before' }));
      await expect(store.transaction(async (tx) => {
        await tx.resources.insert(resource(ORG));
        await tx.timestamps.created('groups', ORG, T1);
        await tx.resources.replace('groups', OTHER_ORG, { name: 'during' }, T1);
        // The outer store from inside the work joins the transaction (and must not wait for it).
        await store.resources.insert(resource(`${ORG}/1111111111111111`));
        expect(await store.resources.get('groups', ORG)).toBeDefined();
        throw new Error('boom');
      })).rejects.toThrow('boom');
      expect(await store.resources.get('groups', ORG)).toBeUndefined();
      expect(await store.resources.get('groups', `${ORG}/1111111111111111`)).toBeUndefined();
      expect((await store.resources.get('groups', OTHER_ORG))!.body).toEqual({ name: 'before' });
      expect((await store.timestamps.observe('groups', [ORG], T2)).get(ORG)!.createTime).toBe(T2);
    });

    it('a batch with a conflict in the middle leaves nothing behind', async () => {
      await store.resources.insert(resource(`${ORG}/2222222222222222`));
      const batch = ['1', '2', '3'].map((d) => resource(`${ORG}/${d.repeat(16)}`));
      await expect(store.transaction(async (tx) => {
        for (const r of batch) await tx.resources.insert(r);
      })).rejects.toBeInstanceOf(StoreConflictError);
      expect((await list()).total).toBe(1);
    });

    it('a nested transaction rolls back alone when it throws', async () => {
      await store.transaction(async (tx) => {
        await tx.resources.insert(resource(ORG));
        await expect(store.transaction(async (inner) => {
          await inner.resources.insert(resource(`${ORG}/1111111111111111`));
          throw new Error('inner');
        })).rejects.toThrow('inner');
        await store.transaction(async (inner) => inner.resources.insert(resource(`${ORG}/2222222222222222`)));
        await tx.resources.insert(resource(OTHER_ORG));
      });
      expect(uids((await list()).rows)).toEqual([ORG, `${ORG}/2222222222222222`, OTHER_ORG]);
    });

    it('transactions from concurrent callers both complete', async () => {
      await Promise.all(['1', '2', '3', '4'].map((d) => store.transaction(async (tx) => {
        await tx.resources.insert(resource(`${ORG}/${d.repeat(16)}`));
        await tx.timestamps.created('groups', `${ORG}/${d.repeat(16)}`, T1);
      })));
      expect((await list()).total).toBe(4);
    });
  });

  describe('opening', () => {
    it('reopening keeps the data and runs no migration twice', async () => {
      await store.resources.insert(resource(ORG, { name: 'kept' }));
      await store.timestamps.created('groups', ORG, T1);
      await store.close();
      store = await place.open();
      expect((await store.resources.get('groups', ORG))!.body).toEqual({ name: 'kept' });
      expect((await store.timestamps.observe('groups', [ORG], T2)).get(ORG)!.createTime).toBe(T1);
    });

    // Opening at the same moment from two processes: processes.test.ts.
    it('two stores open on one place see each other', async () => {
      const one = await place.open();
      const two = await place.open();
      try {
        await one.resources.insert(resource(ORG));
        expect(await two.resources.get('groups', ORG)).toBeDefined();
        await expect(two.resources.insert(resource(ORG))).rejects.toBeInstanceOf(StoreConflictError);
      } finally {
        await one.close();
        await two.close();
      }
    });

    it('names its engine', () => {
      expect(store.engine).toBe(make().name);
    });
  });
});
