/**
 * One exchange at the issuer's STS (chainguard-dev/sdk: sts/sts.go): `GET {issuer}/sts/exchange
 * ?aud={api}&identity={uid}` with the platform token as bearer; the answer's
 * `token` is the API token. As the platform's own clients do, only
 * UNAVAILABLE (an HTTP 503, a gRPC code 14, or no answer at all) is retried,
 * a few times, with jittered exponential backoff, and never past the
 * caller's deadline. A redirect is never followed: the bearer must not travel
 * to another address.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface ExchangeRequest {
  issuerUrl: string;
  audience: string;
  identity: string;
  platformToken: string;
  /** Aborted when the exchange must stop (the caller's deadline). */
  signal?: AbortSignal;
}

export interface ExchangeOptions {
  /** Tries in all, the first included. */
  attempts?: number;
  /** The first backoff's ceiling, doubled each retry (full jitter: a random wait up to it). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Each try's own time limit. */
  tryTimeoutMs?: number;
  random?: () => number;
}

/** Why an exchange failed; `retryable` when the STS was unavailable rather than refusing. */
export class ExchangeError extends Error {
  readonly retryable: boolean;
  /** The HTTP status the STS answered, if it answered. */
  readonly status: number | undefined;
  constructor(message: string, retryable: boolean, status?: number) {
    super(message);
    this.retryable = retryable;
    this.status = status;
  }
}

const UNAVAILABLE = 14;

export async function exchangeToken(request: ExchangeRequest, options: ExchangeOptions = {}): Promise<string> {
  const attempts = options.attempts ?? 4;
  const base = options.baseDelayMs ?? 100;
  const max = options.maxDelayMs ?? 2000;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    try {
      return await exchangeOnce(request, options.tryTimeoutMs ?? 5000);
    } catch (error) {
      const failure = error instanceof ExchangeError ? error : new ExchangeError(`the STS could not be reached (${(error as Error).name})`, true);
      if (!failure.retryable || attempt >= attempts || request.signal?.aborted) throw failure;
      const ceiling = Math.min(max, base * 2 ** (attempt - 1));
      try {
        await sleep(Math.floor(random() * ceiling), undefined, request.signal ? { signal: request.signal } : {});
      } catch {
        throw failure;
      }
    }
  }
}

async function exchangeOnce(request: ExchangeRequest, tryTimeoutMs: number): Promise<string> {
  const url = new URL(`${request.issuerUrl}/sts/exchange`);
  url.searchParams.set('aud', request.audience);
  url.searchParams.set('identity', request.identity);
  const timeout = AbortSignal.timeout(tryTimeoutMs);
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${request.platformToken}`, accept: 'application/json' },
    redirect: 'manual',
    signal: request.signal ? AbortSignal.any([request.signal, timeout]) : timeout,
  });
  const text = await response.text();
  let body: { token?: unknown; code?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // Not JSON: judged by the status alone.
  }
  if (response.status >= 300 && response.status < 400) throw new ExchangeError(`the STS answered a redirect (${response.status}), which is not followed`, false, response.status);
  if (!response.ok) {
    const retryable = response.status === 503 || body.code === UNAVAILABLE;
    throw new ExchangeError(`the STS refused the exchange (HTTP ${response.status}${typeof body.code === 'number' ? `, code ${body.code}` : ''})`, retryable, response.status);
  }
  if (typeof body.token !== 'string' || body.token.split('.').length !== 3) throw new ExchangeError('the STS answered no token', false, response.status);
  return body.token;
}
