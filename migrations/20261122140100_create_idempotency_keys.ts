import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.string('reseller_id', 26).notNullable().references('id').inTable('resellers');
    t.string('idem_key', 255).notNullable();
    // sha256 (hex) of the normalised request: the same key with another body is refused.
    t.string('fingerprint', 64).notNullable();
    t.string('state', 16).notNullable();
    t.string('order_id', 26).nullable();
    // The first answer (JSON), replayed to every retry.
    t.text('answer').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.primary(['reseller_id', 'idem_key']);
    t.index(['order_id']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
}
