import type { Knex } from 'knex';

/**
 * An Idempotency-Key is an opaque client string: `Order-1` and `order-1` are two keys. SQLite compared
 * them exactly from the start; MariaDB compared them with the database's case-insensitive collation,
 * so a second key differing only by case collided with the first (a replay, or a 422). Binary
 * collation there: every engine compares them exactly. The keys are printable ASCII without spaces, so
 * the collation's trailing-space padding never comes into it. A no-op on SQLite.
 */
export async function up(knex: Knex): Promise<void> {
  if (!String(knex.client.config.client).includes('mysql')) return;
  await knex.raw(
    'ALTER TABLE idempotency_keys MODIFY idem_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL',
  );
}

/** Fails while two live keys of one reseller differ only by case: they would be one key again. */
export async function down(knex: Knex): Promise<void> {
  if (!String(knex.client.config.client).includes('mysql')) return;
  await knex.raw('ALTER TABLE idempotency_keys MODIFY idem_key VARCHAR(255) NOT NULL');
}
