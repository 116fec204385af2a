/**
 * The benchmark's gateway and floor run from the build (dist/, `npm run build`), as the image and
 * `npm start` run the gateway: plain JavaScript, with no TypeScript stripper in the process whose
 * memory is read. Each checkout is built once per benchmark process (this one, or a worktree of an
 * earlier commit that is compared with it), so a run always measures the sources as they are.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** This checkout's root (the directory holding bench/, src/ and package.json). */
export const CHECKOUT = resolve(new URL('../../', import.meta.url).pathname);
const builtRoots = new Set<string>();

/** The built counterpart of `source` (a path from the checkout's root, `bench/gateway-process.ts`) in the checkout at `root`. */
export function builtScript(source: string, checkout = CHECKOUT): string {
  const root = resolve(checkout);
  if (!builtRoots.has(root)) {
    const build = join(root, 'scripts', 'build.ts');
    if (!existsSync(build)) throw new Error(`${root} has no scripts/build.ts: its commit predates the build, so it cannot run as this one does`);
    execFileSync(process.execPath, [build], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    builtRoots.add(root);
  }
  return join(root, 'dist', source.replace(/\.ts$/, '.js'));
}
