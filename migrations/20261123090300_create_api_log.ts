import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Every API call a reseller made (reseller-admin log): never the token, the body or any secret.
  await knex.schema.createTable('api_log', (t) => {
    t.bigIncrements('id').primary();
    t.string('reseller_id', 26).notNullable();
    t.bigInteger('at').notNullable();
    t.string('method', 8).notNullable();
    t.string('route', 128).notNullable();
    t.string('domain', 253).nullable();
    t.integer('status').notNullable();
    t.integer('duration_ms').notNullable();
    t.string('error', 500).nullable();
    t.string('request_id', 64).notNullable();
    t.string('client_ip', 64).nullable();
    t.index(['reseller_id', 'at']);
    t.index(['reseller_id', 'domain', 'at']);
    t.index(['at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_log');
}
