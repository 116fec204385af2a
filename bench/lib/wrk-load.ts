/**
 * REST load from wrk, when it is installed: a C load generator that spends a
 * fraction of autocannon's CPU per request, which matters on two cores, where
 * the load generator's CPU is taken from the core it shares (the issue's
 * figures were measured with it). One thread, `connections` keep-alive
 * connections, for `seconds`; a Lua `done` hook prints the totals and latency
 * percentiles (µs, from wrk's own histogram) as one JSON line, so nothing is
 * scraped from wrk's human output. Statuses of 400 and above, and socket
 * errors and timeouts, count as failures.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Launch } from './children.ts';
import type { LoadRun } from './stats.ts';

const SCRIPT = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"durationUs":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%.1f,"p90":%.1f,"p99":%.1f}\\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99)))
end
`;

let scriptPath: string | undefined;
function script(): string {
  if (!scriptPath) {
    scriptPath = join(mkdtempSync(join(tmpdir(), 'v2gw-wrk-')), 'report.lua');
    writeFileSync(scriptPath, SCRIPT);
  }
  return scriptPath;
}

export function wrkAvailable(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk --version prints its banner and exits 1; only a missing binary is ENOENT.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

interface WrkReport {
  requests: number;
  durationUs: number;
  bytes: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50: number;
  p90: number;
  p99: number;
}

/** `launch`: how wrk is started (pinned to a core: the `compare` part runs it beside the server it loads). */
export function wrkLoad(url: string, headers: Record<string, string>, connections: number, seconds: number, launch?: Launch): Promise<LoadRun> {
  const [command, args] = (launch ?? ((c: string, a: string[]) => [c, a] as [string, string[]]))('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', script(), ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), url]);
  return new Promise((resolve, reject) => {
    execFile(command, args, { encoding: 'utf8', timeout: (seconds + 30) * 1000 }, (error, stdout) => {
      if (error) return reject(new Error(`wrk failed: ${error.message}`));
      const line = stdout.split('\n').find((l) => l.startsWith('{"requests":'));
      if (!line) return reject(new Error(`wrk printed no report: ${stdout.slice(0, 300)}`));
      const r = JSON.parse(line) as WrkReport;
      const failures: Record<string, number> = {};
      if (r.status > 0) failures['HTTP status >= 400'] = r.status;
      const socket = r.connect + r.read + r.write;
      if (socket > 0) failures['socket error'] = socket;
      if (r.timeout > 0) failures.timeout = r.timeout;
      resolve({
        requests: r.requests,
        seconds: r.durationUs / 1e6,
        samples: [],
        percentiles: { p50Ms: r.p50 / 1000, p90Ms: r.p90 / 1000, p99Ms: r.p99 / 1000 },
        failures,
        bytes: r.requests ? r.bytes / r.requests : 0,
      });
    });
  });
}
