/** Migration 0003: the events outbox and the signing keys (event-outbox.ts). */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from './dialect.ts';
import { EVENT_DELIVERIES, EVENT_KEYS } from './schema.ts';

export function eventOutbox(d: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable(EVENT_DELIVERIES)
        .addColumn('seq', d.engine === 'postgres' ? 'bigserial' : 'integer', (c) => (d.engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('event_id', d.textType, (c) => c.notNull())
        .addColumn('subscription', d.textType, (c) => c.notNull())
        .addColumn('sink', d.textType, (c) => c.notNull())
        .addColumn('grp', d.textType, (c) => c.notNull())
        .addColumn('attributes', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('state', d.textType, (c) => c.notNull())
        .addColumn('next_ms', 'bigint', (c) => c.notNull())
        .addColumn('lease_until_ms', 'bigint', (c) => c.notNull())
        .addColumn('first_ms', 'bigint', (c) => c.notNull())
        .execute();
      // The deliverer's claim: due pending rows, oldest first.
      await db.schema.createIndex(`${EVENT_DELIVERIES}_due`).on(EVENT_DELIVERIES).columns(['state', 'next_ms', 'seq']).execute();
      await db.schema
        .createTable(EVENT_KEYS)
        .addColumn('kid', d.textType, (c) => c.primaryKey())
        .addColumn('private_jwk', 'text', (c) => c.notNull())
        .addColumn('public_jwk', 'text', (c) => c.notNull())
        .addColumn('created_ms', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
