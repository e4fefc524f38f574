import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The outbox (ADR 15): every event, written in the transaction of the change that caused it.
  // `dispatched_at` is set once subscribers have had it and its webhook deliveries exist;
  // `claim_until` is the lease of a process re-dispatching one that was not (after a crash).
  await knex.schema.createTable('outbox_events', (t) => {
    t.string('id', 32).primary();
    t.string('type', 64).notNullable();
    t.integer('version').notNullable();
    t.string('reseller_id', 26).nullable();
    t.bigInteger('occurred_at').notNullable();
    t.text('payload').notNullable();
    t.bigInteger('dispatched_at').nullable();
    t.bigInteger('claim_until').nullable();
    t.index(['dispatched_at', 'occurred_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('outbox_events');
}
