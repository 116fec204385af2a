/**
 * Each request's own logger (Fastify's `request.log`), made when something
 * first logs through it. Fastify makes a pino child for every request to bind
 * its id, and pino passes that binding through the gateway's wildcard redaction:
 * ~1.4% of a REST Get's CPU and ~1 KB of garbage, for a logger that a request
 * which succeeds never writes through (its access line is written apart,
 * access-log.ts). A request that fails, or a route that logs, gets the very
 * child Fastify would have made, with the same bindings and options.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

/**
 * Makes every child of `logger` (Fastify's own, `app.log`) on first use. Fastify's default child factory
 * calls `logger.child` for each request; a factory of the gateway's own instead (the `childLoggerFactory`
 * option) has each request's child checked for every logging method, an array and a closure per request.
 * So the factory stays Fastify's and the laziness is in the logger it calls.
 */
export function lazyChildren(logger: FastifyBaseLogger): void {
  const parent = logger as unknown as Logger;
  const eager = parent.child.bind(parent);
  parent.child = ((bindings: Bindings, options?: ChildLoggerOptions) => new LazyChild(parent, eager, bindings, options ?? {})) as unknown as Logger['child'];
}

type MakeChild = (bindings: Bindings, options: ChildLoggerOptions) => Logger;

type LogMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

class LazyChild {
  readonly #parent: Logger;
  readonly #make: MakeChild;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: Logger | undefined;

  constructor(parent: Logger, make: MakeChild, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#make = make;
    this.#bindings = bindings;
    this.#options = options;
  }

  #made(): Logger {
    return (this.#child ??= this.#make(this.#bindings, this.#options));
  }

  #log(method: LogMethod, args: unknown[]): void {
    (this.#made()[method] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void { this.#log('fatal', args); }
  error(...args: unknown[]): void { this.#log('error', args); }
  warn(...args: unknown[]): void { this.#log('warn', args); }
  info(...args: unknown[]): void { this.#log('info', args); }
  debug(...args: unknown[]): void { this.#log('debug', args); }
  trace(...args: unknown[]): void { this.#log('trace', args); }
  /** pino's `silent` writes nothing, so it makes no child either. */
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.#made().child(bindings, options);
  }

  /** The child's level: the route's (the options'), else its parent's. */
  get level(): string {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#made().level = level;
  }

  /** As pino answers it, without making the child: a level at or above the child's is written. */
  isLevelEnabled(level: string): boolean {
    if (this.#child) return this.#child.isLevelEnabled(level);
    const values = this.#parent.levels.values;
    const asked = values[level];
    return asked !== undefined && asked >= values[this.level]!;
  }

  bindings(): Bindings {
    return this.#made().bindings();
  }
}
