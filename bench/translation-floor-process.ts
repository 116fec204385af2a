/**
 * Benchmark child: the translating floor. The least any gateway in Node spends to answer a v2 Get or List
 * page from v1: the raw floor's forward (bench/floor-process.ts) with v1's answer translated as
 * bench/lib/least-translation.ts says (read whole, parsed with JSON.parse, the served rows rendered by the
 * gateway's own renderer) and sent as one JSON body. Nothing else: no routing, input checks, filters,
 * order, page tokens, kept times, logging or metrics, which the gateway must also do.
 *
 * So it bounds a target from below: a List page read afresh costs a translator at least this much (the
 * whole list parsed), whatever it does besides. Read beside the gateway, it tells the cost of reading
 * v1's answer from the cost of the gateway's own work (bench/README.md, The floor).
 *
 * Requests carry v1's path, as the other floors' do. `--v1-url <url> --resource <name>`, and `--page <n>`
 * for a List (answers `{ <name>: [the first n rows] }`); without it, a Get (answers the first row alone).
 * Prints `{"url"}` once listening on a loopback port chosen by the OS, then serves until its parent closes
 * stdin or sends SIGTERM/SIGINT.
 *
 * `--compare-with <url> --compare-path <path>`: the least a comparing gateway adds to each answer (the
 * `compare` part's floor). Once the answer is sent, the same question is asked of a candidate (v2's path),
 * its answer read whole, parsed and held against the one sent; nothing is counted or kept. No queue,
 * deadline, sampling, re-read or report: what is left is the call and the diff any comparison pays
 * (bench/lib/least-comparison.ts).
 *
 * `--compare-on-worker` with them: the same comparison made on a worker thread of its own, named
 * FLOOR_COMPARISON_THREAD (bench/least-comparison-worker.ts), with the least hand-over a Node process can
 * make (bench/lib/compare-on-worker.ts): the answer's JSON text and the caller's Authorization, batched
 * for `--compare-window-ms` (2, as the gateway's hand-over; 0: one message an event-loop turn), the counts
 * kept by the worker in shared memory. What a comparison costs when it too runs beside the caller's
 * event loop, the gateway's way.
 */
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { compareOnWorker } from './lib/compare-on-worker.ts';
import { endToEnd } from './lib/end-to-end.ts';
import { forwardFailed, http, serveOnLoopback } from './lib/floor-server.ts';
import { countSlots, countsOf, leastComparison } from './lib/least-comparison.ts';
import { leastTranslation, TRANSLATION_OPTIONS, wholeBody } from './lib/least-translation.ts';

const { values } = parseArgs({
  options: {
    'v1-url': { type: 'string' },
    'compare-with': { type: 'string' },
    'compare-path': { type: 'string' },
    'compare-on-worker': { type: 'boolean', default: false },
    'compare-window-ms': { type: 'string', default: '2' },
    ...TRANSLATION_OPTIONS,
  },
  strict: true,
});
if (!values['v1-url']) throw new Error('--v1-url is required');
if (Boolean(values['compare-with']) !== Boolean(values['compare-path'])) throw new Error('--compare-with and --compare-path go together');
if (values['compare-on-worker'] && !values['compare-with']) throw new Error('--compare-on-worker goes with --compare-with');
const windowMs = Number(values['compare-window-ms']);
if (!Number.isInteger(windowMs) || windowMs < 0 || windowMs > 1000) throw new Error(`--compare-window-ms: expected 0..1000, got ${values['compare-window-ms']}`);
const translate = leastTranslation(values);
const v1 = new Pool(values['v1-url']);
const COUNTS_PATH = '/_floor/comparisons';

/** Where an answer goes to be compared (its document and its JSON text), and the counts so far; none when not comparing. */
interface Comparing {
  offer(body: unknown, text: string, authorization: string | undefined): void;
  counts(): object;
}

function comparing(): Comparing | undefined {
  const url = values['compare-with'];
  if (!url) return undefined;
  const path = values['compare-path']!;
  if (values['compare-on-worker']) {
    // The worker's entry beside this script: its source, or its build (scripts/build.ts keeps bench/ entries' paths).
    const entry = new URL(import.meta.url.endsWith('.ts') ? './least-comparison-worker.ts' : './least-comparison-worker.js', import.meta.url);
    const onWorker = compareOnWorker({ entry, url, path, windowMs });
    return { offer: (_body, text, authorization) => onWorker.offer(text, authorization), counts: onWorker.counts };
  }
  const slots = countSlots();
  const compare = leastComparison({ url, path, counts: slots });
  return { offer: (body, text, authorization) => compare(text, body, authorization), counts: () => countsOf(slots) };
}
const comparison = comparing();

const server = http.createServer(async (request, response) => {
  if (comparison && request.url === COUNTS_PATH) {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(comparison.counts()));
    return;
  }
  try {
    const answer = await v1.request({ method: 'GET', path: request.url!, headers: endToEnd(request.headers) });
    const body = translate(answer.statusCode, await wholeBody(answer.body));
    if (body === undefined) {
      forwardFailed(response);
      return;
    }
    const text = JSON.stringify(body);
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
    comparison?.offer(body, text, request.headers.authorization);
  } catch {
    forwardFailed(response);
  }
});
serveOnLoopback(server, v1);
