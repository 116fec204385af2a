/**
 * Logging: pino, with secrets redacted by path before anything is written.
 * Only an allowlist of request headers is logged, so an unforeseen secret
 * header never is; credential headers stay on the list so an operator can see
 * one was sent, and the request serializer censors their values (pino's
 * redaction by path is a second guard on every line but the access line).
 */
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'config.pageTokenKey',
  'pageTokenKey',
  '*.authorization',
  'authorization',
];

const LOGGED_HEADERS = [
  'host', 'user-agent', 'content-type', 'content-length', 'x-request-id', 'x-forwarded-for',
  'authorization', 'cookie', 'proxy-authorization', 'x-api-key',
];

/** Headers whose value is a credential: logged as present, never by value. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization', 'x-api-key']);

/** The allowlist with each header's credential flag beside it: one lookup of the request's headers per name, no set asked. */
const LOGGED: ReadonlyArray<readonly [string, boolean]> = LOGGED_HEADERS.map((name) => [name, CREDENTIAL_HEADERS.has(name)]);

function loggedHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (let i = 0; i < LOGGED.length; i++) {
    const [name, credential] = LOGGED[i]!;
    const value = headers[name];
    if (value === undefined) continue;
    // Censored here, where the allowlist is applied, so no value ever reaches pino; its redaction stays as a second guard.
    kept[name] = credential ? '[REDACTED]' : value;
  }
  return kept;
}

interface LoggedRequest {
  method: string;
  url: string;
  headers: Record<string, unknown>;
  ip?: string;
}

/** A request as every line shows it (pino's `req` serializer, and the access line). No `id`: every line of a request already carries it as `reqId`. */
export function requestSummary(req: LoggedRequest): Record<string, unknown> {
  return { method: req.method, url: req.url, remoteAddress: req.ip, headers: loggedHeaders(req.headers) };
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    serializers: { req: requestSummary },
  };
}

/** A duration in ms as a log line carries it: to the microsecond (`37.045`, not `37.04481199999998`). */
export function logMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * Standard output (or `dest`, a file descriptor or path), with one write(2) per turn of the event
 * loop for all the lines of that turn: at one access line per request, a write per line was 4% of a
 * Get's CPU, and under load many requests finish in the same turn. A turn's lines leave at its end
 * (sooner past FLUSH_CHARS), and those still waiting when the process exits, crashes included, are
 * written then.
 *
 * The write is synchronous, as pino's own destination is by default. Measured on a Get (wrk c=50,
 * gateway pinned to one core, log level info): 115–118 µs of CPU with the write handed to libuv's
 * thread pool and sonic-boom buffering the lines (`minLength`), 104–107 µs with this, against
 * 96–101 µs with no access line at all (`warn`). The price is pino's: a reader that stops reading standard
 * output stalls the gateway, where the asynchronous write would have grown its memory instead.
 */
const FLUSH_CHARS = 64 * 1024;

/** Destinations holding lines not yet written, flushed when the process exits. */
const unflushed = new Set<() => void>();
let exitHookInstalled = false;

export function bufferedDestination(dest: number | string = 1): DestinationStream & { flush(): void; flushSync(): void } {
  const destination = pino.destination({ dest, sync: true });
  let lines: string[] = [];
  let chars = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    unflushed.delete(flush);
    if (lines.length === 0) return;
    const chunk = lines.length === 1 ? lines[0]! : lines.join('');
    lines = [];
    chars = 0;
    try {
      destination.write(chunk);
    } catch {
      // Destroyed (stdout closed): nothing left to write to.
    }
  };
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const pending of unflushed) pending();
    });
  }
  return {
    write(line: string) {
      lines.push(line);
      chars += line.length;
      if (chars >= FLUSH_CHARS) flush();
      else if (!scheduled) {
        scheduled = true;
        unflushed.add(flush);
        setImmediate(flush);
      }
    },
    flush,
    // pino writes a fatal line and then calls this, so the line is out before the process goes.
    flushSync: flush,
  };
}

export function createLogger(level: string, stream?: DestinationStream): Logger {
  return pino(loggerOptions(level), stream ?? bufferedDestination());
}

/**
 * The logger for access lines (one per request): no path redaction. A line's shape is fixed
 * (request, status, time) and its only credentials, the request's headers, are censored by the
 * request serializer (loggedHeaders) before pino sees them. Redaction by path cloned every line's
 * request on top: 2.4% of a Get's CPU in a profile.
 */
export function accessLogger(log: Logger): Logger {
  return log.child({}, { redact: [] });
}

/** Writes one access line of these fields, at `info`, when the access logger logs at `info`. */
export type AccessLines = (fields: Record<string, unknown>) => void;

const { lsCacheSym, timeSym, chindingsSym, endSym, streamSym, messageKeySym, needsMetadataGsym } = pino.symbols;
const ACCESS_MESSAGE = 'request';

/**
 * Access lines on `logger` (accessLogger's), each the line `logger.info(fields, 'request')` writes, made
 * from pino's own pieces for the level, the time, the bindings and the line's end, but with the fields in
 * one JSON.stringify: pino's generic path (a serializer lookup, a stringify and a concatenation per
 * field) was ~37K instructions a line, ~7% of a Get, against ~13K so (callgrind, 3,000 Gets). The fields
 * are the access line's fixed shape, already serialized (requestSummary) and holding no credential
 * (the access logger redacts no path). test/log-access-lines.test.ts holds each line equal to pino's.
 */
export function accessLines(logger: Logger): AccessLines {
  const parts = logger as unknown as Record<symbol, unknown>;
  const stream = parts[streamSym] as DestinationStream;
  const level = (parts[lsCacheSym] as Record<number, string>)[logger.levels.values.info!]!;
  const time = parts[timeSym] as () => string;
  const message = `,${JSON.stringify(parts[messageKeySym])}:${JSON.stringify(ACCESS_MESSAGE)}${parts[endSym] as string}`;
  // A destination that reads each line's level and object beside its text (pino.multistream) gets them from pino itself.
  if ((stream as unknown as Record<symbol, unknown>)[needsMetadataGsym]) return (fields) => logger.info(fields, ACCESS_MESSAGE);
  return (fields) => {
    if (!logger.isLevelEnabled('info')) return;
    const json = JSON.stringify(fields);
    stream.write(`${level}${time()}${parts[chindingsSym] as string}${json.length > 2 ? `,${json.slice(1, -1)}` : ''}${message}`);
  };
}
