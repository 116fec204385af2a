/**
 * Benchmark child: the gateway, built from the project's own configuration
 * (`--v1-url <url>`, or `--mode native` with a store, plus any other
 * src/config.ts flag), listening on a loopback
 * port chosen by the OS, log level `warn`. Prints one JSON line `{"url"}` to
 * stdout once it is listening, then serves until its parent closes stdin or
 * sends SIGTERM/SIGINT.
 */
import { loadConfig } from '../src/config.ts';
import { buildGateway } from '../src/server.ts';
import { stopWithParent } from './stop-with-parent.ts';

const config = loadConfig(['--port', '0', '--host', '127.0.0.1', '--log-level', 'warn', ...process.argv.slice(2)], {});
// Translate mode needs a v1 to point at; native mode (--mode native) has none.
if (config.mode === 'translate' && !config.v1Url) throw new Error('--v1-url is required');
const app = await buildGateway(config);
const url = await app.listen({ port: config.port, host: config.host });

stopWithParent(() => app.close());

process.stdout.write(`${JSON.stringify({ url })}\n`);
