/** v1's email-domain flows: groups:lookupGroup, groups:checkEligibility and {group_id}:requestGroupAccess. */
import { describe, expect, it } from 'vitest';
import { jwt, trustedCaller } from '../support/jwt.ts';
import { client, useEmulator } from './helpers.ts';

describe('v1 email-domain group flows', () => {
  const ctx = useEmulator({});
  const as = (token: string) => client(ctx.emu.url, token);

  it('looks up the verified organisation named after the caller\'s email domain', async () => {
    const org = await ctx.api.post('/iam/v1/groups', { name: 'lookup.example', verified: true });
    expect(org.status).toBe(200);
    const found = await as(trustedCaller('ada@lookup.example')).get('/iam/v1/groups:lookupGroup');
    expect(found.status).toBe(200);
    expect(found.body.group).toMatchObject({ id: org.body.id, name: 'lookup.example', verified: true });
  });

  it('collapses every failing gate into NOT_FOUND', async () => {
    await ctx.api.post('/iam/v1/groups', { name: 'gates.example', verified: true });
    await ctx.api.post('/iam/v1/groups', { name: 'unverified.example' });
    const callers = [
      jwt({ iss: 'https://issuer.invalid', sub: 'x', email: 'ada@gates.example', email_verified: true }),
      jwt({ iss: 'https://accounts.google.com', sub: 'x', email: 'ada@gates.example', email_verified: false }),
      trustedCaller('ada@unverified.example'),
      trustedCaller('ada@gmail.com'),
      'an-opaque-token',
    ];
    for (const token of callers) {
      const reply = await as(token).get('/iam/v1/groups:lookupGroup');
      expect(reply.status, token).toBe(404);
      expect(reply.body.code).toBe(5);
    }
  });

  it('reports eligibility by the same gates', async () => {
    expect((await as(trustedCaller('ada@anything.example')).get('/iam/v1/groups:checkEligibility')).body).toEqual({ eligible: true });
    expect((await as(trustedCaller('ada@gmail.com')).get('/iam/v1/groups:checkEligibility')).body).toEqual({ eligible: false });
    expect((await as('an-opaque-token').get('/iam/v1/groups:checkEligibility')).body).toEqual({ eligible: false });
  });

  it('records an access request to the caller\'s organisation once, and refuses a repeat with RESOURCE_EXHAUSTED', async () => {
    const org = await ctx.api.post('/iam/v1/groups', { name: 'access.example', verified: true });
    const caller = as(trustedCaller('bob@access.example'));
    const first = await caller.post(`/iam/v1/groups/${org.body.id}:requestGroupAccess`, {});
    expect(first.status).toBe(200);
    expect(first.body).toEqual({});
    expect(ctx.emu.state.accessRequestsTo(org.body.id)).toHaveLength(1);
    const again = await caller.post(`/iam/v1/groups/${org.body.id}:requestGroupAccess`, {});
    expect(again.status).toBe(429);
    expect(again.body.code).toBe(8);
    expect(ctx.emu.state.accessRequestsTo(org.body.id)).toHaveLength(1);
    // Another organisation's uid, or a caller of another domain: NOT_FOUND, nothing recorded.
    const other = await ctx.api.post('/iam/v1/groups', { name: 'other.example', verified: true });
    expect((await caller.post(`/iam/v1/groups/${other.body.id}:requestGroupAccess`, {})).status).toBe(404);
    expect(ctx.emu.state.accessRequestsTo(other.body.id)).toEqual([]);
  });

  it('does not mistake a verb for a create: POST groups/<uid>:requestGroupAccess makes no group', async () => {
    const org = await ctx.api.post('/iam/v1/groups', { name: 'verb.example', verified: true });
    const before = (await ctx.api.get('/iam/v1/groups')).body.items.length;
    await as('an-opaque-token').post(`/iam/v1/groups/${org.body.id}:requestGroupAccess`, { name: 'not-a-group' });
    expect((await ctx.api.get('/iam/v1/groups')).body.items.length).toBe(before);
  });
});
