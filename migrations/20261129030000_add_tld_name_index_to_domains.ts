import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The console's domain list filtered by TLD (docs/console.md, "Indexes of the domain list"): with the
  // name after the TLD a page is read in order from its keyset, and a TLD with few or no domains is
  // found at once, where the name index alone was walked whole (0.6 s at 100,000 domains).
  await knex.schema.alterTable('domains', (t) => {
    t.index(['tld', 'name'], 'domains_tld_name_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.dropIndex(['tld', 'name'], 'domains_tld_name_index');
  });
}
