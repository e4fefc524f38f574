import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tlds', (t) => {
    t.string('tld', 64).primary();
    t.string('registrar', 64).notNullable();
    t.integer('min_length').notNullable();
    t.integer('max_length').notNullable();
    t.integer('grace_days').notNullable();
    t.integer('redemption_days').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('tlds');
}
