import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One row: a version raised in the same transaction as every change to what the outbox
  // dispatcher routes by (an endpoint added, enabled, disabled or removed; a low-credit threshold
  // set or cleared), so that each process caches endpoints and thresholds and reads one number per
  // dispatch to know whether its copy is still current (docs/adr/0015).
  await knex.schema.createTable('event_routing', (t) => {
    t.integer('id').primary();
    t.bigInteger('version').notNullable().defaultTo(0);
  });
  await knex('event_routing').insert({ id: 1, version: 0 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('event_routing');
}
