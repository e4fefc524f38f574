import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('domains', (t) => {
    t.string('id', 26).primary();
    t.string('name', 253).notNullable().unique();
    t.string('unicode_name', 1024).notNullable();
    t.string('tld', 64).notNullable();
    t.string('reseller_id', 26).notNullable().references('id').inTable('resellers');
    t.string('registrar', 64).notNullable();
    t.string('status', 32).notNullable();
    t.string('expiry_date', 10).nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['reseller_id']);
    t.index(['status']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('domains');
}
