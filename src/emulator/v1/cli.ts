/**
 * Standalone v1 emulator: `node src/emulator/v1/cli.ts --port 8081 --host 127.0.0.1 --seed demo`.
 */
import { parseArgs } from 'node:util';
import { startEmulator } from './index.ts';

const USAGE = `Usage: npm run emulator -- [options]

A faithful v1 API server (groups, identities, roles, role bindings, identity providers,
account associations, group invites, repos, tags, advisories), for trying and testing v2gw.

  --port N                port to listen on (default 8081; 0 picks a free one)
  --host ADDRESS          address to bind (default 127.0.0.1)
  --seed demo|none|large  start with a demo organisation, empty, or a large organisation (default demo)
  --groups N              with --seed large: the groups it holds (default 10000)
  --latency-ms N          delay every answer by N milliseconds (default 0)
  --omit-group-timestamps answer groups without createdAt/updatedAt, as the public v1 does
  --log                   log every request
  --help                  print this and exit
`;

/** A bad command line is said in one plain line and the usage, never a stack trace. */
function refuse(problem: string): never {
  process.stderr.write(`v1 emulator: ${problem}\n\n${USAGE}`);
  process.exit(2);
}

function wholeNumber(flag: string, raw: string, max: number): number {
  // Decimal digits only: Number() would read 0x50 as 80 and 1e3 as 1000.
  if (!/^\d{1,15}$/.test(raw) || Number(raw) > max) refuse(`--${flag}: expected a whole number from 0 to ${max}, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      port: { type: 'string', default: '8081' },
      host: { type: 'string', default: '127.0.0.1' },
      seed: { type: 'string', default: 'demo' },
      groups: { type: 'string', default: '10000' },
      'latency-ms': { type: 'string', default: '0' },
      'omit-group-timestamps': { type: 'boolean', default: false },
      log: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  }));
} catch (error) {
  // parseArgs words some refusals on two lines (`--port -1`: "ambiguous" and a hint); one line reads better in a log.
  refuse((error as Error).message.replace(/\s*\n\s*/g, " "));
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const port = wholeNumber('port', values.port, 65535);
const latencyMs = wholeNumber('latency-ms', values['latency-ms'], 600_000);
if (values.seed !== 'demo' && values.seed !== 'none' && values.seed !== 'large') refuse(`--seed: expected demo, none or large, got ${JSON.stringify(values.seed)}`);
const groups = wholeNumber('groups', values.groups, 10_000_000);

const emulator = await startEmulator({
  port,
  host: values.host,
  seed: values.seed,
  groups,
  latencyMs,
  omitGroupTimestamps: values['omit-group-timestamps'],
  logger: values.log,
}).catch((error: Error) => refuse(`cannot start: ${error.message}`));

console.log(`v1 emulator listening on ${emulator.url}`);
if (emulator.large) {
  console.log(`large org: ${emulator.large.org} (${emulator.large.groups} groups, ${emulator.large.identities} identities, ${emulator.large.roleBindings} role bindings)`);
} else if (emulator.demo) {
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
