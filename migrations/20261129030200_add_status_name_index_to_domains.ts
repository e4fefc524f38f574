import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The console's domain list filtered by status, read in name order from its keyset (docs/console.md,
  // "Indexes of the domain list"). It also answers every lookup the status index answered.
  await knex.schema.alterTable('domains', (t) => {
    t.index(['status', 'name'], 'domains_status_name_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.dropIndex(['status', 'name'], 'domains_status_name_index');
  });
}
