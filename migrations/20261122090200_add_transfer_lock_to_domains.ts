import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The registrar (transfer) lock as last known; null while unknown.
  await knex.schema.alterTable('domains', (t) => {
    t.boolean('transfer_lock').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.dropColumn('transfer_lock');
  });
}
