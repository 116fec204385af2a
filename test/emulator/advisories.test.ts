import { beforeAll, describe, expect, it } from 'vitest';
import { CHILD_OF, ids, MICROS_TIMESTAMP, pinnedClock, useEmulator } from './helpers.ts';

const PATH = '/vulnerabilities/v1/advisories';
const CGA = /^CGA(-[23456789cfghjmpqrvwx]{4}){3}$/;
const APK = { artifactType: 'apk', artifactName: 'openssl', artifactArchitecture: 'x86_64' };

describe('v1 advisories', () => {
  const ctx = useEmulator({ clock: pinnedClock() });
  let org = '';
  beforeAll(() => {
    org = ctx.emu.state.createGroup(null, { name: 'advisory-org' }).id;
  });

  it('create takes {parentId, advisory}; every field emitted, proto3 optionals omitted, a CGA id minted', async () => {
    const res = await ctx.api.post(PATH, { parentId: org, advisory: { ...APK, aliases: ['CVE-2024-0001'], author: 'alice@example.com' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([
      'id', 'artifactType', 'artifactName', 'artifactArchitecture', 'createdAt', 'updatedAt', 'aliases', 'events', 'advisoryId', 'author',
    ]);
    expect(res.body).toEqual({
      id: expect.stringMatching(CHILD_OF(org)),
      ...APK,
      createdAt: expect.stringMatching(MICROS_TIMESTAMP),
      updatedAt: expect.stringMatching(MICROS_TIMESTAMP),
      aliases: ['CVE-2024-0001'],
      events: [],
      advisoryId: expect.stringMatching(CGA),
      author: 'alice@example.com',
    });
  });

  it('keeps presence of the optionals (an explicit "" stays), the literal legacyAdvisoryID name, and server-owned fields', async () => {
    const res = await ctx.api.post(PATH, {
      parent_id: org,
      advisory: {
        ...APK,
        id: 'mine',
        createdAt: '2001-01-01T00:00:00Z',
        deletedAt: '2001-01-01T00:00:00Z',
        component_name: 'libssl',
        componentLocation: '',
        legacyAdvisoryID: 'CGA-abcd-efgh-ijkl',
        legacyAdvisoryId: 'dropped',
      },
    });
    expect(res.body).toMatchObject({ componentName: 'libssl', componentLocation: '', legacyAdvisoryID: 'CGA-abcd-efgh-ijkl' });
    expect(res.body).not.toHaveProperty('componentType');
    expect(res.body).not.toHaveProperty('deletedAt');
    expect(res.body).not.toHaveProperty('legacyAdvisoryId');
    expect(res.body.id).toMatch(CHILD_OF(org));
    expect(res.body.createdAt.startsWith('2026-')).toBe(true);
  });

  it('refuses what it cannot place or name: 3 for parentId, advisory, artifact fields, event types; 5 for a missing group; 6 for a taken advisoryId', async () => {
    for (const body of [{ advisory: APK }, { parentId: org }, { parentId: org, advisory: { artifactType: 'apk' } }, { parentId: org, advisory: { ...APK, events: [{}] } }]) {
      expect((await ctx.api.post(PATH, body)).body).toMatchObject({ code: 3, details: [] });
    }
    const twoTypes = await ctx.api.post(PATH, { parentId: org, advisory: { ...APK, events: [{ fixed: {}, patched: {} }] } });
    expect(twoTypes.body).toMatchObject({ code: 3, message: expect.stringContaining('oneof') });
    expect((await ctx.api.post(PATH, { parentId: 'f'.repeat(40), advisory: APK })).status).toBe(404);
    await ctx.api.post(PATH, { parentId: org, advisory: { ...APK, advisoryId: 'CGA-2222-3333-4444' } });
    expect((await ctx.api.post(PATH, { parentId: org, advisory: { ...APK, advisoryId: 'CGA-2222-3333-4444' } })).body.code).toBe(6);
    const before = ctx.emu.state.counts().advisories;
    expect((await ctx.api.post(PATH, { parentId: org, advisory: { ...APK, events: [{ fixed: {} }, { status: 'APPROVED' }] } })).body.code).toBe(3);
    expect(ctx.emu.state.counts().advisories).toBe(before);
  });

  it('create is a literal POST: with a path it is 405 (PUT and DELETE serve that path)', async () => {
    expect((await ctx.api.post(`${PATH}/${org}`, { advisory: APK }))).toMatchObject({ status: 405, body: { code: 12 } });
  });

  it('renders every event type with its zero values; findings as standard base64; status and FP type as names', async () => {
    const events = [
      { detection: { nvdapi: { cpeSearched: 'cpe:a' } } },
      { detection: { manual: {} } },
      { detection: { scanv1: { subpackage_name: 'libssl3', componentName: 'openssl' } } },
      { fixed: { fixedVersion: '3.0.1' } },
      { falsePositiveDetermination: { type: 'COMPONENT_VULNERABILITY_MISMATCH' } },
      { false_positive_determination: { type: 7, note: 'n' } },
      { analysisNotPlanned: { note: 'a' } },
      { fixNotPlanned: {} },
      { pendingUpstreamFix: { note: 'p' } },
      { truePositiveDetermination: {} },
      { patched: { patchedVersions: ['1.0.0-r1'] } },
      { componentLocationChanged: { previousLocation: '/a', newLocation: '/b' } },
    ];
    const res = await ctx.api.post(PATH, {
      parentId: org,
      advisory: { ...APK, events: [...events, { fixed: {}, findings: '-_-_', status: 3, issue: '', timestamp: '2025-01-02T03:04:05+01:00' }] },
    });
    const out = res.body.events;
    expect(out).toHaveLength(13);
    for (const event of out) expect(event.id).toMatch(CHILD_OF(res.body.id));
    expect(out[0]).toEqual({ id: out[0].id, timestamp: res.body.createdAt, detection: { nvdapi: { cpeSearched: 'cpe:a', cpeFound: '' } }, findings: '', author: '', reviewer: '', status: 'UNKNOWN' });
    expect(out[1].detection).toEqual({ manual: {} });
    expect(out[2].detection.scanv1).toEqual({
      scanner: '', subpackageName: 'libssl3', componentId: '', componentName: 'openssl', componentVersion: '', componentType: '',
      componentLocation: '', artifactVersion: '', scannerVersion: '', grypeDbBuilt: '', grypeDbChecksum: '',
    });
    expect(out[3].fixed).toEqual({ fixedVersion: '3.0.1', note: '', scannerVersion: '', grypeDbBuilt: '', grypeDbChecksum: '' });
    expect(out[4].falsePositiveDetermination).toEqual({ type: 'COMPONENT_VULNERABILITY_MISMATCH', note: '' });
    expect(out[5].falsePositiveDetermination).toEqual({ type: 'INLINE_MITIGATIONS_EXIST', note: 'n' });
    expect(out[7].fixNotPlanned).toEqual({ note: '' });
    expect(out[10].patched).toEqual({ patchedVersions: ['1.0.0-r1'], note: '' });
    expect(out[11].componentLocationChanged).toEqual({ previousLocation: '/a', newLocation: '/b', note: '' });
    expect(out[12]).toMatchObject({ findings: '+/+/', status: 'REQUEST_CHANGES', issue: '', timestamp: '2025-01-02T02:04:05Z' });
    expect(out[0]).not.toHaveProperty('issue');
    expect((await ctx.api.post(PATH, { parentId: org, advisory: { ...APK, events: [{ fixed: {}, findings: 'not base64!' }] } })).body.code).toBe(3);
    expect((await ctx.api.post(PATH, { parentId: org, advisory: { ...APK, events: [{ fixed: {}, status: 'DONE' }] } })).body.code).toBe(3);
  });

  it('PUT replaces the advisory\'s own fields, keeping id, advisoryId, createdAt and its events', async () => {
    const made = await ctx.api.post(PATH, {
      parentId: org,
      advisory: { ...APK, componentName: 'c', aliases: ['CVE-1'], events: [{ fixed: { fixedVersion: '1' } }] },
    });
    const res = await ctx.api.put(`${PATH}/${made.body.id}`, { id: 'x', artifactType: 'image', artifactName: 'nginx', advisoryId: 'CGA-0000-0000-0000', events: [] });
    expect(res.body).toEqual({
      id: made.body.id,
      artifactType: 'image',
      artifactName: 'nginx',
      artifactArchitecture: '',
      createdAt: made.body.createdAt,
      updatedAt: expect.stringMatching(MICROS_TIMESTAMP),
      aliases: [],
      events: made.body.events,
      advisoryId: made.body.advisoryId,
      author: '',
    });
    expect(res.body.updatedAt).not.toBe(made.body.updatedAt);
    expect((await ctx.api.put(`${PATH}/${org}/0000000000000000`, APK)).body.code).toBe(5);
    expect((await ctx.api.put(`${PATH}/${made.body.id}`, { artifactType: 'image' })).body.code).toBe(3);
  });

  it('DELETE is a soft delete: deletedAt appears, the advisory stays listed, and every later write is 9', async () => {
    const made = await ctx.api.post(PATH, { parentId: org, advisory: { ...APK, events: [{ detection: { manual: {} } }] } });
    expect((await ctx.api.del(`${PATH}/${made.body.id}`)).body).toEqual({});
    const [row] = (await ctx.api.get(`${PATH}?id=${made.body.id}`)).body.items;
    expect(row).toMatchObject({ id: made.body.id, deletedAt: expect.stringMatching(MICROS_TIMESTAMP), updatedAt: made.body.updatedAt });
    const eventId = made.body.events[0].id;
    expect((await ctx.api.del(`${PATH}/${made.body.id}`)).body.code).toBe(9);
    expect((await ctx.api.put(`${PATH}/${made.body.id}`, APK)).body.code).toBe(9);
    expect((await ctx.api.post(`${PATH}/${made.body.id}/events`, { advisoryEvent: { fixed: {} } })).body.code).toBe(9);
    expect((await ctx.api.put(`/vulnerabilities/v1/advisory_events/${eventId}`, { fixed: {} })).body.code).toBe(9);
    expect((await ctx.api.del(`${PATH}/${org}/0000000000000000`)).body.code).toBe(5);
  });

  it('an advisory, deleted or not, keeps its group from being deleted (9)', async () => {
    const g = ctx.emu.state.createGroup(null, { name: 'advisory-owner' }).id;
    const advisory = ctx.emu.state.createAdvisory(g, APK);
    ctx.emu.state.deleteAdvisory(advisory.id);
    expect((await ctx.api.del(`/iam/v1/groups/${g}`)).body.code).toBe(9);
  });
});

describe('v1 advisory events', () => {
  const ctx = useEmulator({ clock: pinnedClock() });
  const w = {} as { org: string; advisory: string; other: string };
  beforeAll(() => {
    const { state } = ctx.emu;
    w.org = state.createGroup(null, { name: 'event-org' }).id;
    w.advisory = state.createAdvisory(w.org, { ...APK, events: [{ detection: { manual: {} }, author: 'a' }] }).id;
    w.other = state.createAdvisory(w.org, { ...APK, events: [{ fixed: {} }] }).id;
  });

  it('POST {parent_id}/events takes {advisoryEvent}, makes a child of the advisory and moves its updatedAt', async () => {
    const before = ctx.emu.state.listAdvisories({ id: w.advisory }).items[0]!;
    const res = await ctx.api.post(`${PATH}/${w.advisory}/events`, { parentId: 'ignored', advisoryEvent: { fixed: { fixedVersion: '2' }, status: 'PENDING', author: 'b' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(CHILD_OF(w.advisory)),
      timestamp: expect.stringMatching(MICROS_TIMESTAMP),
      fixed: { fixedVersion: '2', note: '', scannerVersion: '', grypeDbBuilt: '', grypeDbChecksum: '' },
      findings: '',
      author: 'b',
      reviewer: '',
      status: 'PENDING',
    });
    const after = ctx.emu.state.listAdvisories({ id: w.advisory }).items[0]!;
    expect(after.updatedAt).not.toBe(before.updatedAt);
    expect(after.events.map((e) => e.id)).toEqual([...before.events.map((e) => e.id), res.body.id]);
    expect((await ctx.api.post(`${PATH}/${w.advisory}/events`, {})).body).toMatchObject({ code: 3, message: expect.stringContaining('advisory_event') });
    expect((await ctx.api.post(`${PATH}/${w.org}/0000000000000000/events`, { advisoryEvent: { fixed: {} } })).body.code).toBe(5);
    expect((await ctx.api.post(`${PATH}/events`, { advisoryEvent: { fixed: {} } })).body.code).toBe(3);
  });

  it('GET {parent_id}/events answers {parentId, items}: an advisory\'s events, one event by its id, or a whole group\'s', async () => {
    const mine = await ctx.api.get(`${PATH}/${w.advisory}/events`);
    expect(Object.keys(mine.body)).toEqual(['parentId', 'items']);
    expect(mine.body.parentId).toBe(w.advisory);
    expect(mine.body.items.every((e: { id: string }) => e.id.startsWith(`${w.advisory}/`))).toBe(true);
    const one = mine.body.items[0].id as string;
    expect(ids(await ctx.api.get(`${PATH}/${one}/events`))).toEqual([one]);
    const all = await ctx.api.get(`${PATH}/${w.org}/events`);
    expect(new Set(all.body.items.map((e: { id: string }) => e.id.split('/').slice(0, 2).join('/')))).toEqual(new Set([w.advisory, w.other]));
    expect((await ctx.api.get(`${PATH}/${w.org}/ffffffffffffffff/events`)).body).toEqual({ parentId: `${w.org}/ffffffffffffffff`, items: [] });
    expect((await ctx.api.get(`${PATH}/events`)).body.code).toBe(3);
  });

  it('PUT /advisory_events/{id} replaces the event; an omitted timestamp keeps the event\'s time; missing is 5', async () => {
    const made = ctx.emu.state.createAdvisoryEvent(w.other, { pendingUpstreamFix: { note: 'wait' }, reviewer: 'r', issue: 'i', timestamp: '2025-05-05T05:05:05Z' });
    const res = await ctx.api.put(`/vulnerabilities/v1/advisory_events/${made.id}`, { id: 'x', fixed: { note: 'done' }, status: 'APPROVED' });
    expect(res.body).toEqual({
      id: made.id,
      timestamp: '2025-05-05T05:05:05Z',
      fixed: { fixedVersion: '', note: 'done', scannerVersion: '', grypeDbBuilt: '', grypeDbChecksum: '' },
      findings: '',
      author: '',
      reviewer: '',
      status: 'APPROVED',
    });
    expect((await ctx.api.put(`/vulnerabilities/v1/advisory_events/${made.id}`, { status: 'APPROVED' })).body.code).toBe(3);
    expect((await ctx.api.put(`/vulnerabilities/v1/advisory_events/${w.other}/0000000000000000`, { fixed: {} })).body.code).toBe(5);
    expect((await ctx.api.get(`/vulnerabilities/v1/advisory_events/${made.id}`)).status).toBe(405);
  });
});
