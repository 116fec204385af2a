import { describe, expect, it } from 'vitest';
import type { AdvisoryEventFields, AdvisoryFields } from '../../src/emulator/v1/index.ts';
import { ids, pinnedClock, useEmulator, type Client, type Json } from './helpers.ts';

const PATH = '/vulnerabilities/v1/advisories';
const APK = { artifactType: 'apk', artifactName: 'pkg', artifactArchitecture: 'x86_64' };

/** Every page of a query, following nextPageToken; fails on a loop. */
async function walk(api: Client, query: string): Promise<{ pages: Json[]; ids: string[] }> {
  const pages: Json[] = [];
  let token = '';
  do {
    const res = await api.get(`${PATH}?${query}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`);
    expect(res.status).toBe(200);
    pages.push(res.body);
    token = res.body.nextPageToken;
    expect(pages.length).toBeLessThan(100);
  } while (token !== '');
  return { pages, ids: pages.flatMap((p) => p.items.map((a: { id: string }) => a.id)) };
}

const sortedIds = (list: string[], desc = false): string[] => [...list].sort((a, b) => (a < b ? -1 : 1) * (desc ? -1 : 1));

describe('v1 advisory list: paging and order', () => {
  const ctx = useEmulator({ clock: pinnedClock() });
  const group = (name: string, count: number, fields: (i: number) => Partial<AdvisoryFields> = () => ({})): { g: string; ids: string[] } => {
    const g = ctx.emu.state.createGroup(null, { name }).id;
    return { g, ids: Array.from({ length: count }, (_, i) => ctx.emu.state.createAdvisory(g, { ...APK, ...fields(i) }).id) };
  };

  it('answers {id, items, nextPageToken, totalCount}: 50 by default, ID_ASC, totalCount an int64 string', async () => {
    const { g, ids: made } = group('page-default', 60);
    const first = await ctx.api.get(`${PATH}?uidp.childrenOf=${g}`);
    expect(Object.keys(first.body)).toEqual(['id', 'items', 'nextPageToken', 'totalCount']);
    expect(first.body).toMatchObject({ id: g, totalCount: '60', nextPageToken: expect.stringMatching(/.+/) });
    expect(ids(first)).toEqual(sortedIds(made).slice(0, 50));
    const second = await ctx.api.get(`${PATH}?uidp.childrenOf=${g}&pageToken=${encodeURIComponent(first.body.nextPageToken)}`);
    expect(second.body).toMatchObject({ nextPageToken: '', totalCount: '60' });
    expect(ids(second)).toEqual(sortedIds(made).slice(50));
    const empty = await ctx.api.get(`${PATH}?uidp.childrenOf=${'0'.repeat(40)}`);
    expect(empty.body).toEqual({ id: '0'.repeat(40), items: [], nextPageToken: '', totalCount: '0' });
    expect((await ctx.api.get(`${PATH}?uidp.descendantsOf=${g}&pageSize=1`)).body.id).toBe('');
  });

  it('walks every row exactly once for any page size; a page that ends the list has no token', async () => {
    const { g, ids: made } = group('page-walk', 23);
    for (const size of [1, 5, 23]) {
      const { pages, ids: seen } = await walk(ctx.api, `uidp.childrenOf=${g}&pageSize=${size}`);
      expect(seen).toEqual(sortedIds(made));
      expect(pages).toHaveLength(Math.ceil(23 / size));
      expect(pages.every((p) => p.totalCount === '23')).toBe(true);
    }
    expect((await ctx.api.get(`${PATH}?uidp.childrenOf=${g}&pageSize=23`)).body.nextPageToken).toBe('');
  });

  it('caps pageSize at 200, refuses a negative or non-integer one (3)', async () => {
    const { g } = group('page-cap', 205);
    const res = await ctx.api.get(`${PATH}?uidp.childrenOf=${g}&page_size=1000`);
    expect(res.body.items).toHaveLength(200);
    expect(res.body.totalCount).toBe('205');
    for (const size of ['-1', 'ten', '1.5']) expect((await ctx.api.get(`${PATH}?pageSize=${size}`)).body.code).toBe(3);
  });

  it('orders by every OrderBy value (names or numbers); ties and keyset pages follow id', async () => {
    const { g, ids: made } = group('page-order', 6, (i) => ({ aliases: [[`CVE-2`], [`CVE-1`, 'GHSA-b'], [], ['CVE-1'], [`CVE-1`, 'GHSA-a'], ['CVE-3']][i]! }));
    const [a0, a1, a2, a3, a4, a5] = made as [string, string, string, string, string, string];
    ctx.emu.state.updateAdvisory(a0, { ...APK, aliases: ['CVE-2'] }); // a0 is now the most recently updated
    ctx.emu.state.deleteAdvisory(a3);
    ctx.emu.state.deleteAdvisory(a1);
    const order = async (orderBy: string): Promise<string[]> => (await walk(ctx.api, `uidp.childrenOf=${g}&pageSize=2&orderBy=${orderBy}`)).ids;
    expect(await order('ORDER_BY_UNSPECIFIED')).toEqual(sortedIds(made));
    expect(await order('ID_DESC')).toEqual(sortedIds(made, true));
    expect(await order('2')).toEqual(sortedIds(made, true));
    expect(await order('CREATED_AT_ASC')).toEqual(made);
    expect(await order('CREATED_AT_DESC')).toEqual([...made].reverse());
    expect(await order('UPDATED_AT_DESC')).toEqual([a0, a5, a4, a3, a2, a1]);
    // PostgreSQL array order: [] < [CVE-1] < [CVE-1, GHSA-a] < [CVE-1, GHSA-b] < [CVE-2] < [CVE-3]
    expect(await order('ALIASES_ASC')).toEqual([a2, a3, a4, a1, a0, a5]);
    expect(await order('ALIASES_DESC')).toEqual([a5, a0, a1, a4, a3, a2]);
    // NULLs (live advisories) last ascending and first descending, like PostgreSQL.
    const live = [a0, a2, a4, a5];
    expect((await order('DELETED_AT_ASC')).slice(0, 2)).toEqual([a3, a1]);
    expect(new Set((await order('DELETED_AT_ASC')).slice(2))).toEqual(new Set(live));
    expect((await order('DELETED_AT_DESC')).slice(4)).toEqual([a1, a3]);
    expect((await ctx.api.get(`${PATH}?orderBy=NAME_ASC`)).body.code).toBe(3);
  });

  it('rows that tie on the sort value are ordered, and paged, by id in the same direction', async () => {
    const { g, ids: made } = group('page-ties', 5, () => ({ aliases: ['CVE-9'] }));
    expect((await walk(ctx.api, `uidp.childrenOf=${g}&pageSize=2&orderBy=ALIASES_ASC`)).ids).toEqual(sortedIds(made));
    expect((await walk(ctx.api, `uidp.childrenOf=${g}&pageSize=2&orderBy=ALIASES_DESC`)).ids).toEqual(sortedIds(made, true));
  });

  it('a token is bound to its filters and order (3 otherwise), survives a page-size change, and is opaque', async () => {
    const { g } = group('page-token', 5);
    const first = await ctx.api.get(`${PATH}?uidp.childrenOf=${g}&pageSize=2&orderBy=ID_DESC`);
    const token = encodeURIComponent(first.body.nextPageToken);
    expect((await ctx.api.get(`${PATH}?uidp.childrenOf=${g}&pageSize=2&orderBy=ID_ASC&pageToken=${token}`)).body).toMatchObject({ code: 3 });
    expect((await ctx.api.get(`${PATH}?uidp.childrenOf=${g}&pageSize=2&orderBy=ID_DESC&artifactType=apk&pageToken=${token}`)).body.code).toBe(3);
    const resized = await ctx.api.get(`${PATH}?uidp.childrenOf=${g}&pageSize=10&orderBy=ID_DESC&pageToken=${token}`);
    expect(resized.body.items).toHaveLength(3);
    const forged = first.body.nextPageToken.replace(/^./, (c: string) => (c === 'A' ? 'B' : 'A'));
    expect((await ctx.api.get(`${PATH}?uidp.childrenOf=${g}&pageSize=2&orderBy=ID_DESC&pageToken=${encodeURIComponent(forged)}`)).body.code).toBe(3);
    expect((await ctx.api.get(`${PATH}?pageToken=garbage`)).body.code).toBe(3);
  });

  it('keyset pages never repeat a row when advisories are created between pages', async () => {
    const { g } = group('page-insert', 4);
    const first = await ctx.api.get(`${PATH}?uidp.childrenOf=${g}&pageSize=2&orderBy=CREATED_AT_DESC`);
    for (let i = 0; i < 3; i++) ctx.emu.state.createAdvisory(g, APK);
    const second = await ctx.api.get(`${PATH}?uidp.childrenOf=${g}&pageSize=2&orderBy=CREATED_AT_DESC&pageToken=${encodeURIComponent(first.body.nextPageToken)}`);
    expect(ids(second).filter((id) => ids(first).includes(id))).toEqual([]);
    expect(ids(second)).toHaveLength(2);
    expect(second.body.totalCount).toBe('7');
  });
});

