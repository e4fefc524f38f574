import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A reseller's domain list (GET /account/domains, the portal) pages by name after a cursor: with
  // the name in the index a page is read in order, where the reseller_id index alone sorted every
  // domain of the reseller for each page. It also serves every lookup by reseller_id.
  await knex.schema.alterTable('domains', (t) => {
    t.index(['reseller_id', 'name'], 'domains_reseller_id_name_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.dropIndex(['reseller_id', 'name'], 'domains_reseller_id_name_index');
  });
}
