/**
 * The sidecar's workload identity against the emulator's issuer over real
 * HTTP: one exchange for concurrent callers, a refresh at ~80 % of the
 * token's life, the STS briefly down, the token file replaced, no redirect
 * followed, and only UNAVAILABLE retried.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/aip/errors.ts';
import { startIssuer, type RunningIssuer } from '../../src/emulator/issuer/index.ts';
import { IdentityToken } from '../../src/identity/identity-token.ts';
import { exchangeToken } from '../../src/identity/sts-exchange.ts';
import { requestContext } from '../../src/request/context.ts';
import { closeLocal, listenLocal } from '../support/local-http.ts';

const API = 'http://v1.test';
const IDENTITY = `${'a'.repeat(40)}/${'b'.repeat(16)}`;
const SUBJECT = 'system:serviceaccount:apps:web';
const FAST = { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 };

const ctx = (budgetMs = 5000) => requestContext({ authorization: '', requestId: 'test', budgetMs });
const failureOf = async (work: Promise<unknown>): Promise<ApiError> => {
  const outcome = await work.then(() => undefined, (error: unknown) => error);
  if (!(outcome instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(outcome)}`);
  return outcome;
};

describe('the assumed identity (IdentityToken)', () => {
  let issuer: RunningIssuer;
  let file: string;
  let clock = Date.now();
  const identity = (options: Partial<ConstructorParameters<typeof IdentityToken>[0]> = {}) =>
    new IdentityToken({ identity: IDENTITY, tokenFile: file, issuerUrl: issuer.url, audience: API, exchange: FAST, now: () => clock, ...options });

  beforeAll(async () => {
    // The issuer keeps the test's clock, so tokens it mints age as the test moves time.
    issuer = await startIssuer({ clock: () => Math.floor(clock / 1000) });
    issuer.identities.set(IDENTITY, { issuer: issuer.platform.url, subject: SUBJECT });
    file = join(mkdtempSync(join(tmpdir(), 'v2gw-identity-')), 'token');
  });
  afterAll(() => issuer.close());
  beforeEach(async () => {
    clock = Date.now();
    issuer.unavailable = false;
    issuer.exchanges = 0;
    writeFileSync(file, await issuer.platformToken(SUBJECT));
  });

  it('exchanges once for any number of concurrent callers, and hands out an API token for the identity', async () => {
    const token = identity();
    const answers = await Promise.all(Array.from({ length: 25 }, () => token.authorization(ctx())));
    expect(issuer.exchanges).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(decodeJwt(answers[0]!.replace(/^Bearer /, ''))).toMatchObject({ sub: IDENTITY, aud: API, iss: issuer.url });
    await token.authorization(ctx());
    expect(issuer.exchanges).toBe(1);
  });

  it('refreshes once, for all callers, at about 80 % of the token\'s life, serving the held token meanwhile', async () => {
    const token = identity();
    const first = await token.authorization(ctx());
    clock += 0.79 * 3600_000;
    await token.authorization(ctx());
    expect(issuer.exchanges).toBe(1);
    clock += 0.02 * 3600_000;
    const during = await Promise.all(Array.from({ length: 10 }, () => token.authorization(ctx())));
    expect(during.every((answer) => answer === first)).toBe(true);
    // The background refresh lands (the callers above did not wait for it), and the fresh token is handed out.
    let latest = first;
    for (let i = 0; i < 200 && latest === first; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      latest = await token.authorization(ctx());
    }
    expect(latest).not.toBe(first);
    expect(issuer.exchanges).toBe(2);
    // Past the expiry of everything held, callers wait together for one exchange (the platform rewrote the file meanwhile).
    clock += 2 * 3600_000;
    writeFileSync(file, await issuer.platformToken(SUBJECT));
    const after = await Promise.all(Array.from({ length: 10 }, () => token.authorization(ctx())));
    expect(new Set(after).size).toBe(1);
    expect(issuer.exchanges).toBe(3);
  });

  it('answers UNAVAILABLE with a reason within the deadline while the STS is down, and recovers when it is back', async () => {
    issuer.unavailable = true;
    const token = identity({ exchange: { attempts: 50, baseDelayMs: 20, maxDelayMs: 50 } });
    const started = Date.now();
    const failure = await failureOf(token.authorization(ctx(300)));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(failure.code).toBe(14);
    expect(failure.reason).toBe('IDENTITY_TOKEN_UNAVAILABLE');
    expect(issuer.exchanges).toBeGreaterThan(1);
    issuer.unavailable = false;
    // The same gateway's next request succeeds: the exchange still retrying, or a new one, brings the token.
    expect(await token.authorization(ctx())).toMatch(/^Bearer /);
  });

  it('reads the token file afresh for every exchange: a replaced file is used without a restart', async () => {
    writeFileSync(file, await issuer.platformToken('system:serviceaccount:apps:intruder'));
    const token = identity();
    const refused = await failureOf(token.authorization(ctx()));
    expect(refused.code).toBe(16);
    expect(refused.reason).toBe('IDENTITY_EXCHANGE_REFUSED');
    expect(issuer.exchanges).toBe(1);
    writeFileSync(file, await issuer.platformToken(SUBJECT));
    expect(await token.authorization(ctx())).toMatch(/^Bearer /);
    writeFileSync(file, '');
    clock += 3600_000;
    expect((await failureOf(token.authorization(ctx()))).reason).toBe('IDENTITY_TOKEN_FILE_UNREADABLE');
  });

  it('never names either token in an error message', async () => {
    const platform = await issuer.platformToken('system:serviceaccount:apps:intruder');
    writeFileSync(file, platform);
    const failure = await failureOf(identity().authorization(ctx()));
    expect(failure.message).not.toContain(platform);
    expect(failure.message).not.toContain(platform.split('.')[2]);
  });
});

describe('the STS exchange', () => {
  let issuer: RunningIssuer;
  let redirector: Server;
  let elsewhere: Server;
  let elsewhereHits = 0;
  let redirectorUrl = '';
  beforeAll(async () => {
    issuer = await startIssuer();
    issuer.identities.set(IDENTITY, { issuer: issuer.platform.url, subject: SUBJECT });
    elsewhere = createServer((request, response) => {
      elsewhereHits++;
      response.end(JSON.stringify({ token: 'a.b.c', saw: request.headers.authorization ?? '' }));
    });
    const target = await listenLocal(elsewhere);
    redirector = createServer((request, response) => {
      response.writeHead(307, { location: `${target}${request.url}` });
      response.end();
    });
    redirectorUrl = await listenLocal(redirector);
  });
  afterAll(async () => {
    await issuer.close();
    await closeLocal(redirector);
    await closeLocal(elsewhere);
  });

  it('never follows a redirect: the platform token does not travel', async () => {
    const outcome = await exchangeToken({ issuerUrl: redirectorUrl, audience: API, identity: IDENTITY, platformToken: 'platform-token' }, FAST).catch((error: Error) => error);
    expect(outcome).toBeInstanceOf(Error);
    expect(elsewhereHits).toBe(0);
  });

  it('retries UNAVAILABLE only, a bounded number of times', async () => {
    const platformToken = await issuer.platformToken('system:serviceaccount:apps:intruder');
    issuer.exchanges = 0;
    await expect(exchangeToken({ issuerUrl: issuer.url, audience: API, identity: IDENTITY, platformToken }, FAST)).rejects.toMatchObject({ retryable: false, status: 403 });
    expect(issuer.exchanges).toBe(1);
    issuer.unavailable = true;
    issuer.exchanges = 0;
    await expect(exchangeToken({ issuerUrl: issuer.url, audience: API, identity: IDENTITY, platformToken }, FAST)).rejects.toMatchObject({ retryable: true, status: 503 });
    expect(issuer.exchanges).toBe(3);
    issuer.unavailable = false;
  });
});