describe('v1 advisory list: filters', () => {
  const ctx = useEmulator({ clock: pinnedClock() });
  const make = (g: string, fields: Partial<AdvisoryFields>, events: AdvisoryEventFields[] = []): string =>
    ctx.emu.state.createAdvisory(g, { ...APK, ...fields, events }).id;
  const query = async (g: string, q: string): Promise<string[]> => ids(await ctx.api.get(`${PATH}?uidp.childrenOf=${g}&${q}`));

  it('advisory fields: id, advisoryIds, legacyAdvisoryIds, artifact*, component*, aliases (any listed value matches)', async () => {
    const g = ctx.emu.state.createGroup(null, { name: 'filter-fields' }).id;
    const a = make(g, { advisoryId: 'CGA-2222-2222-2222', legacyAdvisoryID: 'L-1', artifactName: 'curl', componentName: 'libcurl', componentType: 'apk', aliases: ['CVE-1', 'GHSA-1'] });
    const b = make(g, { artifactType: 'image', artifactArchitecture: 'aarch64', componentLocation: '/usr/lib', aliases: ['CVE-2'] });
    const c = make(g, { componentName: '' });
    expect(await query(g, `id=${b}`)).toEqual([b]);
    expect(await query(g, 'advisoryIds=CGA-2222-2222-2222&advisoryIds=CGA-none')).toEqual([a]);
    expect(await query(g, 'legacy_advisory_ids=L-1')).toEqual([a]);
    expect(await query(g, 'artifactType=image')).toEqual([b]);
    expect(await query(g, 'artifactName=curl&artifactName=pkg').then((r) => r.length)).toBe(3);
    expect(await query(g, 'artifactArchitecture=aarch64')).toEqual([b]);
    expect(await query(g, 'componentName=libcurl')).toEqual([a]);
    // An empty value is still a value: it matches a present, empty componentName only.
    expect(await query(g, 'componentName=')).toEqual([c]);
    expect(await query(g, 'componentType=apk')).toEqual([a]);
    expect(await query(g, 'componentLocation=/usr/lib')).toEqual([b]);
    expect(await query(g, 'aliases=CVE-2&aliases=GHSA-1')).toEqual(sortedIds([a, b]));
    expect(await query(g, 'artifactType=apk&aliases=CVE-2')).toEqual([]);
  });

  it('origin resolves registered subpackages and overrides the artifactName filter', async () => {
    const g = ctx.emu.state.createGroup(null, { name: 'filter-origin' }).id;
    ctx.emu.state.registerSubpackages('openssl', ['libssl3', 'libcrypto3']);
    const origin = make(g, { artifactName: 'openssl' });
    const sub = make(g, { artifactName: 'libssl3' });
    make(g, { artifactName: 'curl' });
    expect(await query(g, 'origin=openssl')).toEqual(sortedIds([origin, sub]));
    expect(await query(g, 'origin=openssl&artifactName=curl')).toEqual(sortedIds([origin, sub]));
    expect(await query(g, 'origin=libssl3')).toEqual([]);
  });

  it('event filters: statuses, author, reviewer and types must hold for one event; excludeEventAuthor drops any match', async () => {
    const g = ctx.emu.state.createGroup(null, { name: 'filter-events' }).id;
    const mixed = make(g, {}, [
      { detection: { manual: {} }, author: 'alice', status: 'APPROVED' },
      { fixed: {}, author: 'bob', reviewer: 'carol', status: 'PENDING' },
    ]);
    const pending = make(g, {}, [{ pendingUpstreamFix: {}, author: 'alice', status: 'PENDING' }]);
    const bare = make(g, {});
    expect(await query(g, 'eventStatuses=PENDING')).toEqual(sortedIds([mixed, pending]));
    expect(await query(g, 'eventStatuses=1&eventAuthor=alice')).toEqual([pending]);
    expect(await query(g, 'eventAuthor=alice&eventTypes=EVENT_TYPE_FILTER_DETECTION')).toEqual([mixed]);
    expect(await query(g, 'eventReviewer=carol')).toEqual([mixed]);
    expect(await query(g, 'eventTypes=EVENT_TYPE_FILTER_FIXED&eventTypes=EVENT_TYPE_FILTER_PENDING_UPSTREAM_FIX')).toEqual(sortedIds([mixed, pending]));
    expect(await query(g, 'eventTypes=EVENT_TYPE_FILTER_UNSPECIFIED').then((r) => r.length)).toBe(3);
    expect(await query(g, 'excludeEventAuthor=bob')).toEqual(sortedIds([pending, bare]));
    expect(await query(g, 'eventStatuses=UNKNOWN')).toEqual([]);
    expect((await ctx.api.get(`${PATH}?eventStatuses=DONE`)).body.code).toBe(3);
  });

  it('latestEventType looks at the most recent APPROVED event by timestamp', async () => {
    const g = ctx.emu.state.createGroup(null, { name: 'filter-latest' }).id;
    const fixed = make(g, {}, [
      { fixed: {}, status: 'APPROVED', timestamp: '2025-02-01T00:00:00Z' },
      { detection: { manual: {} }, status: 'APPROVED', timestamp: '2025-01-01T00:00:00Z' },
      { patched: {}, status: 'PENDING', timestamp: '2025-03-01T00:00:00Z' },
    ]);
    const detected = make(g, {}, [{ detection: { manual: {} }, status: 'APPROVED' }]);
    make(g, {}, [{ fixed: {}, status: 'PENDING' }]);
    expect(await query(g, 'latestEventType=EVENT_TYPE_FILTER_FIXED')).toEqual([fixed]);
    expect(await query(g, 'latest_event_type=1')).toEqual([detected]);
    expect(await query(g, 'latestEventType=EVENT_TYPE_FILTER_PATCHED')).toEqual([]);
    expect(await query(g, 'latestEventType=EVENT_TYPE_FILTER_UNSPECIFIED').then((r) => r.length)).toBe(3);
  });

  it('unknown query keys are ignored; several values for a singular field are 3', async () => {
    const g = ctx.emu.state.createGroup(null, { name: 'filter-query' }).id;
    const only = make(g, {});
    expect(await query(g, 'whatever=1&skip=3')).toEqual([only]);
    expect((await ctx.api.get(`${PATH}?orderBy=ID_ASC&orderBy=ID_DESC`)).body.code).toBe(3);
  });
});
