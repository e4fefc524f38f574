import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The operator's staff who sign in to the console (`reseller-admin operator …`).
  await knex.schema.createTable('operators', (t) => {
    t.string('id', 26).primary();
    t.string('email', 254).notNullable().unique();
    // admin | viewer
    t.string('role', 16).notNullable();
    // argon2id PHC string; null until the operator follows its one-time link.
    t.string('password_hash', 255).nullable();
    // The TOTP secret sealed with the master key; null until enrolled.
    t.string('sealed_totp_secret', 255).nullable();
    // JSON list of the SHA-256 hashes of the unused recovery codes.
    t.text('recovery_codes').nullable();
    t.bigInteger('disabled_at').nullable();
    t.bigInteger('created_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('operators');
}
