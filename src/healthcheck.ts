/**
 * `node src/healthcheck.ts`: exits 0 when the gateway configured by the same
 * flags and V2GW_* variables answers /healthz, 1 otherwise. The container's
 * HEALTHCHECK runs it, so the probe follows --port, --host and TLS instead of
 * assuming 127.0.0.1:8080 — given as variables, or as flags on the gateway's
 * command line (`docker run v2gw node src/cli.ts --port 9000`), which it reads
 * from the container's PID 1.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { loadConfig, type Config } from './config.ts';

/** Where to reach a gateway bound to `host`: a wildcard bind is reached on loopback. */
export function probeHost(host: Config['host']): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '::1';
  return host.replace(/^\[(.*)\]$/, '$1');
}

/**
 * The flags a gateway was started with, from a NUL-separated command line: what follows
 * `src/cli.ts` or its build, `dist/src/cli.js` (`node src/cli.ts --port 9000`, or
 * `docker-init -- node dist/src/cli.js …` under `docker run --init`). Nothing when the command
 * is not the gateway's.
 */
export function gatewayFlags(cmdline: string): string[] {
  const args = cmdline.split('\0');
  if (args.at(-1) === '') args.pop();
  const at = args.findIndex((arg) => /(^|\/)(src\/cli\.ts|dist\/src\/cli\.js)$/.test(arg));
  return at < 0 ? [] : args.slice(at + 1);
}

/** In a container the gateway is PID 1 (or its only child under an init that keeps its command line); elsewhere PID 1 is no gateway. */
function containerGatewayFlags(): string[] {
  try {
    return gatewayFlags(readFileSync('/proc/1/cmdline', 'utf8'));
  } catch {
    return [];
  }
}

function probe(config: Config, timeoutMs: number): Promise<boolean> {
  const tls = !!config.tlsCert;
  const send = tls ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = send(
      // The certificate names the service, not loopback: a liveness probe checks that it answers, not who it is.
      { host: probeHost(config.host), port: config.port, path: '/healthz', method: 'GET', timeout: timeoutMs, ...(tls ? { rejectUnauthorized: false } : {}) },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

if (import.meta.main) {
  let config: Config;
  try {
    // The probe's own flags, if any, come last and win, as a later flag does.
    config = loadConfig([...containerGatewayFlags(), ...process.argv.slice(2)], process.env);
  } catch (error) {
    process.stderr.write(`v2gw healthcheck: ${(error as Error).message}\n`);
    process.exit(1);
  }
  process.exit((await probe(config, 2500)) ? 0 : 1);
}
