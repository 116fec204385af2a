/**
 * `node --expose-gc bench/tracing-memory.ts off|on`: what loading the
 * OpenTelemetry SDK costs a sidecar in memory. Builds a native-mode gateway
 * with tracing off, or on with nothing sampled (so the figure is the SDK's,
 * not buffered spans'), injects 200 Lists carrying a caller's traceparent,
 * collects garbage and prints the process's memory.
 */
import { buildGateway, loadConfig } from '../src/index.ts';

const on = process.argv[2] === 'on';
// Port 9 (discard): nothing is sampled, so nothing is ever sent there.
const env = on ? { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_TRACES_SAMPLER: 'always_off' } : {};
const app = await buildGateway(await loadConfig(['--mode', 'native'], {}), { env, logStream: { write() {} } as never });
const headers = { authorization: 'Bearer bench', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
for (let i = 0; i < 200; i++) await app.inject({ method: 'GET', url: '/iam/v2beta1/groups', headers });
(globalThis as { gc?: () => void }).gc?.();
await new Promise((resolve) => setTimeout(resolve, 200));
const { rss, heapUsed } = process.memoryUsage();
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
process.stdout.write(`tracing ${on ? 'on (always_off)' : 'off'}: rss ${mib(rss)}, heapUsed ${mib(heapUsed)}, tracing=${app.tracing}\n`);
await app.close();
