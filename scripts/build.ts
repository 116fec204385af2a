/**
 * `npm run build` (run by `npm start` first): bundles the gateway, and the benchmark's processes, into
 * plain JavaScript in dist/ with esbuild, so `node dist/src/cli.js` runs as `node src/cli.ts` does.
 *
 * Why a bundle and not a file-for-file compile: V8 keeps the source text of every script it loads (for
 * lazy compilation), and an unbundled gateway loads ~1,500 modules with their comments and whitespace.
 * Minified (whitespace and syntax; names are kept, so stack traces still name functions) the gateway
 * idles ~10 MB lower (bench/README.md, Memory). Code split at every dynamic `import()`, so each mode still
 * loads only its own backend (test/gateway/process/mode-modules.test.ts): `native-backend-*.js`,
 * `client-*.js` (the v1 client), `postgres-*.js`, the emulator, OpenTelemetry are chunks of their own.
 *
 * Layout: entry points keep their path (dist/src/cli.js, dist/bench/gateway-process.js; the comparison's worker
 * thread is dist/src/compare-worker.js), and every chunk
 * sits in dist/src/, as deep as the sources that read files beside themselves through
 * `new URL(…, import.meta.url)`; those files are copied to where the bundle looks for them (ASSETS).
 * Source maps are written beside the chunks; `node --enable-source-maps` maps stack traces to the sources.
 */
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { build, type Plugin } from 'esbuild';

const ROOT = new URL('../', import.meta.url).pathname;
const OUT = `${ROOT}dist/`;

/**
 * The benchmark's processes (bench/README.md), built when the checkout has them: the image's build copies no bench/.
 * The least comparison's worker thread (bench/least-comparison-worker.ts) keeps its path beside the floor that starts it.
 */
const BENCH_ENTRY_POINTS = ['bench/gateway-process.ts', 'bench/floor-process.ts', 'bench/fastify-floor-process.ts', 'bench/translation-floor-process.ts', 'bench/duty-floor-process.ts', 'bench/least-comparison-worker.ts', 'bench/recorded-candidate-process.ts', 'bench/grpc-floor-process.ts', 'bench/grpc-translation-floor-process.ts', 'bench/allocation-sampler.ts'];
/**
 * The comparison's worker thread (src/compare/off-thread.ts starts it): an entry of its own, in dist/src/ beside
 * the chunks, so what it reads through `new URL(…, import.meta.url)` (the descriptors) is found as the chunks find it.
 */
const WORKER_ENTRY_POINTS = [{ in: 'src/compare/worker.ts', out: 'src/compare-worker' }];
const ENTRY_POINTS = ['src/cli.ts', ...WORKER_ENTRY_POINTS, ...BENCH_ENTRY_POINTS.filter((entry) => existsSync(`${ROOT}${entry}`))];

/** Read at run time through `new URL(…, import.meta.url)`: from → to, both from the root and dist/. */
const ASSETS: Array<[string, string]> = [
  ['package.json', 'package.json'], // src/version.ts: ../package.json
  ['src/contract/descriptors.binpb', 'src/descriptors.binpb'], // src/contract/registry.ts: ./descriptors.binpb
  ['src/v1/list-scan.wasm', 'src/list-scan.wasm'], // src/v1/list-scan.ts: ./list-scan.wasm
];

/**
 * Left to Node's resolver at run time: Swagger UI's files are served from its package folder, which it
 * finds by resolving its package.json; pg-native is pg's optional native driver, not installed.
 */
const EXTERNAL = ['swagger-ui-dist', 'pg-native'];

/** `undici` in the bundle is scripts/undici-slim.cjs: the pool and what the gateway uses, not all of undici. */
const undiciSlim: Plugin = {
  name: 'undici-slim',
  setup(bundle) {
    bundle.onResolve({ filter: /^undici$/ }, () => ({ path: `${ROOT}scripts/undici-slim.cjs` }));
  },
};

// CommonJS dependencies call require() for Node's built-ins; an ES module bundle has no require of its own.
const BANNER = "import { createRequire as __v2gwCreateRequire } from 'node:module'; const require = __v2gwCreateRequire(import.meta.url);";

// A clean tree: a source deleted or moved leaves no stale chunk behind.
rmSync(OUT, { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: ENTRY_POINTS,
  outdir: OUT,
  outbase: '.',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  chunkNames: 'src/[name]-[hash]',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  external: EXTERNAL,
  banner: { js: BANNER },
  logLevel: 'warning',
  plugins: [undiciSlim],
});
for (const [from, to] of ASSETS) {
  mkdirSync(`${OUT}${to.slice(0, to.lastIndexOf('/') + 1)}`, { recursive: true });
  copyFileSync(`${ROOT}${from}`, `${OUT}${to}`);
}
