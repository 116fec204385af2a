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
 * deadline, sampling, re-read or report: what is left is the call and the diff any comparison pays.
 */
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { Pool } from 'undici';
import { endToEnd } from './lib/end-to-end.ts';
import { forwardFailed, http, serveOnLoopback } from './lib/floor-server.ts';
import { leastTranslation, TRANSLATION_OPTIONS, wholeBody } from './lib/least-translation.ts';

const { values } = parseArgs({ options: { 'v1-url': { type: 'string' }, 'compare-with': { type: 'string' }, 'compare-path': { type: 'string' }, ...TRANSLATION_OPTIONS }, strict: true });
if (!values['v1-url']) throw new Error('--v1-url is required');
if (Boolean(values['compare-with']) !== Boolean(values['compare-path'])) throw new Error('--compare-with and --compare-path go together');
const translate = leastTranslation(values);
const v1 = new Pool(values['v1-url']);
// Bounded as the gateway's comparison is by default (--compare-concurrency 8, --compare-queue 1000): a
// candidate slower than the caller costs the floor a queue, not a connection a request.
const candidate = values['compare-with'] ? new Pool(values['compare-with'], { connections: 8 }) : undefined;
const candidatePath = values['compare-path']!;
const MOST_WAITING = 1000;
let waiting = 0;
/** What the comparisons came to, answered at COUNTS_PATH: the benchmark reads a figure only where none was skipped. */
const counts = { compared: 0, equal: 0, skipped: 0, failed: 0 };
const COUNTS_PATH = '/_floor/comparisons';

/**
 * The candidate asked the same question through undici's dispatch (no stream, no promise: the lightest
 * call undici offers), its answer's chunks gathered, parsed and held against the primary's; a failure
 * only ends it.
 */
function compareWithCandidate(sent: unknown, authorization: string | undefined): void {
  if (waiting >= MOST_WAITING) {
    counts.skipped++;
    return;
  }
  waiting++;
  const chunks: Buffer[] = [];
  candidate!.dispatch({ method: 'GET', path: candidatePath, headers: authorization ? { authorization } : {} }, {
    onRequestStart: () => {},
    onResponseStart: () => {},
    onResponseData: (_controller, chunk) => void chunks.push(chunk),
    onResponseEnd: () => {
      waiting--;
      counts.compared++;
      try {
        if (isDeepStrictEqual(JSON.parse(Buffer.concat(chunks).toString('utf8')), sent)) counts.equal++;
      } catch {
        // Not JSON: nothing to hold it against.
      }
    },
    onResponseError: () => {
      waiting--;
      counts.failed++;
    },
  });
}

const server = http.createServer(async (request, response) => {
  if (candidate && request.url === COUNTS_PATH) {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counts));
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
    if (candidate) compareWithCandidate(body, request.headers.authorization);
  } catch {
    forwardFailed(response);
  }
});
serveOnLoopback(server, v1);
