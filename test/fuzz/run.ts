/**
 * The long fuzz run: the CI suite (test/fuzz/fuzz.test.ts) with more requests,
 * a chosen seed and chosen modes, or one request replayed.
 *
 *   npm run fuzz -- --seed 1234 --requests 20000 --modes translate,native,native-pg
 *   npm run fuzz -- --seed 1234 --modes native --only 817        # replay request #817
 *   npm run fuzz -- --requests 5000 --trace                      # print every request and answer
 *
 * Options: --seed N (default: random, printed), --requests M per mode (default 5000),
 * --modes a,b (or `--modes a b`; default all three), --only i,j, --concurrency C (default 4), --trace
 * (every request and its answer), --memtrace (memory after a forced GC every 1,000 requests).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const USAGE = 'usage: npm run fuzz -- [--seed N] [--requests M] [--modes translate,native,native-pg] [--only i,j] [--concurrency C] [--trace] [--memtrace]';

const settings: Record<string, string> = { V2GW_FUZZ_REQUESTS: '5000' };
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const flag = args[i]!;
  const [name, inline] = flag.includes('=') ? flag.split('=', 2) as [string, string] : [flag, undefined];
  const value = (): string => {
    if (inline !== undefined) return inline;
    const next = args[++i];
    if (next === undefined || next.startsWith('--')) throw new Error(`${name} needs a value\n${USAGE}`);
    return next;
  };
  const number = (): string => {
    const v = value();
    if (!/^\d+$/.test(v)) throw new Error(`${name} takes a whole number, not ${v}\n${USAGE}`);
    return v;
  };
  switch (name) {
    case '--seed': settings.V2GW_FUZZ_SEED = number(); break;
    case '--requests': settings.V2GW_FUZZ_REQUESTS = number(); break;
    case '--concurrency': settings.V2GW_FUZZ_CONCURRENCY = number(); break;
    case '--only': settings.V2GW_FUZZ_ONLY = value(); break;
    case '--trace': settings.V2GW_FUZZ_TRACE = '1'; break;
    case '--memtrace': settings.V2GW_FUZZ_MEMTRACE = '1'; break;
    case '--modes': {
      const modes = [value()];
      while (inline === undefined && args[i + 1] !== undefined && !args[i + 1]!.startsWith('--')) modes.push(args[++i]!);
      settings.V2GW_FUZZ_MODES = modes.join(',');
      break;
    }
    case '--help':
    case '-h':
      console.log(USAGE);
      process.exit(0);
      break;
    default:
      console.error(`unknown option ${flag}\n${USAGE}`);
      process.exit(2);
  }
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const child = spawn(process.execPath, [vitest, 'run', 'test/fuzz/fuzz.test.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, ...settings },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
