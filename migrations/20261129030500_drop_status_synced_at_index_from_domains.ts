import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // (status, synced_at, name) answers every query this one did: one index fewer to write for each domain
  // inserted and for each sync.
  await knex.schema.alterTable('domains', (t) => {
    t.dropIndex(['status', 'synced_at'], 'domains_status_synced_at_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.index(['status', 'synced_at'], 'domains_status_synced_at_index');
  });
}
