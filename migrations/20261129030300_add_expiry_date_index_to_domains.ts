import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // "Expiring within N days" (the console's domain list, the expiry notices): the domains in the range
  // are found by the index and sorted, where a short range walked the whole name index.
  await knex.schema.alterTable('domains', (t) => {
    t.index(['expiry_date'], 'domains_expiry_date_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.dropIndex(['expiry_date'], 'domains_expiry_date_index');
  });
}
