import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The registrar's last answer to a sync or transfer sync of each domain, with its time: what the
  // console's domain page shows (docs/console.md). One row per domain, replaced by each sync.
  await knex.schema.createTable('domain_sync_answers', (t) => {
    t.string('domain_id', 26).primary();
    // sync | transfer_sync
    t.string('kind', 16).notNullable();
    t.bigInteger('at').notNullable();
    // JSON: the answer's fields (status flags, expiry), never a secret; null when the call failed.
    t.text('answer').nullable();
    t.string('error', 500).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('domain_sync_answers');
}
