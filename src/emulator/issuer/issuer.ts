/**
 * An OIDC issuer with a security token service, for running the gateway's
 * identity features on one machine. One HTTP server holds two issuers:
 *
 * - the API issuer at the root: discovery, a JWKS with a rotating key, and
 *   `GET /sts/exchange?aud=…&identity=…` (spec §5), which verifies the
 *   presented platform token against its own issuer's published keys and,
 *   when the identity's `claimMatch` matches the token's `iss` and `sub`,
 *   answers `{token}`: an API token (RS256, `sub` = the identity's uid,
 *   `aud` = the asked audience) valid for an hour by default;
 * - a test platform issuer under `/platform` (a stand-in for a Kubernetes
 *   cluster's service-account issuer): discovery, JWKS, and
 *   `GET /platform/token?sub=…` minting platform tokens whose audience is the
 *   API issuer, as a projected service-account token would carry.
 *
 * Answers that are errors follow google.rpc.Status in JSON. No token is ever
 * logged or echoed back.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, decodeJwt, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { claimMatches, issuerMatches, type ClaimMatch } from './claim-match.ts';
import { ALGORITHM, KeyRing } from './keys.ts';

export type { ClaimMatch } from './claim-match.ts';

export interface IssuerOptions {
  port?: number;
  host?: string;
  /** Lifetime of exchanged API tokens, in seconds (one hour by default, spec §5). */
  tokenTtlSeconds?: number;
  /** Identities known beside those registered with `identities.set`: e.g. the v1 emulator's. */
  lookupIdentity?: (uid: string) => ClaimMatch | undefined;
  /** Seconds since the epoch (tests move it). */
  clock?: () => number;
}

/** google.rpc.Code values the exchange answers with. */
const INVALID_ARGUMENT = 3;
const PERMISSION_DENIED = 7;
const UNAVAILABLE = 14;
const UNAUTHENTICATED = 16;

