/**
 * The issuer's signing keys: one current key that signs, and the keys it
 * retired that still verify (a verifier holding a token signed just before a
 * rotation must still accept it). RS256, as OIDC issuers commonly sign.
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';

export const ALGORITHM = 'RS256';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export class KeyRing {
  #keys: SigningKey[] = [];
  /** How many retired keys stay published. */
  readonly #keep: number;

  constructor(keep = 1) {
    this.#keep = keep;
  }

  /** Makes a new current key; the previous one keeps verifying until `keep` newer ones retire it. */
  async rotate(): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { extractable: true });
    const kid = randomUUID();
    const jwk = { ...(await exportJWK(publicKey)), kid, alg: ALGORITHM, use: 'sig' };
    this.#keys = [{ kid, privateKey, jwk }, ...this.#keys].slice(0, this.#keep + 1);
    return kid;
  }

  /** Drops every retired key: tokens they signed no longer verify. */
  forgetRetired(): void {
    this.#keys = this.#keys.slice(0, 1);
  }

  current(): SigningKey {
    const key = this.#keys[0];
    if (!key) throw new Error('issuer: no signing key (rotate() first)');
    return key;
  }

  /** The published key set (public halves only). */
  jwks(): { keys: JWK[] } {
    return { keys: this.#keys.map((key) => key.jwk) };
  }
}
