import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A sync claim takes the oldest due domains of one status in name order: with the name in the
  // index they are read in order and the first batch found, where a sort over every due domain
  // made each claim cost more as the domains grew (bench/RESULTS.md, sync at scale).
  await knex.schema.alterTable('domains', (t) => {
    t.index(['status', 'synced_at', 'name'], 'domains_status_synced_at_name_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.dropIndex(['status', 'synced_at', 'name'], 'domains_status_synced_at_name_index');
  });
}
