import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('addon_prices', (t) => {
    t.string('group_id', 26).notNullable().references('id').inTable('reseller_groups');
    t.string('addon', 32).notNullable();
    // Integer minor units per year; an addon without a row is free.
    t.bigInteger('price_minor').notNullable();
    t.primary(['group_id', 'addon']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('addon_prices');
}
