import { describe, expect, it } from 'vitest';
import { REPO, UIDP_FILTER } from '../../src/emulator/v1/messages.ts';
import { decodeMessage, decodeQuery, field, message, renderMessage } from '../../src/emulator/v1/protojson.ts';
import { matchRoute, type Route } from '../../src/emulator/v1/router.ts';
import { formatMicros, formatTimestamp, parseTimestamp } from '../../src/emulator/v1/time.ts';
import { MICROS_TIMESTAMP, pinnedClock, useEmulator } from './helpers.ts';

describe('timestamps', () => {
  it('print like protojson: 0, 3, 6 or 9 fractional digits, always UTC Z', () => {
    expect(formatTimestamp({ seconds: 1_795_000_000, nanos: 0 })).toBe('2026-11-18T11:06:40Z');
    expect(formatTimestamp({ seconds: 1_795_000_000, nanos: 120_000_000 })).toBe('2026-11-18T11:06:40.120Z');
    expect(formatMicros(1_795_000_000_123_456)).toBe('2026-11-18T11:06:40.123456Z');
    expect(formatTimestamp({ seconds: 1_795_000_000, nanos: 1 })).toBe('2026-11-18T11:06:40.000000001Z');
  });

  it('parse RFC 3339 with offsets and reject impossible dates', () => {
    expect(parseTimestamp('2026-11-18T12:06:40.5+01:00')).toEqual({ seconds: 1_795_000_000, nanos: 500_000_000 });
    expect(parseTimestamp('2026-02-30T00:00:00Z')).toBeUndefined();
    expect(parseTimestamp('2026-11-18 10:46:40Z')).toBeUndefined();
  });
});

describe('protojson codec', () => {
  it('decodes JSON or proto names into one key and refuses a second oneof member', () => {
    expect(decodeMessage(UIDP_FILTER, { in_root: true, childrenOf: 'x', extra: 1 })).toEqual({ inRoot: true, childrenOf: 'x' });
    expect(() => decodeMessage(UIDP_FILTER, { inRoot: true, in_root: false })).toThrow(/duplicate/);
  });

  it('omits an unset proto3 optional field but emits a set zero', () => {
    const users = (gid?: number) =>
      renderMessage(REPO, { customOverlay: { accounts: { users: [gid === undefined ? { uid: 1 } : { uid: 1, gid }] } } }) as any;
    expect(users().customOverlay.accounts.users[0]).not.toHaveProperty('gid');
    expect(users(0).customOverlay.accounts.users[0].gid).toBe(0);
  });

  it('reads dotted, repeated query keys in either spelling', () => {
    const q = new URLSearchParams('uidp.ids=a&uidp.ids=b&uidp.descendants_of=c&uidp=ignored');
    expect(decodeQuery(UIDP_FILTER, new URLSearchParams('ids=a'))).toEqual({ ids: ['a'] });
    expect(decodeQuery({ name: 'F', fields: [{ proto: 'uidp', json: 'uidp', type: UIDP_FILTER, card: 'single' }] }, q)).toEqual({
      uidp: { ids: ['a', 'b'], descendantsOf: 'c' },
    });
  });
});

describe('int64, bytes and Duration', () => {
  const SCALARS = message('Scalars', [
    field('count', 'int64'),
    field('blob', 'bytes'),
    field('ttl', 'duration'),
    field('by_id', 'string', { card: 'map', key: 'int64' }),
  ]);

  it('int64: numbers or decimal strings in, canonical strings kept and printed, range checked, "0" when unset', () => {
    expect(decodeMessage(SCALARS, { count: 42, by_id: { '007': 'x', '-1': 'y' } })).toEqual({ count: '42', byId: { '7': 'x', '-1': 'y' } });
    expect(decodeMessage(SCALARS, { count: '-9223372036854775808' }).count).toBe('-9223372036854775808');
    for (const count of ['9223372036854775808', '1.5', 1.5, '', 'x', true]) expect(() => decodeMessage(SCALARS, { count })).toThrow(/int64/);
    expect(() => decodeMessage(SCALARS, { by_id: { x: 'y' } })).toThrow(/int64/);
    expect(renderMessage(SCALARS, {})).toEqual({ count: '0', blob: '', ttl: null, byId: {} });
    expect(decodeQuery(SCALARS, new URLSearchParams('count=12'))).toEqual({ count: '12' });
  });

  it('bytes: standard or URL-safe base64, padded or not, printed standard and padded', () => {
    expect(decodeMessage(SCALARS, { blob: 'aGk' }).blob).toBe('aGk=');
    expect(decodeMessage(SCALARS, { blob: '-_8' }).blob).toBe('+/8=');
    for (const blob of ['a', 'a b', '*', 7]) expect(() => decodeMessage(SCALARS, { blob })).toThrow(/bytes/);
  });

  it('Duration: "<seconds>[.fraction]s", printed with 0, 3, 6 or 9 digits, within ±10,000 years', () => {
    const ttl = (value: unknown) => decodeMessage(SCALARS, { ttl: value }).ttl;
    expect(ttl('3600s')).toBe('3600s');
    expect(ttl('3600.000s')).toBe('3600s');
    expect(ttl('1.5s')).toBe('1.500s');
    expect(ttl('-0.000001s')).toBe('-0.000001s');
    expect(ttl('0.000000001s')).toBe('0.000000001s');
    expect(ttl('-0s')).toBe('0s');
    for (const bad of ['3600', '1h', '1e3s', '315576000001s', 3600, '1.0000000001s']) expect(() => ttl(bad)).toThrow(/Duration/);
  });
});

describe('router', () => {
  const route = (method: Route['method'], path: string, extra: Partial<Route> = {}): Route => ({ method, path, decode: () => null, run: () => null, ...extra });
  const routes = [
    route('PUT', '/v/advisories', { capture: true }),
    route('POST', '/v/advisories', { capture: true, suffix: 'events' }),
  ];

  it('a `{x=**}/suffix` template captures everything between, possibly nothing, and is matched from the end', () => {
    expect(matchRoute(routes, 'POST', '/v/advisories/a/b/events')).toMatchObject({ capture: 'a/b' });
    expect(matchRoute(routes, 'POST', '/v/advisories/events')).toMatchObject({ capture: '' });
    expect(matchRoute(routes, 'POST', '/v/advisories/events/events')).toMatchObject({ capture: 'events' });
    expect(matchRoute(routes, 'POST', '/v/advisoriesx/events')).toBe('not-found');
    expect(matchRoute(routes, 'POST', '/v/advisories/a/eventsx')).toBe('method-not-allowed');
    expect(matchRoute(routes, 'PUT', '/v/advisories/a/events')).toMatchObject({ capture: 'a/events' });
  });
});

describe('server timestamps', () => {
  const ctx = useEmulator({ clock: pinnedClock() });

  it('carry microseconds, like a PostgreSQL-backed server', async () => {
    const group = await ctx.api.post('/iam/v1/groups', { name: 'clocked' });
    expect(group.body.createdAt).toBe('2026-11-18T11:06:40.123456Z');
    const org = group.body.id as string;
    const identity = await ctx.api.post(`/iam/v1/identities/${org}`, { name: 'i', servicePrincipal: 'COSIGNED' });
    const repo = await ctx.api.post(`/registry/v1/repos/${org}`, { name: 'r' });
    for (const ts of [identity.body.createdAt, identity.body.lastSeen, repo.body.createTime]) expect(ts).toMatch(MICROS_TIMESTAMP);
  });
});
