import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One-time links: an operator's set-password link, a reseller's portal invitation. Valid for a while, used once.
  await knex.schema.createTable('one_time_links', (t) => {
    // SHA-256 of the token in the link.
    t.string('token_hash', 64).primary();
    // set_operator_password | reseller_invitation
    t.string('purpose', 32).notNullable();
    t.string('subject_id', 26).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at').nullable();
    t.index(['purpose', 'subject_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('one_time_links');
}
