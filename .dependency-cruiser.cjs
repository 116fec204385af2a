/**
 * The house's import rules, checked by dependency-cruiser (`npm run lint:imports`, run first by `npm test`).
 *
 * Arrows point one way: transport → operation → policy → render → backend port → aip and the other low
 * folders. The rules below say the parts of that a folder name can carry; each one names what it keeps
 * apart, so a violation reads as the design it breaks. Type-only imports count: a shared type in the
 * wrong place is an arrow the wrong way too.
 *
 * test/ is not cruised: a test may import whatever it tests.
 *
 * Why dependency-cruiser and not a script of our own: it resolves imports as TypeScript does (this
 * tsconfig, `.ts` specifiers, type-only imports), reports every cycle with its path, and keeps the
 * rules as data a reader can check against the design.
 */

/** What no lower folder may import: the edges of the request's way down, the wiring, and the resources' mappings. */
const HIGHER = '^src/(transport|operation|policy|passthrough)/|^src/(server|cli|startup|healthcheck|index)\\.ts$|^mappings/';

/** The low folders (pure helpers, the contract, the store, the v1 client, metrics and traces) and the low helpers at the top of src/. */
const LOWER = '^src/(aip|contract|store|v1|observability)/|^src/(uidp|rpc-status|cancellation|node-http|version)\\.ts$';

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
    {
      name: 'lower-imports-no-higher',
      severity: 'error',
      comment: 'aip/, contract/, store/, v1/, observability/ and the shared helpers (uidp.ts, rpc-status.ts, cancellation.ts, …) sit below the transports, the operation, the policies and the wiring; what both need belongs in the lower place.',
      from: { path: LOWER },
      to: { path: HIGHER },
    },
    {
      name: 'observability-imports-what-it-observes-not',
      severity: 'error',
      comment: 'The store and the v1 client report to observability (a query, a call, a span); observability declares what it reads and imports neither back.',
      from: { path: '^src/observability/' },
      to: { path: '^src/(store|v1|engine|native|contract)/' },
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
