/** The store's query time as a metric, on both engines: each SQL operation timed by OpenTelemetry's database names, over real ports. */
import { expect, it } from 'vitest';
import { describeModes } from '../../support/modes.ts';
import type { Client } from '../../support/stack.ts';

/** The `db_client_operation_duration_seconds_count` samples of one scrape, by their label text. */
async function storeQueryCounts(client: Client): Promise<Map<string, number>> {
  const reply = await client.get('/metrics');
  expect(reply.status).toBe(200);
  const counts = new Map<string, number>();
  for (const line of reply.text.split('\n')) {
    const match = /^db_client_operation_duration_seconds_count\{(.*)\} (\d+)$/.exec(line);
    if (match) counts.set(match[1]!, Number(match[2]));
  }
  return counts;
}

const count = (counts: Map<string, number>, labels: Record<string, string>) =>
  [...counts].filter(([key]) => Object.entries(labels).every(([k, v]) => key.includes(`${k}="${v}"`))).reduce((sum, [, n]) => sum + n, 0);

describeModes('store query time', (stack, mode) => {
  const system = mode === 'native-pg' ? 'postgresql' : 'sqlite';

  it('times each store query by operation and table, and a create adds an INSERT', async () => {
    const before = await storeQueryCounts(stack().client);
    const created = await stack().client.post('/iam/v2beta1/groups', { name: 'metered' });
    expect(created.status).toBe(200);
    expect((await stack().client.get(`/iam/v2beta1/groups/${created.body.uid}`)).status).toBe(200);
    const after = await storeQueryCounts(stack().client);
    const delta = (labels: Record<string, string>) => count(after, labels) - count(before, labels);
    const resources = { db_system_name: system, db_collection_name: 'v2gw_resources' };
    expect(delta({ ...resources, db_operation_name: 'INSERT' })).toBe(1);
    expect(delta({ ...resources, db_operation_name: 'SELECT' })).toBeGreaterThanOrEqual(1);
    // The exposition names operations and tables only: never a uid or a value the caller sent.
    const text = (await stack().client.get('/metrics')).text;
    expect(text).not.toContain(created.body.uid);
    expect(text).not.toContain('metered');
    expect(text).toMatch(/^# TYPE db_client_operation_duration_seconds histogram$/m);
    expect(text).toMatch(/^db_client_operation_duration_seconds_bucket\{le="0\.001",.*db_operation_name="INSERT"/m);
  });
}, { modes: ['native', 'native-pg'] });
