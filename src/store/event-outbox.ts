/**
 * The events outbox: one row per (event, subscription) to deliver, written in
 * the transaction of the write that caused it, so an acknowledged write's
 * events survive a crash; and the keys that sign deliveries, shared by every
 * replica and restart. Claims take rows with FOR UPDATE SKIP LOCKED on
 * PostgreSQL and set a lease, so replicas never take the same row at once
 * and a replica that dies mid-delivery gives its rows back when the lease ends.
 */
import { sql, type Kysely } from 'kysely';
import { EVENT_DELIVERIES, EVENT_KEYS, type Database } from './schema.ts';

type Executor = () => Kysely<Database>;

export interface NewDelivery {
  eventId: string;
  subscription: string;
  sink: string;
  /** The subscription's group: the token's `sub` is `webhook:<group>`. */
  group: string;
  /** The CloudEvent's attributes and extensions, as JSON text. */
  attributes: string;
  data: string;
}

export interface Delivery extends NewDelivery {
  seq: number;
  attempts: number;
  /** When the first attempt was due (epoch ms): retries stop some time after it. */
  firstMs: number;
}

export interface SigningKeyRow {
  kid: string;
  privateJwk: string;
  publicJwk: string;
}

export interface EventOutboxStore {
  append(deliveries: readonly NewDelivery[], nowMs: number): Promise<void>;
  /** Up to `limit` rows due by `nowMs` and not leased, leased to the caller until `leaseUntilMs`. */
  claim(nowMs: number, leaseUntilMs: number, limit: number): Promise<Delivery[]>;
  delivered(seq: number): Promise<void>;
  retryAt(seq: number, attempts: number, atMs: number): Promise<void>;
  failed(seq: number, attempts: number): Promise<void>;
  /** Rows still to deliver. */
  pending(): Promise<number>;
  signingKeys(): Promise<SigningKeyRow[]>;
  addSigningKey(key: SigningKeyRow, nowMs: number): Promise<void>;
}

const PENDING = 'pending';
const FAILED = 'failed';

export class EventOutbox implements EventOutboxStore {
  readonly #db: Executor;
  /** Only PostgreSQL has row locks to skip; SQLite's one writer needs none. */
  readonly #skipLocked: boolean;

  constructor(db: Executor, engine: 'sqlite' | 'postgres') {
    this.#db = db;
    this.#skipLocked = engine === 'postgres';
  }

  async append(deliveries: readonly NewDelivery[], nowMs: number): Promise<void> {
    if (deliveries.length === 0) return;
    await this.#db().insertInto(EVENT_DELIVERIES).values(deliveries.map((d) => ({
      event_id: d.eventId, subscription: d.subscription, sink: d.sink, grp: d.group, attributes: d.attributes, data: d.data,
      attempts: 0, state: PENDING, next_ms: nowMs, lease_until_ms: 0, first_ms: nowMs,
    }))).execute();
  }

  claim(nowMs: number, leaseUntilMs: number, limit: number): Promise<Delivery[]> {
    return this.#db().transaction().execute(async (trx) => {
      let due = trx.selectFrom(EVENT_DELIVERIES).selectAll()
        .where('state', '=', PENDING).where('next_ms', '<=', nowMs).where('lease_until_ms', '<=', nowMs)
        .orderBy('seq').limit(limit);
      if (this.#skipLocked) due = due.forUpdate().skipLocked();
      const rows = await due.execute();
      if (rows.length === 0) return [];
      await trx.updateTable(EVENT_DELIVERIES).set({ lease_until_ms: leaseUntilMs })
        .where('seq', 'in', rows.map((r) => r.seq)).execute();
      return rows.map((r) => ({
        seq: Number(r.seq), eventId: r.event_id, subscription: r.subscription, sink: r.sink, group: r.grp,
        attributes: r.attributes, data: r.data, attempts: Number(r.attempts), firstMs: Number(r.first_ms),
      }));
    });
  }

  async delivered(seq: number): Promise<void> {
    await this.#db().deleteFrom(EVENT_DELIVERIES).where('seq', '=', seq).execute();
  }

  async retryAt(seq: number, attempts: number, atMs: number): Promise<void> {
    await this.#db().updateTable(EVENT_DELIVERIES).set({ attempts, next_ms: atMs, lease_until_ms: 0 }).where('seq', '=', seq).execute();
  }

  async failed(seq: number, attempts: number): Promise<void> {
    await this.#db().updateTable(EVENT_DELIVERIES).set({ attempts, state: FAILED, lease_until_ms: 0 }).where('seq', '=', seq).execute();
  }

  async pending(): Promise<number> {
    const row = await this.#db().selectFrom(EVENT_DELIVERIES).select(sql<number>`count(*)`.as('n')).where('state', '=', PENDING).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async signingKeys(): Promise<SigningKeyRow[]> {
    const rows = await this.#db().selectFrom(EVENT_KEYS).selectAll().orderBy('created_ms').orderBy('kid').execute();
    return rows.map((r) => ({ kid: r.kid, privateJwk: r.private_jwk, publicJwk: r.public_jwk }));
  }

  async addSigningKey(key: SigningKeyRow, nowMs: number): Promise<void> {
    await this.#db().insertInto(EVENT_KEYS)
      .values({ kid: key.kid, private_jwk: key.privateJwk, public_jwk: key.publicJwk, created_ms: nowMs })
      .onConflict((oc) => oc.column('kid').doNothing()).execute();
  }
}
