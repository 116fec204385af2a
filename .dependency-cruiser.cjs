/**
 * The house's import rules, checked by dependency-cruiser (`npm run lint:imports`, run first by `npm test`).
 *
 * Arrows point one way, down the layers below (LAYERS, one per row of docs/design.md's "Arrows one way"):
 * the wiring → the transports → the comparison tap → the policy → the events → the operation runner → the mappings →
 * the render stage → the two ports' adapters → the port → the contract → the vocabulary → the request
 * context, store, v1 client and observability → aip/ and the shared helpers. Each rule names what it keeps
 * apart, so a violation reads as the design it breaks. Type-only imports count: a shared type in the
 * wrong place is an arrow the wrong way too.
 *
 * test/ is not cruised: a test may import whatever it tests.
 *
 * Why dependency-cruiser and not a script of our own: it resolves imports as TypeScript does (this
 * tsconfig, `.ts` specifiers, type-only imports), reports every cycle with its path, and keeps the
 * rules as data a reader can check against the design.
 */

/**
 * The layers, from the top of a request's way down to the floor. A module may import its own layer and
 * the layers below it, never one above: reading the folder names in this order a newcomer finds where a
 * request is received, compared, authorized, run, translated or stored, and what all of them stand on.
 * Every folder of src/ (and mappings/) is in exactly one layer; `every-module-has-a-layer` fails a new
 * folder until it is placed here.
 */
const LAYERS = [
  { name: 'the wiring and the entry points', path: '^src/(server|cli|startup|healthcheck|index)\\.ts$|^src/import/' },
  { name: 'the transports', path: '^src/(transport|passthrough)/' },
  { name: 'the comparison tap', path: '^src/compare/' },
  { name: 'the policy', path: '^src/(policy|identity)/' },
  { name: 'the events (a write recorded with its events, and their delivery)', path: '^src/events/' },
  { name: 'the operation runner', path: '^src/operation/' },
  { name: 'the mappings', path: '^mappings/' },
  { name: 'the render stage', path: '^src/render/' },
  { name: 'the two ports\' adapters', path: '^src/(translate|native)/' },
  { name: 'the port', path: '^src/port/' },
  { name: 'the contract', path: '^src/contract/' },
  { name: 'the mapping vocabulary', path: '^src/vocabulary/' },
  { name: 'the request context, the store, the v1 client, observability', path: '^src/(request|store|v1|observability)/|^src/(config|log)\\.ts$' },
  { name: 'the floor', path: '^src/aip/|^src/(uidp|rpc-status|cancellation|node-http|version)\\.ts$' },
];

/** One rule per layer: nothing it holds imports a layer above it. */
const LAYER_RULES = LAYERS.slice(1).map((layer, i) => ({
  name: `layer-${i + 1}-imports-no-higher`,
  severity: 'error',
  comment: `${layer.name} sit(s) below ${LAYERS.slice(0, i + 1).map((l) => l.name).join(', ')}: what both need belongs in the lower place.`,
  from: { path: layer.path },
  to: { path: LAYERS.slice(0, i + 1).map((l) => l.path).join('|') },
}));

/** The public seams: the gateway's (what an embedder may use), and the emulator's own (the v1 API and its issuer). */
const EMULATOR_ENTRIES = ['^src/emulator/v1/index\\.ts$', '^src/emulator/issuer/index\\.ts$'];
const PUBLIC_ENTRIES = ['^src/index\\.ts$', ...EMULATOR_ENTRIES];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes its modules one unit: none can be read, tested or loaded without the others. Move what both sides need lower.',
      from: { path: '^(src|mappings)/' },
      to: { circular: true },
    },
    {
      name: 'emulator-imports-only-itself',
      severity: 'error',
      comment: 'The v1 emulator is the v1 contract written from the facts, never from the gateway: it imports nothing of the gateway, the mappings, the benchmark or the tests.',
      from: { path: '^src/emulator/' },
      to: { path: '^(src|mappings|bench|scripts|test)/', pathNot: '^src/emulator/' },
    },
    {
      name: 'gateway-imports-no-emulator',
      severity: 'error',
      comment: 'The gateway serves in front of a real v1; only the CLI starts the emulator, for the demo (translate mode without --v1-url).',
      from: { path: '^(src|mappings)/', pathNot: ['^src/emulator/', '^src/cli\\.ts$'] },
      to: { path: '^src/emulator/' },
    },
    {
      name: 'cli-starts-the-emulator-through-its-entry',
      severity: 'error',
      comment: 'The one allowed exception above goes through the emulator\'s public entries only.',
      from: { path: '^src/cli\\.ts$' },
      to: { path: '^src/emulator/', pathNot: EMULATOR_ENTRIES },
    },
    ...LAYER_RULES,
    {
      name: 'every-module-has-a-layer',
      severity: 'error',
      comment: 'A folder no layer names escapes the rules above: place it in LAYERS.',
      from: { path: '^(src|mappings)/', pathNot: ['^src/emulator/', ...LAYERS.map((l) => l.path)] },
      to: {},
    },
    ...['translate', 'native'].map((from, i, both) => ({
      name: `${from}-imports-no-${both[1 - i]}`,
      severity: 'error',
      comment: 'The v1 adapter and the store adapter are two implementations of one port: what both need is the port\'s, or lower.',
      from: { path: `^src/${from}/` },
      to: { path: `^src/${both[1 - i]}/` },
    })),
    {
      name: 'observability-imports-what-it-observes-not',
      severity: 'error',
      comment: 'The store and the v1 client report to observability (a query, a call, a span); observability declares what it reads and imports neither back.',
      from: { path: '^src/observability/' },
      to: { path: '^src/(store|v1|port|translate|native|contract|request)/' },
    },
    {
      name: 'aip-is-the-floor',
      severity: 'error',
      comment: 'aip/ is pure AIP machinery (errors, page tokens, order_by, masks, windows): it imports only itself and the status codes.',
      from: { path: '^src/aip/' },
      to: { path: '^(src|mappings)/', pathNot: ['^src/aip/', '^src/rpc-status\\.ts$'] },
    },
    {
      name: 'bench-and-scripts-use-the-public-entry',
      severity: 'error',
      comment: 'bench/ and scripts/ use the gateway as an embedder would, through src/index.ts (and the emulator through its own entry), so the internals stay free to move.',
      from: { path: '^(bench|scripts)/' },
      to: { path: '^(src|mappings)/', pathNot: PUBLIC_ENTRIES },
    },
    {
      name: 'product-needs-no-dev-dependency',
      severity: 'error',
      comment: 'The image installs production dependencies only (npm ci --omit=dev): what src/ and mappings/ load must be in "dependencies".',
      from: { path: '^(src|mappings)/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-unlisted-package',
      severity: 'error',
      comment: 'A package imported but not in package.json works only by the accident of another one bringing it.',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
