import type { Knex } from 'knex';

/**
 * A ledger entry belongs to a credit account: its reseller_id now references
 * `credit_accounts.reseller_id` instead of `resellers.id` (every account belongs to a reseller, so
 * what may be written is unchanged). Why: InnoDB checks a foreign key by taking a shared lock on
 * the parent row, and an entry is always inserted right after its balance was moved. Referencing
 * the reseller, the entry's insert asked for the reseller row while holding the account, the
 * opposite of the order every other transaction takes them in (the reseller, then its balance:
 * an operator's adjustment locks the reseller first), and under load a refund and an adjustment of
 * one reseller deadlocked in a cycle until every retry was spent. Referencing the account, the
 * insert's check is on the row the transaction already holds. docs/architecture.md "Lock order".
 *
 * MariaDB/MySQL only: SQLite has one writer at a time and no row locks, so nothing there waits in
 * a cycle (its schema keeps the reference to the reseller, which allows exactly the same rows).
 * The constraint is added without a table copy (foreign key checks off for this one statement,
 * after checking here that no entry lacks its account).
 */
const isMysql = (knex: Knex) => String(knex.client.config.client).includes('mysql');

export async function up(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  const orphan = await knex('credit_entries as e')
    .leftJoin('credit_accounts as a', 'a.reseller_id', 'e.reseller_id')
    .whereNull('a.reseller_id')
    .first('e.id', 'e.reseller_id');
  if (orphan)
    throw new Error(
      `credit entry ${orphan.id} belongs to reseller ${orphan.reseller_id}, which has no credit account: the ledger needs repair before this migration`,
    );
  await retarget(
    knex,
    'DROP FOREIGN KEY credit_entries_reseller_id_foreign, ADD CONSTRAINT credit_entries_account_foreign FOREIGN KEY (reseller_id) REFERENCES credit_accounts (reseller_id)',
  );
}

export async function down(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  await retarget(
    knex,
    'DROP FOREIGN KEY credit_entries_account_foreign, ADD CONSTRAINT credit_entries_reseller_id_foreign FOREIGN KEY (reseller_id) REFERENCES resellers (id)',
  );
}

/** The migration runs on one connection (its transaction), so the session setting covers exactly this statement. */
async function retarget(knex: Knex, change: string): Promise<void> {
  await knex.raw('SET SESSION foreign_key_checks = 0');
  try {
    await knex.raw(`ALTER TABLE credit_entries ${change}, ALGORITHM=INPLACE`);
  } finally {
    await knex.raw('SET SESSION foreign_key_checks = 1');
  }
}
