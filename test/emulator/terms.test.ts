/** v1 `/iam/v1/terms/{group=**}` and its TermsNotAccepted refusal, from the v1 facts. */
import { describe, expect, it } from 'vitest';
import { jwt } from '../support/jwt.ts';
import { client, useEmulator } from './helpers.ts';

describe('v1 terms', () => {
  const ctx = useEmulator({ requiredTerms: ['sfdpa.v1'] });

  it('records acceptances once, lists them with the ancestors\', and names the acceptor by subject', async () => {
    const org = (await ctx.api.post('/iam/v1/groups', { name: 'terms-v1' })).body.id;
    const team = (await ctx.api.post(`/iam/v1/groups/${org}`, { name: 'team' })).body.id;
    const alice = client(ctx.emu.url, jwt({ iss: 'https://issuer.example', sub: 'alice' }));
    expect((await alice.post(`/iam/v1/terms/${org}`, { documentIds: ['sfdpa.v1'] })).body).toEqual({ group: org, documentIds: ['sfdpa.v1'] });
    await ctx.api.post(`/iam/v1/terms/${org}`, { document_ids: ['sfdpa.v1'] });
    const listed = await ctx.api.get(`/iam/v1/terms/${team}`);
    expect(listed.body.items).toEqual([{ docId: 'sfdpa.v1', acceptedBy: 'alice', acceptedAt: expect.stringMatching(/Z$/) }]);
    expect((await ctx.api.post(`/iam/v1/terms/${org}`, { documentIds: [] })).status).toBe(400);
    expect((await ctx.api.get(`/iam/v1/terms/${org}/0123456789abcdef`)).status).toBe(404);
  });

  it('refuses a repo in an organisation that has not accepted a required document, with the v1 detail; never shows a token', async () => {
    const org = (await ctx.api.post('/iam/v1/groups', { name: 'terms-gate-v1' })).body.id;
    const refused = await ctx.api.post(`/registry/v1/repos/${org}`, { name: 'app' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      code: 9, message: 'terms not accepted',
      details: [{ '@type': 'type.googleapis.com/chainguard.platform.iam.TermsNotAcceptedDetail', missing: [{ id: 'sfdpa.v1', label: expect.any(String), url: expect.any(String) }] }],
    });
    await ctx.api.post(`/iam/v1/terms/${org}`, { documentIds: ['sfdpa.v1'] });
    expect((await ctx.api.get(`/iam/v1/terms/${org}`)).body.items[0].acceptedBy).not.toContain('test-token');
    expect((await ctx.api.post(`/registry/v1/repos/${org}`, { name: 'app' })).status).toBe(200);
  });
});
