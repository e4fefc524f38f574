import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The daily mail of a reseller's expiring domains: one row per reseller and day, taken before
  // the mail is sent, so several processes send it once.
  await knex.schema.createTable('expiry_digests', (t) => {
    t.string('reseller_id', 26).notNullable();
    t.string('day', 10).notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['reseller_id', 'day']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('expiry_digests');
}
