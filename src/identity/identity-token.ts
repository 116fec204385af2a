/**
 * The API token of the workload identity this gateway assumes (`--identity`),
 * for the v1 calls of requests that bring no token of their own. Obtained by
 * exchanging the platform token (read afresh from its file each time) at the
 * issuer's STS, kept until about 80 % of its own lifetime (its `exp`), then
 * refreshed once for every caller waiting on it: concurrent requests share
 * one exchange. While a still-valid token is being refreshed, requests keep
 * using it; when none is valid, a request waits for the exchange no longer
 * than its own deadline, and fails with UNAVAILABLE or UNAUTHENTICATED and
 * an ErrorInfo reason saying the identity's token could not be had.
 * Neither token is ever logged or put in an error message.
 */
import { decodeJwt } from 'jose';
import { ApiError } from '../aip/errors.ts';
import { Code } from '../rpc-status.ts';
import { remainingMs, type RequestContext } from '../request/context.ts';
import type { AssumedIdentity } from '../policy/guard.ts';
import { ExchangeError, exchangeToken, type ExchangeOptions } from './sts-exchange.ts';
import { readTokenFile, TokenFileError } from './token-file.ts';

export interface IdentityTokenOptions {
  identity: string;
  tokenFile: string;
  issuerUrl: string;
  /** The API the token is for (its audience). */
  audience: string;
  /** Share of the token's lifetime after which it is refreshed. */
  refreshAt?: number;
  exchange?: ExchangeOptions;
  now?: () => number;
  /** Told (without any token) when an exchange fails, for the log. */
  onFailure?: (message: string) => void;
}

interface Held {
  authorization: string;
  /** Epoch ms: refresh from then on. */
  refreshAfter: number;
  /** Epoch ms: unusable from then on. */
  expires: number;
}

/** A token this close to its expiry is not handed out: it could expire on the way to v1. */
const MARGIN_MS = 5000;

export class IdentityToken implements AssumedIdentity {
  readonly #options: IdentityTokenOptions;
  #held: Held | undefined;
  #refreshing: Promise<Held> | undefined;

  constructor(options: IdentityTokenOptions) {
    this.#options = options;
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }

  authorization(ctx: Pick<RequestContext, 'signal' | 'deadline'>): Promise<string> {
    const now = this.#now();
    const held = this.#held;
    if (held && now < held.refreshAfter) return Promise.resolve(held.authorization);
    const refresh = this.#refresh();
    if (held && now < held.expires - MARGIN_MS) {
      // Refreshed in the background; this request keeps the still-valid token.
      refresh.catch(() => {});
      return Promise.resolve(held.authorization);
    }
    return withinDeadline(refresh, ctx, this.#options.identity).then((fresh) => fresh.authorization);
  }

  /** One exchange at a time, shared by everyone who needs its result. */
  #refresh(): Promise<Held> {
    if (!this.#refreshing) {
      this.#refreshing = this.#exchange().finally(() => {
        this.#refreshing = undefined;
      });
    }
    return this.#refreshing;
  }

  async #exchange(): Promise<Held> {
    const { identity, tokenFile, issuerUrl, audience } = this.#options;
    try {
      const platformToken = await readTokenFile(tokenFile);
      const token = await exchangeToken({ issuerUrl, audience, identity, platformToken, signal: AbortSignal.timeout(30_000) }, this.#options.exchange);
      const held = this.#hold(token);
      this.#held = held;
      return held;
    } catch (error) {
      const failure = asApiError(error, identity);
      this.#options.onFailure?.(failure.message);
      throw failure;
    }
  }

  #hold(token: string): Held {
    const now = this.#now();
    let exp: number;
    let iat: number;
    try {
      const claims = decodeJwt(token);
      exp = typeof claims.exp === 'number' ? claims.exp * 1000 : NaN;
      iat = typeof claims.iat === 'number' ? Math.min(claims.iat * 1000, now) : now;
    } catch {
      throw new ExchangeError('the STS answered a token that is not a JWT', false);
    }
    if (!Number.isFinite(exp) || exp <= now) throw new ExchangeError('the STS answered a token that has already expired', false);
    return { authorization: `Bearer ${token}`, refreshAfter: iat + (exp - iat) * (this.#options.refreshAt ?? 0.8), expires: exp };
  }
}

/** Time kept back from the request's deadline to answer that no token could be had. */
const ANSWER_MS = 25;

/**
 * The exchange's outcome, or, just before the request's deadline, UNAVAILABLE saying the identity's token
 * could not be had in time (the exchange goes on for the requests after); a cancelled request ends at once.
 */
function withinDeadline<T>(work: Promise<T>, ctx: Pick<RequestContext, 'signal' | 'deadline'>, identity: string): Promise<T> {
  if (ctx.signal.aborted) return Promise.reject(ctx.signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => settle(() => reject(ctx.signal.reason));
    const timer = setTimeout(() => settle(() => reject(asApiError(new Error('the STS did not answer within the request\'s deadline'), identity))), Math.max(0, remainingMs(ctx) - ANSWER_MS));
    const settle = (answer: () => void) => {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      answer();
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    work.then((value) => settle(() => resolve(value)), (error: unknown) => settle(() => reject(error)));
  });
}

function asApiError(error: unknown, identity: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof TokenFileError) {
    return new ApiError(Code.UNAUTHENTICATED, `the gateway has no token for identity ${identity}: ${error.message}`, [], undefined, { reason: 'IDENTITY_TOKEN_FILE_UNREADABLE' });
  }
  if (error instanceof ExchangeError && !error.retryable) {
    return new ApiError(Code.UNAUTHENTICATED, `the gateway could not assume identity ${identity}: ${error.message}`, [], undefined, { reason: 'IDENTITY_EXCHANGE_REFUSED' });
  }
  const why = error instanceof Error ? error.message : 'unknown failure';
  return new ApiError(Code.UNAVAILABLE, `the gateway could not assume identity ${identity}: ${why}`, [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }], undefined, { reason: 'IDENTITY_TOKEN_UNAVAILABLE' });
}
