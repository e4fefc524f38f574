import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('credit_entries', (t) => {
    t.string('id', 26).primary();
    t.string('reseller_id', 26).notNullable().references('id').inTable('resellers');
    t.bigInteger('amount_minor').notNullable();
    t.string('kind', 16).notNullable();
    t.string('order_id', 26).nullable();
    t.string('note', 255).nullable();
    t.bigInteger('created_at').notNullable();
    t.index(['reseller_id', 'created_at']);
    t.index(['order_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('credit_entries');
}
