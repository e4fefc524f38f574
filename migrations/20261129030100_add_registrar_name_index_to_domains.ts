import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The console's domain list filtered by registrar, read in name order from its keyset (docs/console.md,
  // "Indexes of the domain list"): a registrar with few domains no longer walks the whole name index.
  await knex.schema.alterTable('domains', (t) => {
    t.index(['registrar', 'name'], 'domains_registrar_name_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.dropIndex(['registrar', 'name'], 'domains_registrar_name_index');
  });
}
