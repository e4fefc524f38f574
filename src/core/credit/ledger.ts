import type { Minor } from '../common/money';

export type EntryKind = 'top_up' | 'adjustment' | 'order_debit' | 'order_refund';

export interface LedgerEntry {
  readonly id: string;
  readonly resellerId: string;
  /** Positive credits the account, negative debits it. */
  readonly amount: Minor;
  readonly kind: EntryKind;
  readonly orderId: string | null;
  readonly note: string | null;
  readonly createdAt: Date;
}

/** Where a statement, oldest first, continues: the last entry's time and id. */
export interface EntryKey {
  readonly createdAt: number;
  readonly id: string;
}

/** One page of a reseller's statement, oldest first. */
export interface StatementQuery {
  readonly resellerId: string;
  /** Entries at or after this instant, and before `before`. */
  readonly from?: Date;
  readonly before?: Date;
  readonly after?: EntryKey;
  readonly limit: number;
}

export interface StatementRows {
  /** The balance just before the first entry answered (before `from`, or after the key when one was given). */
  readonly openingBalance: Minor;
  readonly entries: LedgerEntry[];
}

/**
 * The credit ledger: append-only entries and a running balance kept in step with them inside
 * the same transaction, so balance = sum of entries at every commit.
 */
export interface LedgerRepository {
  openAccount(resellerId: string): Promise<void>;
  /**
   * Appends the entry and moves the balance with one conditional update
   * (`balance + amount >= 0`), never read-then-write. Returns false, writing nothing,
   * when the entry would take the balance below zero. Must run inside a transaction.
   */
  post(entry: LedgerEntry): Promise<boolean>;
  /**
   * Optional: `post`, answering the balance right after the entry as seen inside the same
   * transaction (null, writing nothing, when `post` would answer false). A ledger without it is
   * posted to and then asked for its `balance`; with it, a database that can answer both in fewer
   * round trips does (the knex ledger: INSERT … RETURNING on SQLite and MariaDB).
   */
  postAndBalance?(entry: LedgerEntry): Promise<Minor | null>;
  balance(resellerId: string): Promise<Minor>;
  /** The sum of every reseller's balance (the metrics' ledger total). */
  totalBalance(): Promise<Minor>;
  sumOfEntries(resellerId: string): Promise<Minor>;
  entries(resellerId: string, limit: number): Promise<LedgerEntry[]>;
  /**
   * Optional. A page of the statement with the balance before it, read together so that they
   * agree. Without it, statements are built from the newest `entries` and the balance
   * (src/core/reseller/account-lists.ts says how many), which suits a host's ledger with a short history.
   */
  statement?(query: StatementQuery): Promise<StatementRows>;
}

/**
 * Posts an entry and answers the balance right after it, inside the caller's transaction; null,
 * writing nothing, when the balance cannot take it. In the post's own round trips when the ledger
 * has `postAndBalance`, else a post and then a read.
 */
export async function postWithBalance(ledger: LedgerRepository, entry: LedgerEntry): Promise<Minor | null> {
  if (ledger.postAndBalance) return ledger.postAndBalance(entry);
  return (await ledger.post(entry)) ? ledger.balance(entry.resellerId) : null;
}

/**
 * Makes the ledger a unit of work uses, on the connection it runs on: inside `UnitOfWork.run`
 * the transaction (a knex transaction with the knex adapter), for `read` the pool. A host that
 * keeps balances itself rebinds `TOKENS.ledgerFactory` to a ledger over its own tables in the
 * same database, so that debits still commit or roll back with the orders they pay for.
 */
export type LedgerFactory = (connection: unknown) => LedgerRepository;
