import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tld_prices', (t) => {
    t.string('group_id', 26).notNullable().references('id').inTable('reseller_groups');
    t.string('tld', 64).notNullable().references('tld').inTable('tlds');
    t.string('action', 16).notNullable();
    t.integer('period').notNullable();
    // Integer minor units (cents): money is never a float.
    t.bigInteger('price_minor').notNullable();
    t.primary(['group_id', 'tld', 'action', 'period']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('tld_prices');
}
