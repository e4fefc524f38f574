import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('credit_accounts', (t) => {
    t.string('reseller_id', 26).primary().references('id').inTable('resellers');
    // Kept equal to the sum of credit_entries inside every transaction; debited only by a conditional update.
    t.bigInteger('balance_minor').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('credit_accounts');
}
