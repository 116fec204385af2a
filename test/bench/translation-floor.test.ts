/**
 * The benchmark's translating floors (bench/translation-floor-process.ts, and
 * bench/grpc-translation-floor-process.ts for gRPC) bound the gateway's figures from below only if they
 * answer what the gateway answers: the same v2 rows, rendered and encoded the same way. Run as the
 * benchmark runs them, processes of their own asked v1's path, beside a gateway on the same emulator.
 * The floors with the default duties (bench/duty-floor-process.ts, the gRPC one's `--duties`) bound goal 3
 * only if they also do what the issue names as always on: an access line an answer with the gateway's
 * fields, the gateway's request metrics, a deadline on the v1 call, the caller's Authorization forwarded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FLOOR_COMPARISON_THREAD } from '../../bench/lib/floor-comparison-thread.ts';
import { GrpcClient } from '../support/grpc.ts';
import { startStack, TOKEN, type Stack } from '../support/stack.ts';
import { closeLocal, listenLocal } from '../support/local-http.ts';

const FLOOR = new URL('../../bench/translation-floor-process.ts', import.meta.url).pathname;
const GRPC_FLOOR = new URL('../../bench/grpc-translation-floor-process.ts', import.meta.url).pathname;
const DUTY_FLOOR = new URL('../../bench/duty-floor-process.ts', import.meta.url).pathname;
const GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService';

/** A floor (`script`) with these flags, once it says where it listens. */
async function startFloor(v1Url: string, flags: string[], script = FLOOR): Promise<{ url: string; child: ChildProcess }> {
  // stdin a pipe held open: the floor stops when its parent closes it (bench/stop-with-parent.ts).
  const child = spawn(process.execPath, [script, '--v1-url', v1Url, ...flags], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { url: (JSON.parse(line) as { url: string }).url, child };
}

async function getJson(url: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { headers: { authorization: TOKEN } });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

describe('the translating floor', () => {
  let stack: Stack;
  let org: string;
  let groups: string[];
  const floors: ChildProcess[] = [];

  beforeAll(async () => {
    stack = await startStack();
    org = stack.emulator.state.createGroup(null, { name: 'floor-org' }).id;
    groups = ['one', 'two', 'three'].map((name) => stack.emulator.state.createGroup(org, { name, description: `group ${name}` }).id);
  });
  afterAll(async () => {
    for (const child of floors) {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
    await stack.close();
  });

  it("answers a Get with the gateway's own answer for the row", async () => {
    const floor = await startFloor(stack.emulator.url, ['--resource', 'groups']);
    floors.push(floor.child);
    const viaFloor = await getJson(`${floor.url}/iam/v1/groups?id=${encodeURIComponent(groups[1]!)}`);
    const viaGateway = await stack.client.get(`/iam/v2beta1/groups/${groups[1]}`);
    expect(viaGateway.status).toBe(200);
    expect(viaFloor.status).toBe(200);
    expect(viaFloor.body).toEqual(viaGateway.body);
    expect(viaFloor.body.uid).toBe(groups[1]);
  });

  it("answers a page with v1's first rows, each as the gateway renders it", async () => {
    const floor = await startFloor(stack.emulator.url, ['--resource', 'groups', '--page', '2']);
    floors.push(floor.child);
    const query = `uidp.childrenOf=${encodeURIComponent(org)}`;
    const v1 = await getJson(`${stack.emulator.url}/iam/v1/groups?${query}`);
    const viaFloor = await getJson(`${floor.url}/iam/v1/groups?${query}`);
    expect(viaFloor.status).toBe(200);
    const firstTwo = (v1.body.items as { id: string }[]).slice(0, 2).map((row) => row.id);
    expect(viaFloor.body.groups.map((g: { uid: string }) => g.uid)).toEqual(firstTwo);
    for (const [i, uid] of firstTwo.entries()) {
      expect(viaFloor.body.groups[i]).toEqual((await stack.client.get(`/iam/v2beta1/groups/${uid}`)).body);
    }
  });

  it("answers a gRPC Get with the message the gateway's gRPC answers for the row", async () => {
    const floor = await startFloor(stack.emulator.url, ['--v1-path', `/iam/v1/groups?id=${encodeURIComponent(groups[2]!)}`, '--rpc', `${GROUPS}/GetGroup`, '--resource', 'groups'], GRPC_FLOOR);
    floors.push(floor.child);
    const [viaFloor, viaGateway] = [new GrpcClient(floor.url), new GrpcClient(stack.url)];
    try {
      const [fromFloor, fromGateway] = await Promise.all([viaFloor.call(GROUPS, 'GetGroup', { uid: groups[2] }), viaGateway.call(GROUPS, 'GetGroup', { uid: groups[2] })]);
      expect(fromFloor).toEqual(fromGateway);
      expect(fromFloor.uid).toBe(groups[2]);
    } finally {
      viaFloor.close();
      viaGateway.close();
    }
  });

  it("answers a gRPC List with v1's first rows, each the message the gateway's gRPC answers for it", async () => {
    const query = `uidp.childrenOf=${encodeURIComponent(org)}`;
    const floor = await startFloor(stack.emulator.url, ['--v1-path', `/iam/v1/groups?${query}`, '--rpc', `${GROUPS}/ListGroups`, '--resource', 'groups', '--page', '2'], GRPC_FLOOR);
    floors.push(floor.child);
    const v1 = await getJson(`${stack.emulator.url}/iam/v1/groups?${query}`);
    const firstTwo = (v1.body.items as { id: string }[]).slice(0, 2).map((row) => row.id);
    const [viaFloor, viaGateway] = [new GrpcClient(floor.url), new GrpcClient(stack.url)];
    try {
      const fromFloor = await viaFloor.call(GROUPS, 'ListGroups', { uidp: { childrenOf: org }, pageSize: 2 });
      expect(fromFloor.groups.map((g: { uid: string }) => g.uid)).toEqual(firstTwo);
      for (const [i, uid] of firstTwo.entries()) expect(fromFloor.groups[i]).toEqual(await viaGateway.call(GROUPS, 'GetGroup', { uid }));
    } finally {
      viaFloor.close();
      viaGateway.close();
    }
  });

  it('with --compare-with, asks the candidate the same Get once it has answered, as the caller', async () => {
    // A candidate that only records what it is asked, and answers the gateway's document in other text (indented):
    // not the bytes the floor sent, so the floor must read it to find it equal.
    const asked: Array<{ path: string | undefined; authorization: string | undefined }> = [];
    const gatewayAnswer = await stack.client.get(`/iam/v2beta1/groups/${groups[0]}`);
    const candidate = createServer((request, response) => {
      asked.push({ path: request.url, authorization: request.headers.authorization });
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(gatewayAnswer.body, null, 1));
    });
    const candidateUrl = await listenLocal(candidate);
    try {
      const v2Path = `/iam/v2beta1/groups/${groups[0]}`;
      const floor = await startFloor(stack.emulator.url, ['--resource', 'groups', '--compare-with', candidateUrl, '--compare-path', v2Path]);
      floors.push(floor.child);
      const viaFloor = await getJson(`${floor.url}/iam/v1/groups?id=${encodeURIComponent(groups[0]!)}`);
      expect(viaFloor.status).toBe(200);
      expect(viaFloor.body).toEqual(gatewayAnswer.body);
      await vi.waitFor(() => expect(asked).toEqual([{ path: v2Path, authorization: TOKEN }]), { timeout: 5000 });
      // Counted as the benchmark reads it: one compared, equal (the candidate answered the same document).
      await vi.waitFor(async () => expect((await getJson(`${floor.url}/_floor/comparisons`)).body).toEqual({ compared: 1, equal: 1, skipped: 0, failed: 0 }), { timeout: 5000 });
    } finally {
      await closeLocal(candidate);
    }
  });

  it('with --compare-on-worker, makes the same comparison on a thread of its own, counted when asked', async () => {
    // A candidate that records what it is asked, and answers the first Get as the gateway does and the next one
    // with a field changed: one comparison equal, one not.
    const asked: Array<{ path: string | undefined; authorization: string | undefined }> = [];
    const gatewayAnswer = await stack.client.get(`/iam/v2beta1/groups/${groups[2]}`);
    const answers = [gatewayAnswer.body, { ...gatewayAnswer.body, description: 'as the candidate has it' }];
    const candidate = createServer((request, response) => {
      const answer = answers[asked.length];
      asked.push({ path: request.url, authorization: request.headers.authorization });
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
    const candidateUrl = await listenLocal(candidate);
    try {
      const v2Path = `/iam/v2beta1/groups/${groups[2]}`;
      const floor = await startFloor(stack.emulator.url, ['--resource', 'groups', '--compare-with', candidateUrl, '--compare-path', v2Path, '--compare-on-worker']);
      floors.push(floor.child);
      for (const n of [1, 2]) {
        const viaFloor = await getJson(`${floor.url}/iam/v1/groups?id=${encodeURIComponent(groups[2]!)}`);
        expect(viaFloor.status).toBe(200);
        expect(viaFloor.body).toEqual(gatewayAnswer.body);
        await vi.waitFor(() => expect(asked).toHaveLength(n), { timeout: 5000 });
      }
      expect(asked).toEqual([{ path: v2Path, authorization: TOKEN }, { path: v2Path, authorization: TOKEN }]);
      await vi.waitFor(async () => expect((await getJson(`${floor.url}/_floor/comparisons`)).body).toEqual({ compared: 2, equal: 1, skipped: 0, failed: 0 }), { timeout: 5000 });
      // The thread the benchmark moves to the candidates' core, found by its name as bench/lib/pin.ts finds it.
      const names = readdirSync(`/proc/${floor.child.pid}/task`).map((tid) => readFileSync(`/proc/${floor.child.pid}/task/${tid}/comm`, 'utf8').trim());
      expect(names).toContain(FLOOR_COMPARISON_THREAD);
    } finally {
      await closeLocal(candidate);
    }
  });

  it('answers 502, not a page, when v1 refuses the call (here: no token)', async () => {
    const floor = await startFloor(stack.emulator.url, ['--resource', 'groups']);
    floors.push(floor.child);
    const response = await fetch(`${floor.url}/iam/v1/groups?id=${encodeURIComponent(groups[0]!)}`);
    expect(response.status).toBe(502);
  });
});

/** The JSON lines written to `file` so far. */
function linesOf(file: string): Array<Record<string, any>> {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>);
}

/** A line's field names, and of each field that is an object, its own: the line's shape. */
function shapeOf(line: Record<string, any>): Record<string, string[]> {
  const shape: Record<string, string[]> = { '': Object.keys(line).sort() };
  for (const [key, value] of Object.entries(line)) if (value && typeof value === 'object') shape[key] = Object.keys(value).sort();
  return shape;
}

/** GET `path` of an h2c server, as a scraper would ask the gRPC floor's metrics. */
async function h2cText(url: string, path: string): Promise<string> {
  const session = http2.connect(url);
  try {
    const stream = session.request({ ':method': 'GET', ':path': path });
    stream.setEncoding('utf8');
    let text = '';
    for await (const chunk of stream) text += chunk;
    return text;
  } finally {
    session.close();
  }
}

/** The value of a sample of the exposition: its name and labels as the exposition writes them. */
function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the translating floors with the default duties', () => {
  let stack: Stack;
  let org: string;
  let group: string;
  const floors: ChildProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'v2gw-duty-floor-'));

  beforeAll(async () => {
    stack = await startStack();
    org = stack.emulator.state.createGroup(null, { name: 'duty-org' }).id;
    group = stack.emulator.state.createGroup(org, { name: 'one', description: 'group one' }).id;
  });
  afterAll(async () => {
    for (const child of floors) {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A duty floor (`script`) logging to a file of its own, with these flags more. */
  async function startDutyFloor(v1Url: string, name: string, flags: string[], script = DUTY_FLOOR): Promise<{ url: string; log: string }> {
    const log = join(dir, `${name}.log`);
    const floor = await startFloor(v1Url, ['--log', log, ...flags], script);
    floors.push(floor.child);
    return { url: floor.url, log };
  }

  it("answers a Get with the gateway's document, one access line an answer with the gateway's fields, and the gateway's request metrics", async () => {
    const floor = await startDutyFloor(stack.emulator.url, 'rest', ['--resource', 'groups']);
    const v1Path = `/iam/v1/groups?id=${encodeURIComponent(group)}`;
    const headers = { authorization: TOKEN, 'user-agent': 'duty-test' };
    const viaGateway = await fetch(`${stack.url}/iam/v2beta1/groups/${group}`, { headers });
    expect(viaGateway.status).toBe(200);
    const gatewayBody = await viaGateway.json();
    for (let n = 0; n < 3; n++) {
      const viaFloor = await fetch(`${floor.url}${v1Path}`, { headers });
      expect(viaFloor.status).toBe(200);
      expect(await viaFloor.json()).toEqual(gatewayBody);
    }
    // Scraped twice: a scrape is no answer of the floor's, and writes no line.
    await fetch(`${floor.url}/metrics`);
    const exposition = await (await fetch(`${floor.url}/metrics`)).text();
    expect(sample(exposition, 'http_server_request_duration_seconds_count{http_request_method="GET",http_route="/*",http_response_status_code="200"}')).toBe(3);
    expect(exposition).toContain('process_cpu_user_seconds_total');
    await vi.waitFor(() => expect(linesOf(floor.log)).toHaveLength(3), { timeout: 5000 });
    const lines = linesOf(floor.log);
    const gatewayLine = stack.logs.map((line) => JSON.parse(line)).find((line) => line.msg === 'request' && line.req?.url === `/iam/v2beta1/groups/${group}`);
    expect(gatewayLine).toBeDefined();
    for (const line of lines) {
      expect(line).toMatchObject({ level: 30, msg: 'request', req: { method: 'GET', url: v1Path, headers: { authorization: '[REDACTED]', 'user-agent': 'duty-test' } }, res: { statusCode: 200 } });
      expect(shapeOf(line)).toEqual(shapeOf(gatewayLine));
      expect(typeof line.responseTime).toBe('number');
    }
    expect(new Set(lines.map((line) => line.reqId)).size).toBe(3);
    expect(readFileSync(floor.log, 'utf8')).not.toContain(TOKEN.split(' ')[1]);
  });

  it("answers a gRPC Get with the gateway's message, one access line a call with the gateway's fields, and the gateway's RPC metrics", async () => {
    const rpc = `${GROUPS}/GetGroup`;
    const floor = await startDutyFloor(stack.emulator.url, 'grpc', ['--duties', '--v1-path', `/iam/v1/groups?id=${encodeURIComponent(group)}`, '--rpc', rpc, '--resource', 'groups'], GRPC_FLOOR);
    const [viaFloor, viaGateway] = [new GrpcClient(floor.url), new GrpcClient(stack.url)];
    try {
      const fromGateway = await viaGateway.call(GROUPS, 'GetGroup', { uid: group });
      for (let n = 0; n < 2; n++) expect(await viaFloor.call(GROUPS, 'GetGroup', { uid: group })).toEqual(fromGateway);
    } finally {
      viaFloor.close();
      viaGateway.close();
    }
    const exposition = await h2cText(floor.url, '/metrics');
    const labels = `grpc_type="unary",grpc_service="${GROUPS}",grpc_method="GetGroup"`;
    expect(sample(exposition, `grpc_server_started_total{${labels}}`)).toBe(2);
    expect(sample(exposition, `grpc_server_handled_total{${labels},grpc_code="OK"}`)).toBe(2);
    expect(sample(exposition, `grpc_server_handling_seconds_count{${labels}}`)).toBe(2);
    await vi.waitFor(() => expect(linesOf(floor.log)).toHaveLength(2), { timeout: 5000 });
    const gatewayLine = stack.logs.map((line) => JSON.parse(line)).find((line) => line.msg === 'request' && line.rpc === rpc);
    expect(gatewayLine).toBeDefined();
    for (const line of linesOf(floor.log)) {
      expect(line).toMatchObject({ level: 30, msg: 'request', rpc, code: 0, userAgent: expect.stringContaining('grpc-node-js') });
      expect(shapeOf(line)).toEqual(shapeOf(gatewayLine));
    }
  });

  it("forwards the caller's Authorization alone, and gives the v1 call up at its deadline", async () => {
    // A v1 that takes the call and never answers, keeping what it was sent.
    const sent: IncomingHttpHeaders[] = [];
    const silent = createServer((request) => void sent.push(request.headers));
    const v1Url = await listenLocal(silent);
    try {
      const floor = await startDutyFloor(v1Url, 'deadline', ['--resource', 'groups', '--v1-timeout-ms', '300']);
      const started = performance.now();
      const answer = await fetch(`${floor.url}/iam/v1/groups?id=x`, { headers: { authorization: TOKEN, cookie: 'session=1', 'x-caller': 'kept home' }, signal: AbortSignal.timeout(5000) });
      expect(answer.status).toBe(502);
      expect(performance.now() - started).toBeGreaterThanOrEqual(250);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.authorization).toBe(TOKEN);
      expect(Object.keys(sent[0]!).filter((name) => !['host', 'connection'].includes(name))).toEqual(['authorization']);
      await vi.waitFor(() => expect(linesOf(floor.log)).toMatchObject([{ res: { statusCode: 502 } }]), { timeout: 5000 });
    } finally {
      await closeLocal(silent);
    }
  });
});
