/**
 * Delivers the outbox: claims due rows (leased, so replicas on one store never
 * take the same row at once), POSTs each as a CloudEvent in binary mode (the
 * attributes as `ce-*` headers, the data as the body) with a signed bearer
 * token, and settles it: 2xx delivered (the row goes); no answer, a timeout, 5xx
 * or 429 retried after a jittered exponential back-off until --events-retry-for-ms
 * has passed since the first attempt, always with the same event id; any other
 * answer given up. A sink's hostname is resolved on each delivery and refused
 * when it names an internal address (unless private sinks are allowed).
 * Deliveries are made in parallel: no order between events is promised.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, request } from 'node:https';
import type { EventOutboxStore, Delivery } from '../store/event-outbox.ts';
import type { EventMetrics } from '../observability/event-metrics.ts';
import type { CloudEventAttributes } from './cloudevent.ts';
import type { DeliverySigner } from './signer.ts';
import { isInternalAddress, sinkRefusal } from './sink.ts';

export interface DelivererOptions {
  outbox: EventOutboxStore;
  signer: DeliverySigner;
  issuer: () => string;
  allowPrivateSinks: boolean;
  retryForMs: number;
  pollMs: number;
  metrics: EventMetrics;
  /** Where a delivery that went wrong is told (never with the token). */
  warn: (fields: Record<string, unknown>, message: string) => void;
  /** A CA (PEM) to trust beside the system's, for tests; deployments use NODE_EXTRA_CA_CERTS. */
  ca?: string;
  /** First back-off, doubled per attempt up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
  now?: () => number;
}

/** A delivery's whole exchange: a sink slower than this is treated as down. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** Rows one claim takes, and so the deliveries in flight at once. */
const BATCH = 32;
/** A claimed row's lease: longer than an attempt can take, so only a dead replica's rows come back. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 5000;

type Outcome = 'delivered' | 'retry' | 'refused';

/** dns.lookup, refusing a name that resolves to any internal address. */
function guardedLookup(hostname: string, options: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '');
    const internal = addresses.find((a) => isInternalAddress(a.address));
    if (internal) {
      const refused: NodeJS.ErrnoException = new Error(`sink ${hostname} resolves to an internal address`);
      refused.code = 'EV2GW_INTERNAL_SINK';
      return callback(refused, '');
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

export class Deliverer {
  readonly #o: DelivererOptions;
  readonly #agent: Agent;
  readonly #now: () => number;
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #closed = false;

  constructor(options: DelivererOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    // node:https rather than undici: native mode loads no undici at all (test/gateway/process/mode-modules.test.ts).
    this.#agent = new Agent({
      keepAlive: true,
      ...(options.allowPrivateSinks ? {} : { lookup: guardedLookup }),
      ...(options.ca ? { ca: options.ca } : {}),
    });
  }

  start(): void {
    this.#timer = setInterval(() => this.wake(), this.#o.pollMs);
    this.#timer.unref();
    this.wake();
  }

  /** Look for due rows now (a write recorded some, or the poll came round). */
  wake(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#drain().catch((error: unknown) => this.#o.warn({ err: error }, 'events: the outbox could not be read')).finally(() => {
      this.#running = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#running;
    this.#agent.destroy();
  }

  async #drain(): Promise<void> {
    while (!this.#closed) {
      const now = this.#now();
      const rows = await this.#o.outbox.claim(now, now + LEASE_MS, BATCH);
      if (rows.length === 0) return;
      await Promise.all(rows.map((row) => this.#deliver(row)));
    }
  }

  async #deliver(row: Delivery): Promise<void> {
    const attempts = row.attempts + 1;
    const outcome = await this.#attempt(row);
    const now = this.#now();
    if (outcome === 'delivered') {
      await this.#o.outbox.delivered(row.seq);
      this.#o.metrics.delivered.inc();
    } else if (outcome === 'retry' && now - row.firstMs < this.#o.retryForMs) {
      await this.#o.outbox.retryAt(row.seq, attempts, now + this.#backoff(attempts));
      this.#o.metrics.retried.inc();
    } else {
      await this.#o.outbox.failed(row.seq, attempts);
      this.#o.metrics.failed.inc();
      this.#o.warn({ event: row.eventId, subscription: row.subscription, attempts }, 'events: a delivery was given up');
    }
  }

  /** Full jitter over an exponential ceiling: replicas retrying one sink spread out rather than return together. */
  #backoff(attempts: number): number {
    const base = this.#o.backoffMs ?? 1000;
    const ceiling = Math.min(this.#o.maxBackoffMs ?? 300_000, base * 2 ** Math.min(attempts - 1, 20));
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  }

  async #attempt(row: Delivery): Promise<Outcome> {
    if (sinkRefusal(row.sink, this.#o.allowPrivateSinks)) return 'refused';
    const attributes = JSON.parse(row.attributes) as CloudEventAttributes;
    const token = await this.#o.signer.token(this.#o.issuer(), row.group, row.data, this.#now());
    const headers: Record<string, string> = {
      'content-type': attributes.datacontenttype,
      authorization: `Bearer ${token}`,
      'ce-specversion': attributes.specversion,
      'ce-id': attributes.id,
      'ce-source': attributes.source,
      'ce-type': attributes.type,
      'ce-subject': attributes.subject,
      'ce-time': attributes.time,
    };
    for (const [name, value] of Object.entries(attributes.extensions)) headers[`ce-${name}`] = value;
    try {
      const status = await this.#post(row.sink, headers, row.data);
      if (status >= 200 && status < 300) return 'delivered';
      if (status === 429 || status >= 500) return 'retry';
      this.#o.warn({ event: row.eventId, subscription: row.subscription, status }, 'events: a sink refused a delivery');
      return 'refused';
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EV2GW_INTERNAL_SINK') return 'refused';
      this.#o.warn({ event: row.eventId, subscription: row.subscription, cause: code ?? (error as Error).name }, 'events: a sink did not answer');
      return 'retry';
    }
  }

  /** One POST, its answer's status once the answer has been read through; an error when there is none in time. */
  #post(sink: string, headers: Record<string, string>, body: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const sent = request(sink, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, agent: this.#agent, signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS) }, (answer) => {
        answer.resume();
        answer.on('end', () => resolve(answer.statusCode ?? 0));
        answer.on('error', reject);
      });
      sent.on('error', reject);
      sent.end(body);
    });
  }
}
