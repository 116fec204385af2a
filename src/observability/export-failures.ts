/**
 * What the log says of span exports. The SDK drops a batch it cannot export
 * without a word (no diagnostic logger is registered), so a collector that
 * cannot be reached would lose every span in silence. Here: a warning with
 * the cause at most once an interval, counting the exports that failed since
 * the last line, and one line when an export succeeds again.
 *
 * The cause is the error's own text (`connect ECONNREFUSED 127.0.0.1:4318`),
 * with the export headers' values and the endpoint's user and password cut
 * out wherever they appear: a collector's API key never reaches a log.
 */

/** The log lines this writes: pino's (and Fastify's) signature. */
export interface ExportLog {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

export interface ExportFailureOptions {
  /** The least time between two warnings; a minute unless set. */
  intervalMs?: number;
  /** Text that must not reach the log (header values, the endpoint's password). */
  secrets?: readonly string[];
  now?: () => number;
}

export const EXPORT_WARNING_INTERVAL_MS = 60_000;

export class ExportFailureLog {
  readonly #log: ExportLog;
  readonly #intervalMs: number;
  readonly #secrets: readonly string[];
  readonly #now: () => number;
  #failing = false;
  /** Failed exports the log has not counted yet. */
  #unreported = 0;
  #warnedAt = Number.NEGATIVE_INFINITY;

  constructor(log: ExportLog, options: ExportFailureOptions = {}) {
    this.#log = log;
    this.#intervalMs = options.intervalMs ?? EXPORT_WARNING_INTERVAL_MS;
    // Longest first, so a secret holding another is cut whole.
    this.#secrets = [...new Set(options.secrets ?? [])].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
    this.#now = options.now ?? Date.now;
  }

  failed(error: unknown): void {
    this.#failing = true;
    this.#unreported++;
    const now = this.#now();
    if (now - this.#warnedAt < this.#intervalMs) return;
    this.#warnedAt = now;
    this.#log.warn({ failedExports: this.#unreported, cause: this.#cause(error) }, 'tracing: spans could not be exported to the OTLP collector and were dropped');
    this.#unreported = 0;
  }

  succeeded(): void {
    if (!this.#failing) return;
    this.#failing = false;
    this.#log.info({ failedExports: this.#unreported }, 'tracing: spans are exported to the OTLP collector again');
    this.#unreported = 0;
  }

  #cause(error: unknown): string {
    let text = error instanceof Error ? error.message || error.name : String(error ?? 'unknown');
    const code = (error as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string' && !text.includes(code)) text = `${code}: ${text}`;
    for (const secret of this.#secrets) text = text.split(secret).join('***');
    return text;
  }
}

/** What an export must keep out of the log: the header values, and the endpoint's user and password. */
export function exportSecrets(url: string, headers: Readonly<Record<string, string>>): string[] {
  const secrets = Object.values(headers);
  try {
    const { username, password } = new URL(url);
    for (const part of [username, password]) if (part) secrets.push(part, decodeURIComponent(part));
  } catch {
    // A URL the exporter cannot parse has no user or password to hide.
  }
  return secrets;
}
