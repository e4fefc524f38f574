import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One row per (event, endpoint): attempted until a 2xx (delivered) or out of attempts (dead).
  // A worker claims a due row (`claim_token`, `claim_until`) and commits the claim before it sends.
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.string('id', 26).primary();
    t.string('event_id', 32).notNullable();
    t.string('endpoint_id', 32).notNullable();
    t.string('event_type', 64).notNullable();
    t.string('status', 16).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.bigInteger('next_attempt_at').notNullable();
    t.string('claim_token', 32).nullable();
    t.bigInteger('claim_until').nullable();
    t.integer('last_status').nullable();
    t.string('last_error', 500).nullable();
    t.bigInteger('last_attempt_at').nullable();
    t.bigInteger('delivered_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.unique(['event_id', 'endpoint_id']);
    t.index(['status', 'next_attempt_at']);
    t.index(['endpoint_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
}
