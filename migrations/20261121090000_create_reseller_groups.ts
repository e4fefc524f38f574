import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('reseller_groups', (t) => {
    t.string('id', 26).primary();
    t.string('name', 64).notNullable().unique();
    t.text('default_contact').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('reseller_groups');
}
