import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A reseller's IP allow-list (a JSON array of CIDR ranges; NULL: any address). A column rather
  // than a table: authentication reads it on every request with the reseller row, in one lookup.
  await knex.schema.alterTable('resellers', (t) => {
    t.text('allowed_networks').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('resellers', (t) => {
    t.dropColumn('allowed_networks');
  });
}
