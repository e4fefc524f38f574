import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A digest is claimed ('sending', until `claim_until`), then 'sent', or 'failed' and tried again
  // by the next run of the job that day: a mail server that refused it does not lose it.
  // Rows from before were taken and sent.
  await knex.schema.alterTable('expiry_digests', (t) => {
    t.string('status', 16).notNullable().defaultTo('sent');
    t.integer('attempts').notNullable().defaultTo(1);
    t.bigInteger('claim_until').nullable();
    t.string('last_error', 500).nullable();
    t.bigInteger('sent_at').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('expiry_digests', (t) => {
    t.dropColumn('status');
    t.dropColumn('attempts');
    t.dropColumn('claim_until');
    t.dropColumn('last_error');
    t.dropColumn('sent_at');
  });
}
