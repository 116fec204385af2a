/**
 * `node bench/events.ts [--writes n] [--deliveries n] [--concurrency n]`
 *
 * Native mode's events, on SQLite in a data directory (the gateway in this
 * process, built as the CLI builds it, with an HTTPS sink that answers 200 at
 * once):
 *
 * - what a write costs with one subscription against none: --writes group
 *   creations, one at a time, alternating between an organisation without a
 *   subscription and one with a subscription (the outbox row in the write's
 *   transaction, and the delivery this process then makes), mean, p50, p99 per write;
 * - deliveries per second from one gateway to one sink, two ways: --deliveries
 *   group creations with --concurrency in flight, timed from the first write to
 *   the sink having every delivery (bounded by the writes); and the deliverer
 *   alone: --deliveries rows put in the outbox at once (copies of a real
 *   event, each still signed on its own), timed until the sink has them all.
 */
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildGateway, loadConfig, openStore } from '../src/index.ts';

const { values: flags } = parseArgs({
  options: {
    writes: { type: 'string', default: '400' },
    deliveries: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
  },
  strict: true,
});

const tls = new URL('../test/fixtures/tls/', import.meta.url);
const cert = readFileSync(new URL('cert.pem', tls), 'utf8');
let received = 0;
const sink = createServer({ cert, key: readFileSync(new URL('key.pem', tls), 'utf8') }, (req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(200).end();
  });
});
sink.listen(0, '127.0.0.1');
await once(sink, 'listening');
const sinkUrl = `https://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`;

const dir = mkdtempSync(join(tmpdir(), 'v2gw-bench-events-'));
const config = await loadConfig(['--mode', 'native', '--data-dir', dir, '--log-level', 'warn', '--events-allow-private-sinks', '--events-poll-ms', '20'], {});
const store = await openStore(dir);
const gateway = await buildGateway(config, { store, events: { sinkCa: cert } });
const base = await gateway.listen({ port: 0, host: '127.0.0.1' });

async function post(path: string, body: unknown): Promise<any> {
  const response = await fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', authorization: 'Bearer bench' } });
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Alternating the two organisations' writes, so neither side gets the quieter moments of a loaded machine. */
async function writes(orgs: readonly string[], n: number, label: string): Promise<number[][]> {
  const times = orgs.map(() => [] as number[]);
  for (let i = 0; i < n; i++) {
    for (const [k, org] of orgs.entries()) {
      const start = performance.now();
      await post(`/iam/v2beta1/groups/${org}`, { name: `${label}-${i}` });
      times[k]!.push(performance.now() - start);
    }
  }
  return times;
}

function summary(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return `mean ${mean.toFixed(2)} ms, p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} ms, p99 ${sorted[Math.floor(sorted.length * 0.99)]!.toFixed(2)} ms`;
}

async function until(count: number): Promise<void> {
  while (received < count) await new Promise((r) => setTimeout(r, 5));
}

try {
  const n = Number(flags.writes);
  const quietOrg = (await post('/iam/v2beta1/groups', { name: 'no-subscription' })).uid;
  const busyOrg = (await post('/iam/v2beta1/groups', { name: 'one-subscription' })).uid;
  await post(`/events/v2beta1/subscriptions/${busyOrg}`, { sink: sinkUrl });
  await until(1);
  received = 0;
  // Warm both paths, then measure each.
  await writes([quietOrg, busyOrg], 50, 'warm');
  await until(50);
  received = 0;
  const [none, one] = await writes([quietOrg, busyOrg], n, 'w') as [number[], number[]];
  await until(n);
  received = 0;

  const total = Number(flags.deliveries);
  const concurrency = Number(flags.concurrency);
  let next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) await post(`/iam/v2beta1/groups/${busyOrg}`, { name: `d-${next++}` });
  }));
  const written = performance.now();
  await until(total);
  const done = performance.now();

  // The deliverer alone: the outbox filled at once with copies of one delivery (distinct event ids).
  received = 0;
  const rows = Array.from({ length: total }, (_, i) => ({
    eventId: `bench-${i}`, subscription: `${busyOrg}/0000000000000000`, sink: sinkUrl, group: busyOrg,
    attributes: JSON.stringify({ specversion: '1.0', id: `bench-${i}`, source: base, type: 'dev.chainguard.api.iam.group.created.v1', subject: `${busyOrg}/0000000000000001`, time: new Date().toISOString(), datacontenttype: 'application/json', extensions: { group: busyOrg, bodytype: 'chainguard.platform.iam.v2beta1.Group' } }),
    data: JSON.stringify({ actor: { subject: '' }, body: { uid: `${busyOrg}/0000000000000001`, name: 'bench', description: '', createTime: new Date().toISOString(), updateTime: new Date().toISOString() } }),
  }));
  const filled = performance.now();
  await store.events.append(rows, Date.now());
  await until(total);
  const drained = performance.now();

  console.log(`load average (1, 5, 15 min) at the end: ${loadavg().map((l) => l.toFixed(2)).join(', ')}`);
  console.log(`write, no subscription:   ${summary(none)}`);
  console.log(`write, one subscription:  ${summary(one)}`);
  console.log(`deliveries: ${total} in ${((done - start) / 1000).toFixed(2)} s from the first write = ${(total / ((done - start) / 1000)).toFixed(0)}/s; writes answered in ${((written - start) / 1000).toFixed(2)} s, the outbox drained ${((done - written) / 1000).toFixed(2)} s later`);
  console.log(`deliverer alone: ${total} outbox rows delivered in ${((drained - filled) / 1000).toFixed(2)} s = ${(total / ((drained - filled) / 1000)).toFixed(0)}/s`);
} finally {
  await gateway.close();
  await store.close();
  sink.close();
  rmSync(dir, { recursive: true, force: true });
}
