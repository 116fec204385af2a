/** v1's public advisory feed: documents by id or CVE, and metadata paged by v1 itself. */
import { describe, expect, it } from 'vitest';
import { useEmulator } from './helpers.ts';

describe('v1 advisory feed', () => {
  const ctx = useEmulator({});

  it('pages metadata with its own tokens bound to the order, and filters documents by CVE alias', async () => {
    for (const id of ['CVE-3', 'CVE-1', 'CVE-2']) ctx.emu.state.advisoryFeed.addMetadata({ id, summary: '', details: '', references: [], severity: [] });
    ctx.emu.state.advisoryFeed.addDocument({ id: 'pkg', advisories: [{ id: 'CGA-1', aliases: ['CVE-1'], events: [], packageNamespace: 'wolfi' }] });
    const first = await ctx.api.get('/advisory/v1/metadata?pageSize=2&orderBy=id%20desc');
    expect(first.body.items.map((m: any) => m.id)).toEqual(['CVE-3', 'CVE-2']);
    expect(first.body).toMatchObject({ totalCount: '3', skipped: 0 });
    const next = await ctx.api.get(`/advisory/v1/metadata?pageSize=2&orderBy=id%20desc&pageToken=${first.body.nextPageToken}`);
    expect(next.body.items.map((m: any) => m.id)).toEqual(['CVE-1']);
    expect(next.body.nextPageToken).toBe('');
    expect((await ctx.api.get(`/advisory/v1/metadata?pageToken=${first.body.nextPageToken}`)).status).toBe(400);
    expect((await ctx.api.get('/advisory/v1/metadata?orderBy=summary')).status).toBe(400);
    expect((await ctx.api.get('/advisory/v1/documents?cves=CVE-1')).body.items.map((d: any) => d.id)).toEqual(['pkg']);
    expect((await ctx.api.get('/advisory/v1/documents?cves=CVE-9')).body.items).toEqual([]);
  });
});
