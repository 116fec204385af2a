/**
 * Benchmark child: the translating floor with the gateway's default duties, over REST. Issue 40's goal 3
 * asks the gateway's Get for 0.9x the translating floor's answers per CPU "with the access log line,
 * metrics and everything the gateway does on by default"; the translating floor
 * (bench/translation-floor-process.ts) does none of that, and no framework either. This is the least a
 * gateway built as this one is (a Fastify route, as the Fastify floor's, bench/fastify-floor-process.ts)
 * spends on the same answer while doing what the issue names as always on (bench/lib/least-duties.ts):
 * the v1 call under a deadline with the caller's Authorization alone, v1's answer translated as the
 * translating floor does it (bench/lib/least-translation.ts) and sent as one JSON body, one access line
 * an answer, the request in the gateway's metrics. No input checks, authorization, request ids of the
 * caller's, error shapes, tracing or anything else the issue does not name.
 *
 * The access line and the metrics are kept in one `onResponse` hook, a callback: without a logger of its own
 * (which would cost a child logger a request), that is how Fastify tells a request is done. Fastify's own
 * request lines are off (they would be made for its null logger and thrown away).
 *
 * Asked v1's path, as the other floors are. `--v1-url <url> --resource <name> --log <file>` (and `--page
 * <n>` for a List, `--v1-timeout-ms <ms>` for a deadline other than the gateway's default); GET `/metrics`
 * answers the metrics' exposition. Prints `{"url"}` once listening on a loopback port chosen by the OS,
 * then serves until its parent closes stdin or sends SIGTERM/SIGINT.
 */
import Fastify, { LogController } from 'fastify';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { serveAppOnLoopback } from './lib/floor-server.ts';
import { DUTY_OPTIONS, leastDuties, METRICS_PATH } from './lib/least-duties.ts';
import { leastTranslation, TRANSLATION_OPTIONS } from './lib/least-translation.ts';

const { values } = parseArgs({ options: { 'v1-url': { type: 'string' }, ...DUTY_OPTIONS, ...TRANSLATION_OPTIONS }, strict: true });
if (!values['v1-url']) throw new Error('--v1-url is required');
const translate = leastTranslation(values);
const duties = await leastDuties(values);
const v1 = new Pool(values['v1-url']);

/** The answers' route, and their metrics' route label. */
const ROUTE = '/*';

const app = Fastify({ logger: false, logController: new LogController({ disableRequestLogging: true }) });
// Every answer's access line and metrics, once it is sent; the metrics' scrapes write none (the gateway's log at `warn`).
app.addHook('onResponse', (request, reply, done) => {
  if (request.url !== METRICS_PATH) duties.answered(request, ROUTE, reply.statusCode, reply.elapsedTime);
  done();
});
app.get(METRICS_PATH, async (_request, reply) => {
  const { contentType, body } = await duties.exposition();
  return reply.type(contentType).send(body);
});
app.get(ROUTE, async (request, reply) => {
  try {
    const answer = await duties.call(v1, request.url, request.headers.authorization);
    const body = translate(answer.statusCode, answer.body);
    // The benchmark counts any non-200; the floor says no more than that.
    if (body === undefined) return reply.code(502).send();
    return reply.type('application/json').send(JSON.stringify(body));
  } catch {
    return reply.code(502).send();
  }
});
await serveAppOnLoopback(app, v1);
