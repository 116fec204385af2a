/**
 * An HTTPS sink that receives CloudEvents as a customer's receiver built on the
 * platform SDK's `events/receiver` does, and verifies each delivery the same
 * way: the issuer's discovery document (its `issuer` exactly the one
 * configured), the JWKS it names, the token's signature with an algorithm the
 * discovery lists, `iss`, `aud` = customer, `sub` = webhook:<the group the
 * receiver serves>, and the `webhook.digest` claim against the body's bytes.
 * A delivery that fails verification is answered 403 and recorded as refused.
 * `answer` decides the status of verified deliveries (a sink that is down, or
 * answers 5xx, for a while).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';

export const TEST_CA = readFileSync(new URL('../fixtures/tls/cert.pem', import.meta.url), 'utf8');
const TEST_KEY = readFileSync(new URL('../fixtures/tls/key.pem', import.meta.url), 'utf8');

export interface ReceivedEvent {
  id: string;
  type: string;
  source: string;
  subject: string;
  time: string;
  specversion: string;
  /** Every `ce-*` header beyond the required attributes, by extension name (`group`, `bodytype`, …). */
  extensions: Record<string, string>;
  contentType: string;
  data: any;
  /** The verified token's claims. */
  claims: Record<string, unknown>;
}

const REQUIRED = new Set(['specversion', 'id', 'source', 'type', 'subject', 'time']);

export class EventReceiver {
  readonly received: ReceivedEvent[] = [];
  readonly refused: string[] = [];
  /** Status for the next verified delivery; 200 by default. */
  answer: (event: ReceivedEvent) => number = () => 200;
  #server: Server | undefined;
  #url = '';
  readonly #issuer: string;
  readonly #group: string;

  constructor(issuer: string, group: string) {
    this.#issuer = issuer;
    this.#group = group;
  }

  get url(): string {
    return this.#url;
  }

  async start(port = 0): Promise<string> {
    this.#server = createServer({ cert: TEST_CA, key: TEST_KEY }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.#verify(req.headers as Record<string, string>, Buffer.concat(chunks)).then(
          (event) => {
            const status = this.answer(event);
            if (status >= 200 && status < 300) this.received.push(event);
            res.writeHead(status).end();
          },
          (error: Error) => {
            this.refused.push(error.message);
            res.writeHead(403).end(error.message);
          },
        );
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(port, '127.0.0.1', resolve));
    this.#url = `https://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`;
    return this.#url;
  }

  /** Stops listening (a sink that is down); `start` again on the same port brings it back. */
  async stop(): Promise<number> {
    const port = (this.#server!.address() as AddressInfo).port;
    this.#server!.closeAllConnections();
    await new Promise<void>((resolve) => this.#server!.close(() => resolve()));
    return port;
  }

  /** Waits until `count` events were received (or fails after `ms`). */
  async waitFor(count: number, ms = 10_000): Promise<ReceivedEvent[]> {
    const until = Date.now() + ms;
    while (this.received.length < count) {
      if (Date.now() > until) throw new Error(`received ${this.received.length} events, expected ${count}; refused: ${this.refused.join('; ')}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    return this.received;
  }

  async #verify(headers: Record<string, string>, body: Buffer): Promise<ReceivedEvent> {
    const auth = headers.authorization ?? '';
    if (!auth.startsWith('Bearer ')) throw new Error('no bearer token');
    const discovery = await (await fetch(`${this.#issuer}/.well-known/openid-configuration`)).json() as { issuer: string; jwks_uri: string; id_token_signing_alg_values_supported: string[] };
    if (discovery.issuer !== this.#issuer) throw new Error(`discovery names issuer ${discovery.issuer}, not ${this.#issuer}`);
    const jwks = await (await fetch(discovery.jwks_uri)).json() as JSONWebKeySet;
    const { payload } = await jwtVerify(auth.slice('Bearer '.length), createLocalJWKSet(jwks), {
      issuer: this.#issuer,
      audience: 'customer',
      algorithms: discovery.id_token_signing_alg_values_supported,
      requiredClaims: ['exp'],
    });
    if (payload.sub !== `webhook:${this.#group}`) throw new Error(`token for ${payload.sub}, wanted webhook:${this.#group}`);
    const digest = `sha256:${createHash('sha256').update(body).digest('hex')}`;
    const claimed = (payload.webhook as { digest?: string } | undefined)?.digest;
    if (claimed !== digest) throw new Error(`token for a body of digest ${claimed}, got ${digest}`);
    const extensions: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (name.startsWith('ce-') && !REQUIRED.has(name.slice(3))) extensions[name.slice(3)] = value;
    }
    return {
      id: headers['ce-id']!, type: headers['ce-type']!, source: headers['ce-source']!, subject: headers['ce-subject']!,
      time: headers['ce-time']!, specversion: headers['ce-specversion']!, extensions, contentType: headers['content-type']!,
      data: JSON.parse(body.toString('utf8')), claims: payload,
    };
  }
}
