import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // `domain.expiring` is published once per (domain, expiry date, 30/7/1 days): the row is the
  // proof, written in the same transaction; a renewal's new expiry date starts over.
  await knex.schema.createTable('domain_expiry_notices', (t) => {
    t.string('domain_id', 26).notNullable();
    t.string('expiry_date', 10).notNullable();
    t.integer('days_left').notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['domain_id', 'expiry_date', 'days_left']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('domain_expiry_notices');
}
