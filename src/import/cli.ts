/**
 * `npm run import -- --v1-url <url> --token-file <file> (--data-dir <dir> | --store <postgres url>) [--root <org uid> …] [--verify]`:
 * v1's data into the native store, for the cut-over. Exit 0: done (and, with
 * --verify, both sides serve the same); 1: differences found or rows refused;
 * 2: a bad command line or v1 or the store could not be used.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { COPIES_FROM_V1, MAPPINGS } from '../../mappings/index.ts';
import { describeStore, storeLocation } from '../config.ts';
import { MappingRegistry } from '../port/registry.ts';
import { openStore } from '../store/open.ts';
import { isUidp } from '../uidp.ts';
import { readExpectations, type ExpectedDifference } from '../compare/expected.ts';
import { formatDifferences, formatSummary, ProgressLine } from './report.ts';
import { runImport } from './run-import.ts';
import { V1ReadError } from './v1-reader.ts';

const USAGE = `Usage: npm run import -- --v1-url URL --token-file FILE (--data-dir DIR | --store POSTGRES_URL) [options]

Copies every resource v1 holds into the native store, keeping uids, names, relations and times.
Safe to run again: a second run changes nothing, and a run cut off finishes where it stopped.

  --v1-url URL          the v1 API to read (required)
  --token-file FILE     a file holding the bearer token for v1 (required; never printed)
  --data-dir DIR        the native store's SQLite directory, as the gateway's --data-dir
  --store URL           or the PostgreSQL store, as the gateway's --store
  --root UID            only this organisation and what lies under it (repeatable; default: all v1 shows the token)
  --batch N             rows per transaction (default 500)
  --prune               delete the store's rows of v1's resources that v1 no longer has (default: only count them)
  --verify              afterwards, read every row of every resource through translate and native mode and report
                        differences; those declared expected are named with their reason and do not fail
  --compare-expect FILE a team's own expected differences for --verify: [{"method", "field", "reason"}]
  --help                print this and exit
`;

function refuse(problem: string): never {
  process.stderr.write(`import: ${problem}\n\n${USAGE}`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      'v1-url': { type: 'string' },
      'token-file': { type: 'string' },
      'data-dir': { type: 'string' },
      store: { type: 'string' },
      root: { type: 'string', multiple: true, default: [] },
      batch: { type: 'string', default: '500' },
      verify: { type: 'boolean', default: false },
      'compare-expect': { type: 'string' },
      prune: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  }));
} catch (error) {
  refuse((error as Error).message.replace(/\s*\n\s*/g, ' '));
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const v1Url = values['v1-url'];
if (!v1Url || !/^https?:\/\/./.test(v1Url)) refuse('--v1-url: an http(s) URL is required');
if (!values['token-file']) refuse('--token-file is required');
if (!values['data-dir'] === !values.store) refuse('give the store: --data-dir or --store, one of them');
if (values.store && !/^postgres(ql)?:\/\//.test(values.store)) refuse('--store: must be a postgres:// URL');
for (const root of values.root) if (!isUidp(root)) refuse(`--root: ${JSON.stringify(root)} is not a UIDP`);
if (!/^\d{1,6}$/.test(values.batch) || Number(values.batch) < 1) refuse('--batch: a whole number from 1 to 999999');
let token: string;
try {
  token = readFileSync(values['token-file'], 'utf8').trim();
} catch (error) {
  refuse(`cannot read --token-file: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
}
if (!token) refuse('--token-file is empty');
let expected: ExpectedDifference[] = [];
try {
  if (values['compare-expect']) expected = readExpectations(values['compare-expect']);
} catch (error) {
  refuse((error as Error).message);
}

const location = storeLocation({ dataDir: values['data-dir'], store: values.store });
const registry = new MappingRegistry(MAPPINGS);
const authorization = `Bearer ${token}`;
let store;
try {
  store = await openStore(location);
} catch (error) {
  process.stderr.write(`import: cannot open the store ${describeStore(location)}: ${(error as Error).message}\n`);
  process.exit(2);
}

let status = 0;
try {
  const progress = new ProgressLine(process.stderr);
  const started = Date.now();
  const summaries = await runImport({
    source: { url: v1Url, authorization, timeoutMs: 60_000 },
    store,
    registry,
    copies: COPIES_FROM_V1,
    roots: values.root,
    batch: Number(values.batch),
    prune: values.prune,
    onProgress: (summary) => progress.show(summary),
  });
  progress.done();
  // Peak resident memory (maxRSS, in KiB): what a run of this size needs from its container.
  process.stdout.write(formatSummary(summaries, Date.now() - started, process.resourceUsage().maxRSS * 1024));
  if (summaries.some((s) => s.refused > 0)) status = 1;
  if (values.verify) {
    // Loaded only when asked for: it starts two gateways, which an import alone does not need.
    const { verified, verifyImport } = await import('./verify-import.ts');
    const differences = await verifyImport({ v1Url, authorization, store, registry, roots: values.root, expected });
    process.stdout.write(formatDifferences(differences));
    if (!verified(differences)) status = 1;
  }
} catch (error) {
  const reason = error instanceof V1ReadError ? error.message : `${(error as Error).name}: ${(error as Error).message}`;
  process.stderr.write(`\nimport: stopped: ${reason}\nWhat was written so far is kept; run the same command again to finish.\n`);
  status = 2;
} finally {
  await store.close();
}
process.exit(status);
