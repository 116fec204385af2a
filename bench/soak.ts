/**
 * Memory under churn: `npm run bench:soak -- [--seconds 120] [--callers 16] [--sample-seconds 10] [--kept 2000]`.
 *
 * The v1 emulator runs in a process of its own, the gateway (translate mode, its store in memory, as
 * `npm start` runs it with no store given) in another. `--callers` callers, each with one request in
 * flight, make a mix of List, Get, Create, masked PATCH and Delete of groups, roles and identities under
 * one organisation for `--seconds`; each caller keeps at most a few of each kind alive (a Create when it
 * has none, a Delete when it has its fill), so the data the gateway sees stays about the same size and
 * its memory should too. The gateway's RSS is sampled every `--sample-seconds`, and its CPU time over the
 * churn is told per answer (what a memory setting costs in collections). Then `--kept` groups, roles and
 * identities, one kind after the other, are created and kept, with no other load, and the RSS each kind
 * adds is told per resource: what memory grows by with the data v1 holds. Every answer must be a 2xx;
 * any other is counted and fails the run.
 */
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { envOf, GATEWAY_ENV, GATEWAY_NODE_ARGS, gatewayFlags } from './lib/gateway-defaults.ts';
import { snapshot, spent } from './lib/cpu.ts';
import { MIB, resident } from './lib/memory.ts';
import { bytesPerResource, gauge, samplesTable, soakVerdict, SOAK_GOALS, type Sample } from './lib/soak-report.ts';
import { startEmulator, startGateway } from './lib/stack.ts';
import { AUTHORIZATION } from './lib/targets.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '120' },
    callers: { type: 'string', default: '16' },
    'sample-seconds': { type: 'string', default: '10' },
    kept: { type: 'string', default: '2000' },
    // A Node flag for the gateway, for digging (`--node-arg=--heapsnapshot-signal=SIGUSR2`).
    'node-arg': { type: 'string', multiple: true, default: [] },
    // A configuration flag for the gateway (`--gateway-flag=--list-scan-cache-bytes=0`).
    'gateway-flag': { type: 'string', multiple: true, default: [] },
  },
  strict: true,
});
const seconds = Number(values.seconds);
const callers = Number(values.callers);
const sampleSeconds = Number(values['sample-seconds']);
const kept = Number(values.kept);
for (const [flag, n, most] of [['--seconds', seconds, 86_400], ['--callers', callers, 1000], ['--sample-seconds', sampleSeconds, 3600], ['--kept', kept, 100_000]] as const) {
  if (!Number.isInteger(n) || n < (flag === '--kept' ? 0 : 1) || n > most) throw new Error(`${flag}: expected a whole number up to ${most}, got ${n}`);
}

/** Each caller keeps at most this many of each kind alive. */
const FILL = 4;
const KINDS = ['groups', 'roles', 'identities'] as const;
type Kind = (typeof KINDS)[number];
const KIND_NAMES: Record<Kind, string> = { groups: 'group', roles: 'role', identities: 'identity' };

const emulator = await startEmulator(100);
const gateway = await startGateway('gateway', emulator.url, { nodeArgs: [...GATEWAY_NODE_ARGS, ...values['node-arg']], env: envOf(GATEWAY_ENV), flags: [...gatewayFlags('info'), ...values['gateway-flag']] });
const pool = new Pool(gateway.url, { connections: callers, pipelining: 1 });
const org = emulator.org;
const statuses = new Map<string, number>();
let answered = 0;
let serial = 0;