class StatusError extends Error {
  readonly status: number;
  readonly code: number;
  constructor(status: number, code: number, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** One issuer's keys and the claims it signs. */
class SigningIssuer {
  readonly keys = new KeyRing();
  readonly url: string;
  readonly clock: () => number;
  constructor(url: string, clock: () => number) {
    this.url = url;
    this.clock = clock;
  }

  discovery(): Record<string, unknown> {
    return {
      issuer: this.url,
      jwks_uri: `${this.url}/.well-known/jwks.json`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [ALGORITHM],
    };
  }

  async sign(claims: JWTPayload, ttlSeconds: number): Promise<string> {
    const key = this.keys.current();
    const now = this.clock();
    return new SignJWT({ iat: now, nbf: now, exp: now + ttlSeconds, ...claims, iss: claims.iss ?? this.url })
      .setProtectedHeader({ alg: ALGORITHM, kid: key.kid, typ: 'JWT' })
      .sign(key.privateKey);
  }
}

export class RunningIssuer {
  readonly url: string;
  /** The API issuer: mints API tokens at the STS. */
  readonly api: SigningIssuer;
  /** The test platform issuer: mints the tokens workloads present. */
  readonly platform: SigningIssuer;
  /** Identities the STS knows, by uid. */
  readonly identities = new Map<string, ClaimMatch>();
  /** Exchange requests received, answered or not. */
  exchanges = 0;
  /** While true, the STS answers UNAVAILABLE (503), as an issuer in an outage would. */
  unavailable = false;
  readonly #server: Server;
  readonly #options: IssuerOptions;
  readonly #remoteKeys = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

  constructor(server: Server, url: string, options: IssuerOptions) {
    this.#server = server;
    this.#options = options;
    this.url = url;
    const clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
    this.api = new SigningIssuer(url, clock);
    this.platform = new SigningIssuer(`${url}/platform`, clock);
  }

  /** A platform token for `sub` (audience: this issuer), as a workload's platform would project it. */
  platformToken(sub: string, options: { ttlSeconds?: number; claims?: JWTPayload } = {}): Promise<string> {
    return this.platform.sign({ aud: this.url, ...options.claims, sub }, options.ttlSeconds ?? 3600);
  }

  /** An API token for the identity `sub`, as the STS would mint it (tests that need none of the exchange). */
  apiToken(sub: string, audience: string, options: { ttlSeconds?: number; claims?: JWTPayload } = {}): Promise<string> {
    return this.api.sign({ ...options.claims, sub, aud: audience }, options.ttlSeconds ?? this.#ttl());
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #ttl(): number {
    return this.#options.tokenTtlSeconds ?? 3600;
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.url);
    const path = url.pathname.replace(/\/+$/, '');
    try {
      if (request.method !== 'GET') throw new StatusError(405, INVALID_ARGUMENT, `${request.method} is not served here`);
      switch (path) {
        case '/.well-known/openid-configuration':
          return send(response, 200, this.api.discovery());
        case '/.well-known/jwks.json':
          return send(response, 200, this.api.keys.jwks());
        case '/platform/.well-known/openid-configuration':
          return send(response, 200, this.platform.discovery());
        case '/platform/.well-known/jwks.json':
          return send(response, 200, this.platform.keys.jwks());
        case '/platform/token': {
          const sub = url.searchParams.get('sub');
          if (!sub) throw new StatusError(400, INVALID_ARGUMENT, 'sub is required');
          return send(response, 200, { token: await this.platformToken(sub) });
        }
        case '/sts/exchange':
          return send(response, 200, { token: await this.#exchange(request.headers.authorization, url.searchParams) });
        default:
          throw new StatusError(404, 5, `no route ${path}`);
      }
    } catch (error) {
      const failure = error instanceof StatusError ? error : new StatusError(500, 13, 'internal error');
      send(response, failure.status, { code: failure.code, message: failure.message, details: [] });
    }
  }

  async #exchange(authorization: string | undefined, query: URLSearchParams): Promise<string> {
    this.exchanges++;
    if (this.unavailable) throw new StatusError(503, UNAVAILABLE, 'the token service is unavailable');
    const presented = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (!presented) throw new StatusError(401, UNAUTHENTICATED, 'a bearer token (the platform token) is required');
    const audience = query.get('aud');
    const identity = query.get('identity');
    if (!audience) throw new StatusError(400, INVALID_ARGUMENT, 'aud is required');
    if (!identity) throw new StatusError(400, INVALID_ARGUMENT, 'identity is required');
    // One answer for an unknown identity and a mismatched token: the caller learns nothing of which identities exist.
    const denied = new StatusError(403, PERMISSION_DENIED, 'the presented token may not assume this identity');
    const match = this.identities.get(identity) ?? this.#options.lookupIdentity?.(identity);
    if (!match) throw denied;
    let iss: string;
    try {
      iss = String(decodeJwt(presented).iss ?? '');
    } catch {
      throw new StatusError(401, UNAUTHENTICATED, 'the presented token is not a JWT');
    }
    // Only an issuer the identity names is ever contacted for keys.
    if (!issuerMatches(match, iss)) throw denied;
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(presented, await this.#keysOf(iss), { issuer: iss, audience: this.url, clockTolerance: 30, currentDate: new Date(this.api.clock() * 1000) }));
    } catch {
      throw new StatusError(401, UNAUTHENTICATED, 'the presented token does not verify');
    }
    if (!claimMatches(match, iss, String(claims.sub ?? ''))) throw denied;
    return this.apiToken(identity, audience);
  }

  /** The keys of a platform issuer, from its discovery document (jose caches and refreshes the JWKS). */
  async #keysOf(iss: string): Promise<ReturnType<typeof createRemoteJWKSet>> {
    let keys = this.#remoteKeys.get(iss);
    if (keys) return keys;
    const answer = await fetch(`${iss}/.well-known/openid-configuration`, { redirect: 'error', signal: AbortSignal.timeout(5000) });
    if (!answer.ok) throw new Error(`discovery of ${iss} answered ${answer.status}`);
    const document = (await answer.json()) as { jwks_uri?: unknown };
    if (typeof document.jwks_uri !== 'string') throw new Error(`discovery of ${iss} names no jwks_uri`);
    keys = createRemoteJWKSet(new URL(document.jwks_uri));
    this.#remoteKeys.set(iss, keys);
    return keys;
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  response.end(text);
}

export async function startIssuer(options: IssuerOptions = {}): Promise<RunningIssuer> {
  const { port = 0, host = '127.0.0.1' } = options;
  let issuer: RunningIssuer | undefined;
  const server = createServer((request, response) => {
    void issuer!.handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const bound = (server.address() as AddressInfo).port;
  issuer = new RunningIssuer(server, `http://${host.includes(':') ? `[${host}]` : host}:${bound}`, options);
  await issuer.api.keys.rotate();
  await issuer.platform.keys.rotate();
  return issuer;
}
