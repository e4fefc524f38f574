import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The time step (30-second counter) of the last TOTP code that signed in: a code works once,
  // so one read over a shoulder or replayed within its window is refused (docs/console.md).
  await knex.schema.alterTable('portal_logins', (t) => {
    t.bigInteger('totp_last_step').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('portal_logins', (t) => {
    t.dropColumn('totp_last_step');
  });
}
