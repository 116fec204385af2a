/**
 * Capture and offline replay: a gateway writes each v2 call it serves (REST
 * and gRPC) as a JSON line without credentials; `npm run compare` replays the
 * lines against three targets, one of which changes an answer, and the report
 * pins the difference on that one.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/v1/index.ts';
import { main } from '../../src/compare/cli.ts';
import { Client, startGateway, TOKEN } from '../support/stack.ts';
import { GrpcClient } from '../support/grpc.ts';
import { doctorProxy, type DoctorProxy } from './doctor-proxy.ts';

const GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService';
type Gateway = Awaited<ReturnType<typeof startGateway>>;
const dir = mkdtempSync(join(tmpdir(), 'v2gw-replay-'));
const capture = join(dir, 'calls.jsonl');
let emulator: RunningEmulator;
let a: Gateway;
let b: Gateway;
let proxy: DoctorProxy;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  a = await startGateway(emulator.url, ['--log-level', 'silent', '--capture', capture]);
  b = await startGateway(emulator.url, ['--log-level', 'silent']);
  proxy = await doctorProxy(b.url);
  proxy.doctor = (body) => {
    if (body.name === 'odd-one') delete body.description;
    return body;
  };
}, 30_000);

afterAll(async () => {
  await a?.gateway.close();
  await proxy?.close();
  await b?.gateway.close();
  await emulator?.close();
});

it('captures REST and gRPC calls without credentials, and the three-way replay names the odd target', async () => {
  const org = emulator.state.createGroup(null, { name: 'replay-org' }).id;
  const plain = emulator.state.createGroup(org, { name: 'plain', description: 'same everywhere' }).id;
  const odd = emulator.state.createGroup(org, { name: 'odd-one', description: 'dropped by c' }).id;
  const client = new Client(a.url);
  expect((await client.get(`/iam/v2beta1/groups/${plain}`)).status).toBe(200);
  expect((await client.get('/iam/v2beta1/groups', { 'uidp.children_of': org })).status).toBe(200);
  expect((await client.post(`/iam/v2beta1/groups/${org}`, { name: 'written' })).status).toBe(200);
  const grpc = new GrpcClient(a.url);
  await grpc.call(GROUPS, 'GetGroup', { uid: odd });
  grpc.close();

  let lines: any[] = [];
  for (let i = 0; i < 100 && lines.length < 4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    lines = readFileSync(capture, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  }
  expect(lines.map((l) => [l.method.split('/')[1], l.protocol])).toEqual([['GetGroup', 'rest'], ['ListGroups', 'rest'], ['CreateGroup', 'rest'], ['GetGroup', 'grpc']]);
  expect(lines[0].request).toEqual({ uid: plain });
  expect(lines[3].request).toEqual({ uid: odd });
  expect(readFileSync(capture, 'utf8')).not.toContain(TOKEN.slice('Bearer '.length));

  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${TOKEN.slice('Bearer '.length)}\n`);
  const out = join(dir, 'out');
  expect(await main(['--from', capture, '--a', a.url, '--b', b.url, '--c', proxy.url, '--out', out, '--token-file', tokenFile])).toBe(0);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  const get = report.methods.find((m: any) => m.method === `${GROUPS}/GetGroup`);
  expect(get).toMatchObject({ compared: 2, equal: 1, different: { dataLoss: 1 } });
  expect(get.fields).toEqual([{ path: 'description', class: 'dataLoss', count: 1, odd: 'c', example: { primary: 'dropped by c', candidate: '(absent)' } }]);
  // c changes the group alone, not the list's rows: the list agrees everywhere (the row written after the capture included).
  expect(report.methods.find((m: any) => m.method === `${GROUPS}/ListGroups`)).toMatchObject({ compared: 1, equal: 1, fields: [] });
  expect(report.methods.find((m: any) => m.method === `${GROUPS}/CreateGroup`)).toMatchObject({ skipped: 1, compared: 0 });
  // The write was never replayed: c saw reads only.
  expect(proxy.calls.every((call) => call.startsWith('GET '))).toBe(true);
  expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('Side-by-side comparison');
});

it('never captures its own replay: a capturing gateway replayed against keeps its capture as it was', async () => {
  const before = readFileSync(capture, 'utf8');
  expect(before.split('\n').filter(Boolean).length).toBeGreaterThan(0);
  const tokenFile = join(dir, 'token');
  expect(await main(['--from', capture, '--a', a.url, '--b', b.url, '--out', join(dir, 'again'), '--token-file', tokenFile])).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(readFileSync(capture, 'utf8')).toBe(before);
});

it('gates a CI job with --fail-on, the report written first; a team\'s expected difference passes the gate', async () => {
  const tokenFile = join(dir, 'token');
  const out = join(dir, 'gate');
  const args = ['--from', capture, '--a', a.url, '--b', b.url, '--c', proxy.url, '--out', out, '--token-file', tokenFile];
  expect(await main([...args, '--fail-on', 'fail'])).toBe(1);
  const failed = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  expect(failed.methods.find((m: any) => m.method === `${GROUPS}/GetGroup`).verdict.decision).toBe('fail');
  expect(failed.methods.find((m: any) => m.method === `${GROUPS}/CreateGroup`).verdict.decision).toBe('not compared');
  expect(statSync(join(out, 'report.json')).mode & 0o777).toBe(0o600);

  const expect_ = join(dir, 'expected.json');
  writeFileSync(expect_, JSON.stringify([{ method: `${GROUPS}/Get*`, field: 'description', reason: 'c is known to drop descriptions' }]));
  expect(await main([...args, '--compare-expect', expect_, '--fail-on', 'fail'])).toBe(0);
  const passed = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  const get = passed.methods.find((m: any) => m.method === `${GROUPS}/GetGroup`);
  expect(get).toMatchObject({ compared: 2, equal: 1, expected: 1, different: { dataLoss: 0 } });
  expect(get.fields).toMatchObject([{ path: 'description', class: 'expected', reason: 'c is known to drop descriptions' }]);
  // Two comparisons prove nothing yet: undecided, and so the stricter gate still says no.
  expect(get.verdict.decision).toBe('undecided');
  expect(await main([...args, '--compare-expect', expect_, '--fail-on', 'undecided'])).toBe(1);
  expect(await main([...args, '--fail-on', 'worse'])).toBe(2);
});

it('fails the --fail-on undecided gate when b never answers one method: that method is undecided, not "not compared"', async () => {
  // b resets every GetGroup's connection and answers the rest; at a target rate of 80 % one equal list passes.
  const refusing = await doctorProxy(b.url);
  refusing.refuse = (call) => call.startsWith('GET /iam/v2beta1/groups/');
  try {
    const out = join(dir, 'unanswered');
    const args = ['--from', capture, '--a', a.url, '--b', refusing.url, '--out', out, '--token-file', join(dir, 'token'), '--target-rate', '0.8'];
    const printed: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((text: string) => (printed.push(String(text)), true)) as typeof process.stdout.write;
    let code: number;
    try {
      code = await main([...args, '--fail-on', 'undecided']);
    } finally {
      process.stdout.write = write;
    }
    expect(code).toBe(1);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    expect(report.methods.find((m: any) => m.method === `${GROUPS}/GetGroup`)).toMatchObject({ compared: 0, errors: 2, verdict: { decision: 'undecided' } });
    expect(report.methods.find((m: any) => m.method === `${GROUPS}/ListGroups`)).toMatchObject({ compared: 1, equal: 1, verdict: { decision: 'pass' } });
    expect(printed.join('')).toContain(`undecided: ${GROUPS}/GetGroup\n`);
  } finally {
    await refusing.close();
  }
});
