import type { Knex } from 'knex';

// At most one debit and one refund per order, enforced by the database as well as by the
// conditional order updates. Top-ups and adjustments have no order (NULLs never collide).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('credit_entries', (t) => {
    t.unique(['order_id', 'kind'], { indexName: 'credit_entries_order_kind_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('credit_entries', (t) => {
    t.dropUnique(['order_id', 'kind'], 'credit_entries_order_kind_unique');
  });
}
