import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Webhook endpoints: a reseller's (its own events) or, with no reseller, the operator's (every
  // reseller's). Secrets are sealed under the master key like API keys; a rotated secret keeps
  // signing beside the new one until `previous_secret_until`.
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.string('id', 32).primary();
    t.string('reseller_id', 26).nullable();
    t.string('url', 2048).notNullable();
    t.text('event_types').nullable();
    t.text('sealed_secret').notNullable();
    t.text('previous_sealed_secret').nullable();
    t.bigInteger('previous_secret_until').nullable();
    t.string('status', 16).notNullable();
    t.string('disabled_reason', 255).nullable();
    t.bigInteger('failing_since').nullable();
    t.bigInteger('created_at').notNullable();
    t.index(['reseller_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_endpoints');
}
