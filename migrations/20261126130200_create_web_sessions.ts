import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Signed-in browsers of the console and the portal (src/web/sessions.ts): listed and revoked from the console.
  await knex.schema.createTable('web_sessions', (t) => {
    // SHA-256 of the cookie's value: a copy of this table signs nobody in.
    t.string('id_hash', 64).primary();
    // console | portal
    t.string('area', 16).notNullable();
    // operator | reseller
    t.string('principal_kind', 16).notNullable();
    t.string('principal_id', 26).notNullable();
    // signed_in, or a step of sign-in still owed (second_factor, enrol_second_factor)
    t.string('stage', 32).notNullable();
    t.string('csrf_token', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('last_seen_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.string('client_ip', 64).nullable();
    t.string('user_agent', 255).nullable();
    // Small state of a sign-in step (the TOTP secret being enrolled, sealed).
    t.text('data').nullable();
    t.index(['principal_kind', 'principal_id']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('web_sessions');
}
