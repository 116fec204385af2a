/**
 * How long each server takes to reach its steady cost: a fresh process per target, loaded at c=50
 * (wrk; h2load for gRPC) in 1-second slices, its CPU per answer printed for each slice. It is what
 * `npm run bench`'s warm-up (`--warmup`, bench/README.md, Warm-up) must cover: a round measured
 * while one server still compiles its hot paths and the other does not compares the two unfairly.
 * `npm run bench:warmup -- [--seconds 12] [--no-pin]`; servers pinned as in `npm run bench`.
 */
import { parseArgs } from 'node:util';
import { snapshot, spent } from './lib/cpu.ts';
import { envOf, GATEWAY_ENV, GATEWAY_NODE_ARGS, gatewayFlags } from './lib/gateway-defaults.ts';
import { h2loadAvailable } from './lib/h2load-load.ts';
import { pinning, pinSelf } from './lib/pin.ts';
import { scenario } from './lib/scenarios.ts';
import { startEmulator, startFloor, startGateway, startGrpcFloor, type Server } from './lib/stack.ts';
import type { Target } from './lib/compare.ts';
import { grpcTarget, restTarget, urlTarget } from './lib/targets.ts';
import { wrkAvailable, wrkLoad } from './lib/wrk-load.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '12' }, 'no-pin': { type: 'boolean', default: false } }, strict: true });
const seconds = Number(values.seconds);
if (!Number.isInteger(seconds) || seconds < 2 || seconds > 120) throw new Error(`--seconds: expected 2..120, got ${values.seconds}`);
if (!wrkAvailable() || !h2loadAvailable()) throw new Error('bench:warmup needs wrk and h2load (apt-get install wrk nghttp2-client)');

const pin = pinning(!values['no-pin']);
pinSelf(pin);
const server = (command: string, args: string[]) => pin.command('server', command, args);
const CONNECTIONS = 50;
// As `npm run bench` runs every gateway by default (bench/lib/gateway-defaults.ts).
const gatewayOptions = { nodeArgs: [...GATEWAY_NODE_ARGS], env: envOf(GATEWAY_ENV), flags: gatewayFlags('info'), launch: server };

const emulator = await startEmulator(1000, { launch: (command, args) => pin.command('support', command, args) });
const get = scenario('get', emulator.org, emulator.group);
const list = scenario('list', emulator.org, emulator.group);
const grpc = { client: 'h2load' as const, callers: CONNECTIONS, sessions: CONNECTIONS, acceptGzip: false };

/** Each curve: a fresh server, and the target that loads it. */
const curves: Array<{ name: string; start: () => Promise<Server>; target: (url: string) => Target }> = [
  { name: 'floor, Get', start: () => startFloor('floor', emulator.url, { launch: server }), target: (url) => urlTarget('floor', 'server', `${url}${get.v1.path}`, CONNECTIONS, wrkLoad) },
  { name: 'gateway REST, Get', start: () => startGateway('gateway', emulator.url, gatewayOptions), target: (url) => restTarget('gateway', 'server', url, get, CONNECTIONS, wrkLoad) },
  { name: 'floor gRPC, Get', start: () => startGrpcFloor('floor-grpc', emulator.url, get.v1.path, { launch: server }), target: (url) => grpcTarget('floor gRPC', 'server', url, get, grpc) },
  { name: 'gateway gRPC, Get', start: () => startGateway('gateway', emulator.url, gatewayOptions), target: (url) => grpcTarget('gateway gRPC', 'server', url, get, grpc) },
  { name: 'floor, whole list', start: () => startFloor('floor', emulator.url, { launch: server }), target: (url) => urlTarget('floor', 'server', `${url}${list.v1.path}`, CONNECTIONS, wrkLoad) },
  { name: 'gateway REST, page of 50', start: () => startGateway('gateway', emulator.url, gatewayOptions), target: (url) => restTarget('gateway', 'server', url, list, CONNECTIONS, wrkLoad) },
];

try {
  console.log(`| server (µs of CPU per answer, 1-s slices from a fresh start) | ${Array.from({ length: seconds }, (_, i) => `s${i + 1}`).join(' | ')} |`);
  console.log(`|:--|${'--:|'.repeat(seconds)}`);
  for (const curve of curves) {
    const running = await curve.start();
    try {
      const target = curve.target(running.url);
      const pids = { server: running.child.pid };
      const slices: string[] = [];
      for (let s = 0; s < seconds; s++) {
        const before = snapshot(pids);
        const run = await target.load(1);
        const cpu = spent(before, snapshot(pids));
        if (Object.keys(run.failures).length > 0) throw new Error(`${curve.name}: failures ${JSON.stringify(run.failures)}`);
        slices.push(String(Math.round((cpu.seconds.server! * 1e6) / run.requests)));
      }
      console.log(`| ${curve.name} | ${slices.join(' | ')} |`);
    } finally {
      await running.child.stop();
    }
  }
} finally {
  await emulator.child.stop();
}
