/**
 * gRPC load from h2load (nghttp2's HTTP/2 load generator, Debian's
 * `nghttp2-client`), when it is installed: what wrk is to REST. Our own
 * generator on grpc-js (grpc-load.ts) spends ~200-300 µs of CPU a call on the
 * core it shares with the emulator, so it, not the server under test, set the
 * pace of every gRPC figure: the gRPC floor answered ~3,100 calls a second to
 * it and ~6,200 to h2load on the same machine (bench/README.md).
 *
 * A unary call is an HTTP/2 POST of one framed message, so h2load makes it
 * with `-d` (the framed request), the gRPC headers and one stream per session
 * at a time (`-m 1`, as a unary caller waits for its answer). h2load does not
 * read trailers, where gRPC puts a call's status; every OK answer of a scenario
 * carries exactly one message of the size the probe's answer had (the probe
 * is a real gRPC client, targets.ts), so a call that failed shows as a
 * message missing from the DATA bytes h2load counts, and is counted a failure.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installed } from './installed.ts';
import type { LoadRun } from './stats.ts';

export function h2loadAvailable(): boolean {
  return installed('h2load', '--version');
}

/** A gRPC unary call, or (`http1`) a REST GET over HTTP/1.1 (bench/instructions.ts loads both with h2load). */
export interface H2loadCall {
  /** `http://host:port/package.Service/Method`, or the REST URL with its path and query. */
  url: string;
  /** The framed request message (5-byte prefix, then the message); none for a REST GET. */
  body?: Uint8Array;
  headers: Record<string, string>;
  /** The framed size of every OK answer (the probe's answer); unset for REST, whose status says it all. */
  answerBytes?: number;
  /** HTTP/1.1 (h2load `--h1`): a REST GET, no gRPC headers. */
  http1?: boolean;
}

/** `traffic: 1.52MB (1592966) total, 322.08KB (329814) headers (…), 1.16MB (1212250) data`: the exact DATA bytes. */
const DATA_BYTES = /traffic: .*?, [^,]*\((\d+)\) data/;
const TOTALS = /requests: \d+ total, \d+ started, \d+ done, \d+ succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/;

/** Load for `seconds` (h2load `-D`). */
export function h2loadLoad(call: H2loadCall, sessions: number, seconds: number): Promise<LoadRun> {
  return runH2load(call, sessions, [`-D${seconds}`], seconds, (seconds + 30) * 1000);
}

/** Exactly `requests` answers (h2load `-n`), however long they take (a server under valgrind takes long). */
export function h2loadRequests(call: H2loadCall, sessions: number, requests: number, timeoutMs: number): Promise<LoadRun> {
  return runH2load(call, sessions, [`-n${requests}`], 0, timeoutMs);
}

function runH2load(call: H2loadCall, sessions: number, limit: string[], seconds: number, timeoutMs: number): Promise<LoadRun> {
  const dir = mkdtempSync(join(tmpdir(), 'v2gw-h2load-'));
  const logFile = join(dir, 'requests.tsv');
  const request: string[] = [];
  if (call.http1) request.push('--h1');
  else request.push('-H', 'content-type: application/grpc', '-H', 'te: trailers');
  if (call.body) {
    const bodyFile = join(dir, 'request.bin');
    writeFileSync(bodyFile, call.body);
    request.push('-d', bodyFile);
  }
  const args = ['-t1', `-c${sessions}`, '-m1', ...limit, ...request, `--log-file=${logFile}`, ...Object.entries(call.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), call.url];
  return new Promise((resolve, reject) => {
    execFile('h2load', args, { encoding: 'utf8', timeout: timeoutMs }, (error, stdout) => {
      try {
        if (error) return reject(new Error(`h2load failed: ${error.message}`));
        resolve(readH2loadRun(stdout, readFileSync(logFile, 'utf8'), call.answerBytes, seconds));
      } catch (thrown) {
        reject(thrown as Error);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

/**
 * One run from what h2load printed and its `--log-file`: one line per request, its start (µs since the
 * epoch), HTTP status and µs to the end of its answer. Status 0 is a request still in flight when the
 * duration ended and cut off then; it is left out, as wrk leaves its last requests uncounted. Pure.
 */
export function readH2loadRun(stdout: string, log: string, answerBytes: number | undefined, seconds: number): LoadRun {
  const totals = TOTALS.exec(stdout);
  const data = DATA_BYTES.exec(stdout);
  if (!totals || !data) throw new Error(`h2load printed no totals: ${stdout.slice(-600)}`);
  const rows = log.split('\n').filter((line) => line.trim() !== '').map((line) => line.split('\t').map(Number)).filter((row) => row[1] !== 0);
  const failures: Record<string, number> = {};
  const notOk = rows.filter((row) => row[1] !== 200).length;
  if (notOk > 0) failures['HTTP status not 200'] = notOk;
  const [failed, errored, timedOut] = totals.slice(1).map(Number) as [number, number, number];
  if (failed + errored > 0) failures['stream failed or reset'] = failed + errored;
  if (timedOut > 0) failures.timeout = timedOut;
  const missing = answerBytes === undefined ? 0 : rows.length - notOk - Math.floor(Number(data[1]) / answerBytes);
  if (missing > 0) failures['no message (a gRPC status other than OK)'] = missing;
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const [start, , took] of rows) {
    first = Math.min(first, start!);
    last = Math.max(last, start! + took!);
  }
  return {
    requests: rows.length,
    seconds: rows.length ? (last - first) / 1e6 : seconds,
    samples: rows.map((row) => row[2]! / 1000),
    failures,
    bytes: rows.length ? Number(data[1]) / rows.length : 0,
  };
}
