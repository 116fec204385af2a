/**
 * Standalone v1 emulator: `node src/emulator/v1/cli.ts --port 8081 --host 127.0.0.1 --seed demo`.
 */
import { parseArgs } from 'node:util';
import { startEmulator } from './index.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8081' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: 'demo' },
    'latency-ms': { type: 'string', default: '0' },
    'omit-group-timestamps': { type: 'boolean', default: false },
    log: { type: 'boolean', default: false },
  },
  strict: true,
});

const port = Number(values.port);
const latencyMs = Number(values['latency-ms']);
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port number: ${values.port}`);
if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new Error(`--latency-ms: not a duration: ${values['latency-ms']}`);
if (values.seed !== 'demo' && values.seed !== 'none') throw new Error(`--seed: expected demo or none, got ${values.seed}`);

const emulator = await startEmulator({
  port,
  host: values.host,
  seed: values.seed,
  latencyMs,
  omitGroupTimestamps: values['omit-group-timestamps'],
  logger: values.log,
});

console.log(`v1 emulator listening on ${emulator.url}`);
if (emulator.demo) {
  console.log(`demo org: ${emulator.demo.orgId}`);
  console.log(`try: curl -H 'Authorization: Bearer demo' '${emulator.url}/iam/v1/groups?uidp.descendantsOf=${emulator.demo.orgId}'`);
} else {
  console.log(`try: curl -X POST -H 'Authorization: Bearer demo' -d '{"name":"my-org"}' '${emulator.url}/iam/v1/groups'`);
}

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping v1 emulator`);
  await emulator.close();
  process.exit(0);
}
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));
