import { describe, expect, it } from 'vitest';
import { REPO, UIDP_FILTER } from '../../src/emulator/v1/messages.ts';
import { decodeMessage, decodeQuery, renderMessage } from '../../src/emulator/v1/protojson.ts';
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
