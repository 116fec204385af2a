/**
 * The benchmark's gateway and floor run from the build (dist/, `npm run build`), as the image and
 * `npm start` run the gateway: plain JavaScript, with no TypeScript stripper in the process whose
 * memory is read. Built once per benchmark process, so a run always measures the sources as they are.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
let built = false;

/** The built counterpart of `source` (a path from the checkout's root, `bench/gateway-process.ts`). */
export function builtScript(source: string): string {
  if (!built) {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.ts')], { stdio: ['ignore', 'inherit', 'inherit'] });
    built = true;
  }
  return join(ROOT, 'dist', source.replace(/\.ts$/, '.js'));
}
