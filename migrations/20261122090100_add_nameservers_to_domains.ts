import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The nameservers the platform last knew of, as a JSON array; null until first known.
  await knex.schema.alterTable('domains', (t) => {
    t.text('nameservers').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.dropColumn('nameservers');
  });
}
