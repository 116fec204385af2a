/**
 * A walk of a 10,000-group collection, page_size 50 (200 pages), through a
 * gateway with the walk cache (the default) and through one without it
 * (`--walk-cache-ms 0`), each its own process against the same emulator
 * process: wall time, v1 calls (x-v2gw-v1-calls), full v1 fetches, and the
 * first page against the mean later page. `node bench/walk.ts [--groups N]`.
 */
import { parseArgs } from 'node:util';
import { startEmulator, startGateway } from './lib/stack.ts';

const { values } = parseArgs({ options: { groups: { type: 'string', default: '10000' }, 'page-size': { type: 'string', default: '50' } } });
const groups = Number(values.groups);
const pageSize = Number(values['page-size']);

interface Walked { pages: number; rows: number; v1Calls: number; fullFetches: number; seconds: number; firstMs: number; laterMs: number }

/** Later pages served from a kept walk so far, from the gateway's own metrics. */
async function walkHits(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^v2gw_cache_lookups_total\{cache="walk",result="hit"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

async function walk(url: string, org: string): Promise<Walked> {
  let token = '';
  const times: number[] = [];
  let rows = 0;
  let v1Calls = 0;
  let fullFetches = 0;
  const hitsBefore = await walkHits(url);
  const started = performance.now();
  do {
    const query = new URLSearchParams({ 'uidp.children_of': org, page_size: String(pageSize), ...(token ? { page_token: token } : {}) });
    const at = performance.now();
    const reply = await fetch(`${url}/iam/v2beta1/groups?${query}`, { headers: { authorization: 'Bearer bench' } });
    const body = (await reply.json()) as { groups: unknown[]; nextPageToken?: string };
    times.push(performance.now() - at);
    if (reply.status !== 200) throw new Error(`walk: ${reply.status} ${JSON.stringify(body)}`);
    v1Calls += Number(reply.headers.get('x-v2gw-v1-calls'));
    rows += body.groups.length;
    token = body.nextPageToken ?? '';
  } while (token);
  // A later page served from a known walk asked v1 by id; every other page fetched the whole list.
  fullFetches = times.length - (await walkHits(url) - hitsBefore);
  const later = times.slice(1);
  return { pages: times.length, rows, v1Calls, fullFetches, seconds: (performance.now() - started) / 1000, firstMs: times[0]!, laterMs: later.reduce((a, b) => a + b, 0) / Math.max(1, later.length) };
}

const emulator = await startEmulator(groups);
const cached = await startGateway('gateway-walk-cache', emulator.url, undefined, [], ['--debug-headers']);
const uncached = await startGateway('gateway-no-walk-cache', emulator.url, undefined, [], ['--debug-headers', '--walk-cache-ms', '0']);
try {
  // One walk each to warm up, then the measured one.
  for (const gateway of [cached, uncached]) await walk(gateway.url, emulator.org);
  const results = { 'walk cache (default)': await walk(cached.url, emulator.org), 'no walk cache': await walk(uncached.url, emulator.org) };
  console.log(`walk of ${groups} groups, page_size ${pageSize}`);
  console.log('| gateway | pages | rows | v1 calls | full v1 fetches | wall s | first page ms | mean later page ms |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name, r] of Object.entries(results)) {
    console.log(`| ${name} | ${r.pages} | ${r.rows} | ${r.v1Calls} | ${r.fullFetches} | ${r.seconds.toFixed(2)} | ${r.firstMs.toFixed(1)} | ${r.laterMs.toFixed(1)} |`);
  }
  const [a, b] = Object.values(results);
  console.log(`later pages: ${(b!.laterMs / a!.laterMs).toFixed(1)}x faster with the walk cache; whole walk ${(b!.seconds / a!.seconds).toFixed(1)}x`);
} finally {
  await cached.child.stop();
  await uncached.child.stop();
  await emulator.child.stop();
}