async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<Record<string, unknown>> {
  const { statusCode, body: reply } = await pool.request({
    method,
    path,
    headers: { authorization: AUTHORIZATION, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await reply.text();
  answered++;
  if (statusCode < 200 || statusCode > 299) {
    const key = `${method} ${path.split('?')[0]!.replace(/\/[0-9a-f]{16,}.*$/, '/…')} ${statusCode}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    return {};
  }
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/** A new resource of `kind` under the organisation, as its Create takes it. */
function created(kind: Kind): unknown {
  const n = serial++;
  if (kind === 'groups') return { name: `soak-${n}`, description: `soak group ${n}` };
  if (kind === 'roles') return { name: `soak-role-${n}`, description: `soak role ${n}`, capabilities: ['CAP_IAM_GROUPS_LIST'] };
  return { name: `soak-identity-${n}`, description: `soak identity ${n}`, claimMatch: { issuer: 'https://issuer.soak', subject: `soak-${n}` } };
}

/** One caller: until `deadline`, one request at a time, of a kind and an operation drawn in turn. */
async function caller(deadline: number): Promise<void> {
  const alive: Record<Kind, string[]> = { groups: [], roles: [], identities: [] };
  while (Date.now() < deadline) {
    const kind = KINDS[Math.floor(Math.random() * KINDS.length)]!;
    const mine = alive[kind];
    const draw = Math.random();
    const pick = () => mine[Math.floor(Math.random() * mine.length)]!;
    if (mine.length === 0 || (draw < 0.15 && mine.length < FILL)) {
      const uid = (await call('POST', `/iam/v2beta1/${kind}/${org}`, created(kind))).uid;
      if (typeof uid === 'string') mine.push(uid);
    } else if (draw < 0.3 || mine.length >= FILL) {
      const uid = mine.splice(Math.floor(Math.random() * mine.length), 1)[0]!;
      await call('DELETE', `/iam/v2beta1/${kind}/${uid}`);
    } else if (draw < 0.45) {
      const uid = pick();
      await call('PATCH', `/iam/v2beta1/${kind}/${uid}?update_mask=description`, { uid, description: `changed ${serial++}` });
    } else if (draw < 0.7) {
      await call('GET', `/iam/v2beta1/${kind}/${pick()}`);
    } else {
      await call('GET', `/iam/v2beta1/${kind}?uidp.children_of=${org}&page_size=50`);
    }
  }
  // Leave nothing behind: the memory after the soak is then the memory of the data v1 held before it.
  for (const kind of KINDS) for (const uid of alive[kind]) await call('DELETE', `/iam/v2beta1/${kind}/${uid}`);
}

const samples: Sample[] = [];
const started = Date.now();
async function sample(): Promise<void> {
  const atSeconds = Math.round((Date.now() - started) / 1000);
  const rssBytes = resident(gateway.child.pid).rssBytes;
  const metrics = await fetch(`${gateway.url}/metrics`).then((reply) => reply.text()).catch(() => '');
  const heap = (name: string) => gauge(metrics, `nodejs_${name}_bytes`);
  samples.push({ atSeconds, rssBytes, heapTotalBytes: heap('heap_size_total'), heapUsedBytes: heap('heap_size_used'), externalBytes: heap('external_memory') });
}
try {
  await sample();
  const cpuBefore = snapshot({ gateway: gateway.child.pid });
  const sampler = setInterval(() => void sample(), sampleSeconds * 1000);
  await Promise.all(Array.from({ length: callers }, () => caller(started + seconds * 1000)));
  clearInterval(sampler);
  const cpu = spent(cpuBefore, snapshot({ gateway: gateway.child.pid }));
  await sample();
  const verdict = soakVerdict(samples);
  console.log(`Soak: ${seconds} s, ${callers} callers, ${answered} answers (${Math.round(answered / seconds)}/s), mixed List, Get, Create, masked PATCH and Delete of groups, roles and identities under one organisation.\n`);
  console.log(samplesTable(samples));
  console.log(`\n| figure | measured | goal | met |\n|:--|--:|--:|:--|`);
  console.log(`| gateway RSS at the end | ${verdict.endMib.toFixed(1)} MiB | ≤ ${SOAK_GOALS.endMib} MiB | ${verdict.endMet ? 'met' : 'NOT met'} |`);
  console.log(`| growth over the last ${verdict.windowSeconds} s (end less the least sample) | ${verdict.lastWindowGrowthMib.toFixed(1)} MiB | ≤ ${SOAK_GOALS.lastMinuteGrowthMib} MiB | ${verdict.flat ? 'flat' : 'NOT flat'} |`);
  console.log(`| gateway CPU per answer over the churn | ${((cpu.seconds.gateway! / answered) * 1e6).toFixed(0)} µs (${cpu.seconds.gateway!.toFixed(1)} s) | | |`);
  if (kept > 0) {
    for (const kind of KINDS) {
      const before = resident(gateway.child.pid).rssBytes;
      for (let i = 0; i < kept; i += callers) {
        await Promise.all(Array.from({ length: Math.min(callers, kept - i) }, () => call('POST', `/iam/v2beta1/${kind}/${org}`, created(kind))));
      }
      // Lists of the grown organisation, so what the gateway holds per row read is counted too.
      for (let i = 0; i < 50; i++) await call('GET', `/iam/v2beta1/${kind}?uidp.children_of=${org}&page_size=50`);
      const after = resident(gateway.child.pid).rssBytes;
      console.log(`| RSS per ${KIND_NAMES[kind]} kept (${kept} created and kept, then listed) | ${(bytesPerResource(before, after, kept) / 1024).toFixed(2)} KiB (${(before / MIB).toFixed(1)} → ${(after / MIB).toFixed(1)} MiB) | | |`);
    }
  }
  if (statuses.size > 0) {
    console.log(`\nAnswers other than 2xx: ${JSON.stringify(Object.fromEntries(statuses))}`);
    process.exitCode = 1;
  }
} finally {
  await pool.close();
  await gateway.child.stop();
  await emulator.child.stop();
}
