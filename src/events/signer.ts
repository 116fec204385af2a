/**
 * The gateway as the OIDC issuer of its deliveries' tokens: an ES256 key kept
 * in the store (the first replica to start makes it; every replica and restart
 * then signs with the oldest key stored, and the JWKS publishes every stored key
 * as the store has them now, so a token from any replica verifies even when two
 * replicas made a key at once), the discovery document and the JWKS, and
 * the token of one delivery: `aud` customer, `sub` webhook:<group>, and the
 * digest of the exact bytes delivered.
 */
import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { EventOutboxStore } from '../store/event-outbox.ts';

export const ALGORITHM = 'ES256';
export const AUDIENCE = 'customer';
export const DISCOVERY_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/.well-known/jwks.json';
/** Long enough for a slow receiver to verify it, short enough to be useless if it leaks. */
const TOKEN_LIFETIME_SECONDS = 300;

export class DeliverySigner {
  readonly #kid: string;
  readonly #key: CryptoKey;
  readonly #outbox: EventOutboxStore;

  private constructor(kid: string, key: CryptoKey, outbox: EventOutboxStore) {
    this.#kid = kid;
    this.#key = key;
    this.#outbox = outbox;
  }

  static async load(outbox: EventOutboxStore, now: () => number = Date.now): Promise<DeliverySigner> {
    let keys = await outbox.signingKeys();
    if (keys.length === 0) {
      const pair = await generateKeyPair(ALGORITHM, { extractable: true });
      const kid = randomUUID();
      await outbox.addSigningKey({ kid, privateJwk: JSON.stringify(await exportJWK(pair.privateKey)), publicJwk: JSON.stringify(await exportJWK(pair.publicKey)) }, now());
      keys = await outbox.signingKeys();
    }
    const signing = keys[0]!;
    const key = await importJWK(JSON.parse(signing.privateJwk) as JWK, ALGORITHM) as CryptoKey;
    return new DeliverySigner(signing.kid, key, outbox);
  }

  discovery(issuer: string): Record<string, unknown> {
    return {
      issuer,
      jwks_uri: `${issuer}${JWKS_PATH}`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [ALGORITHM],
    };
  }

  async jwks(): Promise<{ keys: JWK[] }> {
    const keys = await this.#outbox.signingKeys();
    return { keys: keys.map((k) => ({ ...(JSON.parse(k.publicJwk) as JWK), kid: k.kid, alg: ALGORITHM, use: 'sig' })) };
  }

  /** The bearer token of delivering `data` to a subscription of `group`. */
  token(issuer: string, group: string, data: string, nowMs: number): Promise<string> {
    const digest = `sha256:${createHash('sha256').update(data).digest('hex')}`;
    const iat = Math.floor(nowMs / 1000);
    return new SignJWT({ webhook: { digest } })
      .setProtectedHeader({ alg: ALGORITHM, kid: this.#kid, typ: 'JWT' })
      .setIssuer(issuer)
      .setAudience(AUDIENCE)
      .setSubject(`webhook:${group}`)
      .setIssuedAt(iat)
      .setExpirationTime(iat + TOKEN_LIFETIME_SECONDS)
      .sign(this.#key);
  }
}
