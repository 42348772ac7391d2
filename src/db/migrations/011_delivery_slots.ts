import type { Knex } from 'knex';

/**
 * Issue 25 (several delivery workers): the in-flight bounds per webhook and per tenant hold across
 * processes. A slot is a row `(key, slot)` leased by one attempt until `expires_at` (the attempt
 * timeout plus a margin), so a worker that dies mid-attempt frees its slots when the lease ends.
 * UNLOGGED: leases are transient (a crash of PostgreSQL or a failover empties the table, which
 * frees every slot; an attempt then running may briefly exceed a bound), and they cost no WAL.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE UNLOGGED TABLE delivery_slots (
      key text NOT NULL,
      slot integer NOT NULL,
      holder uuid NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (key, slot)
    );
    CREATE INDEX delivery_slots_holder ON delivery_slots (holder);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE delivery_slots');
}
