/**
 * A walk of a 10,000-group collection, page_size 50 (200 pages), through a
 * gateway with the walk cache (the default) and through one without it
 * (`--walk-cache-ms 0`), each its own process against the same emulator
 * process: wall time, v1 calls, full v1 fetches, and the first page against
 * the mean later page. `node bench/walk.ts [--groups N] [--page-size N]`.
 * `npm run bench` measures the same walk (bench/lib/walk.ts) among its figures.
 */
import { parseArgs } from 'node:util';
import { startEmulator, startGateway } from './lib/stack.ts';
import { walk, type Walked } from './lib/walk.ts';

const { values } = parseArgs({ options: { groups: { type: 'string', default: '10000' }, 'page-size': { type: 'string', default: '50' } } });
const groups = Number(values.groups);
const pageSize = Number(values['page-size']);

const emulator = await startEmulator(groups);
const cached = await startGateway('gateway-walk-cache', emulator.url, { flags: ['--debug-headers'] });
const uncached = await startGateway('gateway-no-walk-cache', emulator.url, { flags: ['--debug-headers', '--walk-cache-ms', '0'] });
try {
  // One walk each to warm up, then the measured one.
  for (const gateway of [cached, uncached]) await walk(gateway.url, emulator.org, pageSize);
  const results: Record<string, Walked> = {
    'walk cache (default)': await walk(cached.url, emulator.org, pageSize),
    'no walk cache': await walk(uncached.url, emulator.org, pageSize),
  };
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
