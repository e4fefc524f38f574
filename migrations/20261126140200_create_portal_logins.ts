import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // How a reseller signs in to the portal: a password of its own, apart from its API key (which
  // stays sealed on the resellers row), and an optional second factor. A row exists once the
  // reseller has followed an invitation.
  await knex.schema.createTable('portal_logins', (t) => {
    t.string('reseller_id', 26).primary().references('id').inTable('resellers');
    // argon2id PHC string.
    t.string('password_hash', 255).notNullable();
    // The TOTP secret sealed with the master key; null without a second factor.
    t.string('sealed_totp_secret', 255).nullable();
    // JSON list of the SHA-256 hashes of the unused recovery codes.
    t.text('recovery_codes').nullable();
    t.bigInteger('password_set_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('portal_logins');
}
