import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The unique (order_id, kind) answers every query by order_id this one did: one index fewer to
  // write for each ledger entry.
  await knex.schema.alterTable('credit_entries', (t) => {
    t.dropIndex(['order_id'], 'credit_entries_order_id_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('credit_entries', (t) => {
    t.index(['order_id'], 'credit_entries_order_id_index');
  });
}
