/**
 * A page token across a gateway restart, over real HTTP against the v1 emulator: with a random key
 * (no --page-token-key) the restarted gateway refuses it and says why and what to set; with a
 * configured key the next page is served as if nothing happened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/v1/index.ts';
import { aip, Client, startGateway } from '../../support/stack.ts';

describe('a page token from before a restart', () => {
  let emulator: RunningEmulator;
  let org: string;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    const { gateway, url } = await startGateway(emulator.url);
    try {
      const client = new Client(url);
      org = (await client.post('/iam/v2beta1/groups', { name: 'restart-org' })).body.uid;
      for (const name of ['a', 'b', 'c']) await client.post(`/iam/v2beta1/groups/${org}`, { name });
    } finally {
      await gateway.close();
    }
  });
  afterAll(async () => emulator?.close());

  /** The first page's token from one gateway, then the next page from a second one, started after the first closed. */
  async function acrossRestart(flags: string[]) {
    const query = { 'uidp.children_of': org, page_size: 1 };
    const before = await startGateway(emulator.url, flags);
    const token: string = (await new Client(before.url).get('/iam/v2beta1/groups', query)).body.nextPageToken;
    await before.gateway.close();
    expect(token).toBeTruthy();
    const after = await startGateway(emulator.url, flags);
    try {
      return await new Client(after.url).get('/iam/v2beta1/groups', { ...query, page_token: token });
    } finally {
      await after.gateway.close();
    }
  }

  it('with a random key per process is refused, saying it was sealed by another key and naming --page-token-key', async () => {
    const reply = await acrossRestart([]);
    expect(reply.status).toBe(400);
    const violation = aip(reply).byType.BadRequest.fieldViolations[0];
    expect(violation.field).toBe('page_token');
    expect(violation.description).toMatch(/sealed by another key/);
    expect(violation.description).toMatch(/restart/);
    expect(violation.description).toContain('--page-token-key');
  });

  it('with --page-token-key serves the next page', async () => {
    const reply = await acrossRestart(['--page-token-key', 'a shared secret of the replicas']);
    expect(reply.status).toBe(200);
    expect(reply.body.groups).toHaveLength(1);
  });
});
