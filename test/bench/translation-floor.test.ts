/**
 * The benchmark's translating floors (bench/translation-floor-process.ts, and
 * bench/grpc-translation-floor-process.ts for gRPC) bound the gateway's figures from below only if they
 * answer what the gateway answers: the same v2 rows, rendered and encoded the same way. Run as the
 * benchmark runs them, processes of their own asked v1's path, beside a gateway on the same emulator.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FLOOR_COMPARISON_THREAD } from '../../bench/lib/floor-comparison-thread.ts';
import { GrpcClient } from '../support/grpc.ts';
import { startStack, TOKEN, type Stack } from '../support/stack.ts';

const FLOOR = new URL('../../bench/translation-floor-process.ts', import.meta.url).pathname;
const GRPC_FLOOR = new URL('../../bench/grpc-translation-floor-process.ts', import.meta.url).pathname;
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
    await new Promise<void>((resolve) => candidate.listen(0, '127.0.0.1', resolve));
    try {
      const candidateUrl = `http://127.0.0.1:${(candidate.address() as AddressInfo).port}`;
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
      candidate.closeAllConnections();
      candidate.close();
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
    await new Promise<void>((resolve) => candidate.listen(0, '127.0.0.1', resolve));
    try {
      const candidateUrl = `http://127.0.0.1:${(candidate.address() as AddressInfo).port}`;
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
      candidate.closeAllConnections();
      candidate.close();
    }
  });

  it('answers 502, not a page, when v1 refuses the call (here: no token)', async () => {
    const floor = await startFloor(stack.emulator.url, ['--resource', 'groups']);
    floors.push(floor.child);
    const response = await fetch(`${floor.url}/iam/v1/groups?id=${encodeURIComponent(groups[0]!)}`);
    expect(response.status).toBe(502);
  });
});
