/**
 * Benchmark child: the gateway, built from the project's own configuration
 * (`--v1-url <url>`, or `--mode native` with a store, plus any other
 * src/config.ts flag), listening on a loopback port chosen by the OS, log
 * level `warn` unless given. Prints one JSON line `{"url"}` to stdout once it
 * is listening, then serves until its parent closes stdin or sends
 * SIGTERM/SIGINT.
 *
 * `--bench-log <file>` (this script's own flag): log lines go to that file
 * (`/dev/null`) instead of stdout, so a run at the default level `info` pays
 * for making every line without the parent reading them all off a pipe. They
 * are written as the gateway writes standard output (src/index.ts,
 * bufferedLog: once per turn of the event loop), not one write per line.
 */
import { bufferedLog, buildGateway, loadConfig, releaseStartupMemory } from '../src/index.ts';
import { stopWithParent } from './stop-with-parent.ts';

const argv = process.argv.slice(2);
const logAt = argv.indexOf('--bench-log');
const logFile = logAt >= 0 ? argv.splice(logAt, 2)[1] : undefined;
const config = await loadConfig(['--port', '0', '--host', '127.0.0.1', '--log-level', 'warn', ...argv], {});
// Translate mode needs a v1 to point at; native mode (--mode native) has none.
if (config.mode === 'translate' && !config.v1Url) throw new Error('--v1-url is required');
const app = await buildGateway(config, logFile ? { logStream: await bufferedLog(logFile) } : {});
// As src/cli.ts does: what is measured idle is the gateway `npm start` runs.
releaseStartupMemory();
const url = await app.listen({ port: config.port, host: config.host });

stopWithParent(() => app.close());

process.stdout.write(`${JSON.stringify({ url })}\n`);
