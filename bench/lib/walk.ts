/**
 * A walk of a collection through the gateway, page by page, as a client that
 * reads it all does: wall time, v1 calls (the gateway's `x-v2gw-v1-calls`,
 * so it must run with `--debug-headers`), full v1 fetches, and the first page
 * against the mean later page. A later page served from the walk cache asks v1
 * for its rows by id; every other page fetches v1's whole list, so the full
 * fetches are the pages less the cache's hits (from the gateway's /metrics).
 */
import { AUTHORIZATION } from './targets.ts';

export interface Walked {
  pages: number;
  rows: number;
  v1Calls: number;
  fullFetches: number;
  seconds: number;
  firstMs: number;
  laterMs: number;
}

async function walkHits(gateway: string): Promise<number> {
  const text = await (await fetch(`${gateway}/metrics`)).text();
  return Number(/^v2gw_cache_lookups_total\{cache="walk",result="hit"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

/** Walks `uidp.children_of=<org>` in pages of `pageSize`, to the end or for `maxPages` pages. */
export async function walk(gateway: string, org: string, pageSize: number, maxPages = Infinity): Promise<Walked> {
  let token = '';
  const times: number[] = [];
  let rows = 0;
  let v1Calls = 0;
  const hitsBefore = await walkHits(gateway);
  const started = performance.now();
  do {
    const query = new URLSearchParams({ 'uidp.children_of': org, page_size: String(pageSize), ...(token ? { page_token: token } : {}) });
    const at = performance.now();
    const reply = await fetch(`${gateway}/iam/v2beta1/groups?${query}`, { headers: { authorization: AUTHORIZATION } });
    const body = (await reply.json()) as { groups?: unknown[]; nextPageToken?: string };
    times.push(performance.now() - at);
    if (reply.status !== 200 || !Array.isArray(body.groups)) throw new Error(`walk: page ${times.length} answered ${reply.status}: ${JSON.stringify(body).slice(0, 300)}`);
    v1Calls += Number(reply.headers.get('x-v2gw-v1-calls'));
    rows += body.groups.length;
    token = body.nextPageToken ?? '';
  } while (token && times.length < maxPages);
  const seconds = (performance.now() - started) / 1000;
  const fullFetches = times.length - ((await walkHits(gateway)) - hitsBefore);
  const later = times.slice(1);
  return { pages: times.length, rows, v1Calls, fullFetches, seconds, firstMs: times[0]!, laterMs: later.reduce((a, b) => a + b, 0) / Math.max(1, later.length) };
}
