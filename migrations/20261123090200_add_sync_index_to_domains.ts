import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The background jobs look for due domains by status, oldest sync first.
  await knex.schema.alterTable('domains', (t) => {
    t.index(['status', 'synced_at'], 'domains_status_synced_at_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.dropIndex(['status', 'synced_at'], 'domains_status_synced_at_index');
  });
}
