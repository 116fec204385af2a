/**
 * Native mode's events as real gateway processes (`node src/cli.ts`), the
 * sink's CA trusted the way a deployment adds one (NODE_EXTRA_CA_CERTS): a
 * gateway killed with SIGKILL right after acknowledging writes delivers their
 * events once it restarts on the same data; two replicas on one PostgreSQL
 * database deliver every event exactly once between them, each verifying
 * against the one issuer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/cli-process.ts';
import { EventReceiver } from '../../support/event-receiver.ts';
import { PG_URL, withPg } from '../../support/modes.ts';
import { startGatewayProcess, stopGatewayProcess } from '../../support/gateway-process.ts';

const CA_FILE = new URL('../../fixtures/tls/cert.pem', import.meta.url).pathname;

/** A native gateway process delivering to loopback sinks, trusting the test sink's CA. */
const startGateway = (args: string[]) => startGatewayProcess(['--mode', 'native', '--events-allow-private-sinks', '--events-poll-ms', '200', ...args], { NODE_EXTRA_CA_CERTS: CA_FILE });
const stop = stopGatewayProcess;

describe('events survive a SIGKILL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'v2gw-events-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('delivers, after a restart, the events of writes acknowledged just before the kill', { timeout: 90_000 }, async () => {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const args = ['--data-dir', dir, '--port', String(port)];
    const first = await startGateway(args);
    const org = (await first.client.post('/iam/v2beta1/groups', { name: 'killed-org' })).body.uid;
    const receiver = new EventReceiver(issuer, org);
    // The sink is not listening yet: nothing can be delivered before the kill.
    const sinkPort = await freePort();
    const sub = (await first.client.post(`/events/v2beta1/subscriptions/${org}`, { sink: `https://127.0.0.1:${sinkPort}/hook` })).body;
    const team = (await first.client.post(`/iam/v2beta1/groups/${org}`, { name: 'team' })).body;
    expect(team.uid).toBeTruthy();
    await stop(first, 'SIGKILL');
    // Its issuer is its own loopback address, which no receiver elsewhere can reach: it says so once it listens.
    expect(first.stdout()).toMatch(/"level":40,.*"issuer":"http:\/\/127\.0\.0\.1:\d+".*--events-issuer-url is unset/);

    await receiver.start(sinkPort);
    const second = await startGateway(args);
    try {
      // A delivery the killed process had leased comes back when its lease ends (30 s at most).
      const events = await receiver.waitFor(2, 60_000);
      await new Promise((r) => setTimeout(r, 1000));
      expect(receiver.received.map((e) => [e.type, e.subject]).sort()).toEqual([
        ['dev.chainguard.api.events.subscription.created.v1', sub.uid],
        ['dev.chainguard.api.iam.group.created.v1', team.uid],
      ]);
      expect(new Set(events.map((e) => e.id)).size).toBe(2);
    } finally {
      await stop(second);
      await receiver.stop();
    }
  });
});

describe('replicas on one PostgreSQL database', () => {
  const database = `v2gw_events_${process.pid}_${Date.now().toString(36)}`;
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  beforeAll(() => withPg((client) => client.query(`create database ${database}`)));
  afterAll(() => withPg((client) => client.query(`drop database if exists ${database} with (force)`)));

  it('deliver each event once between them, signed by keys the one issuer publishes', { timeout: 90_000 }, async () => {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const common = ['--store', url.toString(), '--events-issuer-url', issuer];
    const [a, b] = await Promise.all([startGateway([...common, '--port', String(port)]), startGateway([...common, '--port', '0'])]);
    try {
      const org = (await a.client.post('/iam/v2beta1/groups', { name: 'replicated-org' })).body.uid;
      const receiver = new EventReceiver(issuer, org);
      await receiver.start();
      await b.client.post(`/events/v2beta1/subscriptions/${org}`, { sink: receiver.url });
      const writes = 40;
      await Promise.all(Array.from({ length: writes }, (_, i) => (i % 2 ? a : b).client.post(`/iam/v2beta1/groups/${org}`, { name: `g${i}` })));
      await receiver.waitFor(writes + 1, 30_000);
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.refused).toEqual([]);
      expect(receiver.received.length).toBe(writes + 1);
      expect(new Set(receiver.received.map((e) => e.id)).size).toBe(writes + 1);
      expect(new Set(receiver.received.map((e) => e.subject)).size).toBe(writes + 1);
      await receiver.stop();
      // An issuer set: nothing to warn of.
      expect(a.stdout() + b.stdout()).not.toContain('--events-issuer-url is unset');
    } finally {
      await Promise.all([stop(a), stop(b)]);
    }
  });
});
