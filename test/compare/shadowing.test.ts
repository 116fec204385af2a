/**
 * Live shadowing over real ports: a gateway in translate mode over the v1
 * emulator compares its answers with a candidate (a second gateway over the
 * same emulator, behind a proxy that changes answers in known ways). Each
 * injected difference is found with its field and class and nothing else is;
 * writes are counted and never sent; the caller never waits for the candidate.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/v1/index.ts';
import { Client, startGateway } from '../support/stack.ts';
import { GrpcClient } from '../support/grpc.ts';
import { doctorProxy, type DoctorProxy } from './doctor-proxy.ts';
import { methodOf, reportOf, settled } from './report-client.ts';

const GET_GROUP = 'chainguard.platform.iam.v2beta1.GroupsService/GetGroup';
const LIST_GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService/ListGroups';
const CREATE_GROUP = 'chainguard.platform.iam.v2beta1.GroupsService/CreateGroup';

type Gateway = Awaited<ReturnType<typeof startGateway>>;
let emulator: RunningEmulator;
let candidate: Gateway;
let proxy: DoctorProxy;
let primary: Gateway;
let client: Client;
let org: string;
const ids: Record<string, string> = {};
const SAMPLES_SECRET = 'shadowing-samples-secret-42';
const samplesToken = join(mkdtempSync(join(tmpdir(), 'v2gw-shadow-')), 'samples-token');
writeFileSync(samplesToken, SAMPLES_SECRET);

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  org = emulator.state.createGroup(null, { name: 'compare-org' }).id;
  for (const name of ['plain', 'doctored-desc', 'doctored-name', 'doctored-case', 'hidden-row', 'flaky']) {
    ids[name] = emulator.state.createGroup(org, { name, description: `the ${name} team` }).id;
  }
  candidate = await startGateway(emulator.url, ['--log-level', 'silent']);
  proxy = await doctorProxy(candidate.url);
  proxy.doctor = (body, call) => {
    if (body.name === 'doctored-desc') delete body.description;
    if (body.name === 'doctored-name') body.name = 'renamed';
    if (body.name === 'doctored-case') body.description = String(body.description).toUpperCase();
    if (body.name === 'flaky' && call.count === 1) body.description = 'not yet';
    if (Array.isArray(body.groups)) body.groups = body.groups.filter((g: any) => g.name !== 'hidden-row');
    return body;
  };
  primary = await startGateway(emulator.url, ['--log-level', 'silent', '--compare-with', proxy.url, '--compare-retry-ms', '20', '--compare-samples-token-file', samplesToken]);
  client = new Client(primary.url);
}, 30_000);

afterAll(async () => {
  await primary?.gateway.close();
  await proxy?.close();
  await candidate?.gateway.close();
  await emulator?.close();
});

describe('live shadowing over REST', () => {
  it('finds each injected difference with its field and class, and nothing else', async () => {
    for (const name of ['plain', 'doctored-desc', 'doctored-name', 'doctored-case']) {
      expect((await client.get(`/iam/v2beta1/groups/${ids[name]}`)).status).toBe(200);
    }
    // Both sides NOT_FOUND, the candidate's wording changed: no difference.
    expect((await client.get(`/iam/v2beta1/groups/${org}/ffffffffffffffff`)).status).toBe(404);
    const m = await settled(primary.url, GET_GROUP, 5, { authorization: `Bearer ${SAMPLES_SECRET}` });
    expect(m).toMatchObject({ compared: 5, equal: 2, transient: 0, skipped: 0, errors: 0, different: { access: 0, dataLoss: 1, value: 1, cosmetic: 1 } });
    expect(m.fields.map((f: any) => [f.path, f.class, f.count])).toEqual([['description', 'dataLoss', 1], ['name', 'value', 1], ['description', 'cosmetic', 1]]);
    // Each differing field with one example pair, as a person reads it beside the path.
    expect(m.fields.map((f: any) => f.example)).toEqual([
      { primary: 'the doctored-desc team', candidate: '(absent)' },
      { primary: 'doctored-name', candidate: 'renamed' },
      { primary: 'the doctored-case team', candidate: 'THE DOCTORED-CASE TEAM' },
    ]);
    expect(m.compared).toBe(m.equal + m.transient + Object.values(m.different as Record<string, number>).reduce((a, b) => a + b, 0));
    expect(m.verdict.mismatchRate).toBe(0.6);
    expect(m.verdict.upperBound95).toBeGreaterThan(0.6);
    expect(m.samples).toHaveLength(3);
    expect(JSON.stringify(m.samples)).not.toContain('test-token');
  });

  it('names rows a candidate hides from a List as access; page tokens and key order are no difference', async () => {
    const query = { 'uidp.children_of': org, page_size: 100 };
    expect((await client.get('/iam/v2beta1/groups', query)).status).toBe(200);
    // Two pages with tokens from two gateways that seal them with different keys.
    expect((await client.get('/iam/v2beta1/groups', { 'uidp.children_of': org, page_size: 2, order_by: 'name' })).body.nextPageToken).toBeTruthy();
    const m = await settled(primary.url, LIST_GROUPS, 2);
    expect(m.fields.map((f: any) => [f.path, f.class, f.count])).toEqual([['groups[]', 'access', 1]]);
    expect(m).toMatchObject({ compared: 2, equal: 1, different: { access: 1 } });
  });

  it('counts a difference that goes away on a second read as transient, with how long it took', async () => {
    expect((await client.get(`/iam/v2beta1/groups/${ids.flaky}`)).status).toBe(200);
    const m = await settled(primary.url, GET_GROUP, 6);
    expect(m.transient).toBe(1);
    expect(m.transientMeanMs).toBeGreaterThanOrEqual(20);
  });

  it('counts writes as skipped and never sends them', async () => {
    const made = await client.post(`/iam/v2beta1/groups/${org}`, { name: 'written' });
    expect(made.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const m = methodOf(await reportOf(primary.url), CREATE_GROUP);
    expect(m).toMatchObject({ skipped: 1, compared: 0 });
    expect(proxy.calls.filter((c) => !c.startsWith('GET'))).toEqual([]);
  });

  it('with --compare-unsafe, sends a create to both and compares what each assigned (uid, times) by shape only', async () => {
    const unsafe = await startGateway(emulator.url, ['--log-level', 'silent', '--compare-with', proxy.url, '--compare-unsafe']);
    try {
      const made = await new Client(unsafe.url).post(`/iam/v2beta1/groups/${org}`, { name: 'made-twice', description: 'by both' });
      expect(made.status).toBe(200);
      expect(await settled(unsafe.url, CREATE_GROUP, 1)).toMatchObject({ compared: 1, equal: 1, skipped: 0, fields: [] });
      expect(proxy.calls.filter((c) => c.startsWith('POST '))).toEqual([`POST /iam/v2beta1/groups/${org}`]);
    } finally {
      await unsafe.gateway.close();
    }
  });

  it('answers the caller while the candidate has not answered yet', async () => {
    const before = methodOf(await reportOf(primary.url), GET_GROUP);
    const done = (before?.compared ?? 0) + (before?.errors ?? 0);
    proxy.hold();
    try {
      const reply = await client.get(`/iam/v2beta1/groups/${ids.plain}`);
      expect(reply.status).toBe(200);
      expect(reply.body.name).toBe('plain');
      // The caller has its answer; the comparison has not ended (no count moved).
      const now = methodOf(await reportOf(primary.url), GET_GROUP);
      expect(now.compared + now.errors).toBe(done);
      for (let i = 0; i < 200 && proxy.held() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(proxy.held()).toBe(1);
    } finally {
      proxy.release();
    }
    await settled(primary.url, GET_GROUP, done + 1);
  });

  it('counts a dead candidate under errors, the caller served as ever', async () => {
    const lonely = await startGateway(emulator.url, ['--log-level', 'silent', '--compare-with', 'http://127.0.0.1:1']);
    try {
      expect((await new Client(lonely.url).get(`/iam/v2beta1/groups/${ids.plain}`)).status).toBe(200);
      expect(await settled(lonely.url, GET_GROUP, 1)).toMatchObject({ compared: 0, errors: 1 });
    } finally {
      await lonely.gateway.close();
    }
  });

  it('counts the figures in Prometheus by method and result', async () => {
    const text = await (await fetch(`${primary.url}/metrics`)).text();
    expect(text).toMatch(new RegExp(`v2gw_compare_total\\{method="${GET_GROUP}",result="dataLoss"\\} 1`));
    expect(text).toMatch(new RegExp(`v2gw_compare_total\\{method="${CREATE_GROUP}",result="skipped"\\} 1`));
  });
});

describe('gRPC', () => {
  it('compares a gRPC caller\'s call, over gRPC to the candidate', async () => {
    const viaGrpc = await startGateway(emulator.url, ['--log-level', 'silent', '--compare-with', candidate.url, '--compare-protocol', 'grpc']);
    const grpc = new GrpcClient(viaGrpc.url);
    try {
      const group = await grpc.call('chainguard.platform.iam.v2beta1.GroupsService', 'GetGroup', { uid: ids['doctored-desc'] });
      expect(group.name).toBe('doctored-desc');
      await grpc.call('chainguard.platform.iam.v2beta1.GroupsService', 'ListGroups', { uidp: { childrenOf: org } });
      expect(await settled(viaGrpc.url, GET_GROUP, 1)).toMatchObject({ compared: 1, equal: 1, errors: 0 });
      expect(await settled(viaGrpc.url, LIST_GROUPS, 1)).toMatchObject({ compared: 1, equal: 1, errors: 0 });
    } finally {
      grpc.close();
      await viaGrpc.gateway.close();
    }
  });
});

describe('noise', () => {
  it('asks the primary twice with --compare-noise, and a field it never varies on its own stays a difference', async () => {
    const noisy = await startGateway(emulator.url, ['--log-level', 'silent', '--compare-with', proxy.url, '--compare-noise', '--compare-retry-ms', '0']);
    try {
      for (let i = 0; i < 3; i++) expect((await new Client(noisy.url).get(`/iam/v2beta1/groups/${ids['doctored-name']}`)).status).toBe(200);
      const m = await settled(noisy.url, GET_GROUP, 3);
      expect(m).toMatchObject({ compared: 3, noiseTrials: 3, different: { value: 3 } });
      expect(m.fields).toEqual([{ path: 'name', class: 'value', count: 3 }]);
    } finally {
      await noisy.gateway.close();
    }
  });
});

describe('expected differences', () => {
  it('counts a team\'s declared difference (--compare-expect) apart, with its reason; another field of the same method still differs', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'v2gw-expect-')), 'expected.json');
    writeFileSync(file, JSON.stringify([{ method: 'chainguard.platform.iam.v2beta1.GroupsService/GetGroup', field: 'description', reason: 'the candidate drops descriptions' }]));
    const expecting = await startGateway(emulator.url, ['--log-level', 'silent', '--compare-with', proxy.url, '--compare-retry-ms', '0', '--compare-expect', file]);
    try {
      for (const name of ['doctored-desc', 'doctored-name']) expect((await new Client(expecting.url).get(`/iam/v2beta1/groups/${ids[name]}`)).status).toBe(200);
      const m = await settled(expecting.url, GET_GROUP, 2);
      expect(m).toMatchObject({ compared: 2, equal: 0, expected: 1, different: { dataLoss: 0, value: 1 } });
      expect(m.fields).toEqual([
        { path: 'name', class: 'value', count: 1 },
        { path: 'description', class: 'expected', reason: 'the candidate drops descriptions', count: 1 },
      ]);
    } finally {
      await expecting.gateway.close();
    }
  });
});

describe('sampling', () => {
  it('picks the same requests on every replica', async () => {
    const proxies = [await doctorProxy(candidate.url), await doctorProxy(candidate.url)];
    const replicas = await Promise.all(proxies.map((p) => startGateway(emulator.url, ['--log-level', 'silent', '--compare-with', p.url, '--compare-sample', '0.5'])));
    try {
      const paths = Array.from({ length: 24 }, (_, i) => `/iam/v2beta1/groups/${org}/${(i + 1).toString(16).padStart(16, '0')}`);
      for (const replica of replicas) for (const path of paths) await new Client(replica.url).get(path);
      for (const replica of replicas) {
        await replica.gateway.close();
      }
      const asked = proxies.map((p) => p.calls.map((c) => c.split(' ')[1]).sort());
      expect(asked[0]!.length).toBeGreaterThan(0);
      expect(asked[0]!.length).toBeLessThan(paths.length);
      expect(asked[1]).toEqual(asked[0]);
    } finally {
      for (const p of proxies) await p.close();
    }
  });
});
