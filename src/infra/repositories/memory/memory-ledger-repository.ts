import type { Minor } from '../../../core/common/money';
import type { LedgerEntry, LedgerRepository, StatementQuery, StatementRows } from '../../../core/credit/ledger';
import { assertMinor, assertReferenced, assertUnique, byText, copy, type TablesRef } from './memory-tables';

const newestFirst = (a: LedgerEntry, b: LedgerEntry) => byText(b.id, a.id);
const oldestFirst = (a: LedgerEntry, b: LedgerEntry) =>
  a.createdAt.getTime() - b.createdAt.getTime() || byText(a.id, b.id);

/**
 * The twin of KnexLedgerRepository: `credit_accounts` and `credit_entries`, with the entry's
 * unique (order, kind) (one debit and one refund per order) and the conditional balance move.
 */
export class MemoryLedgerRepository implements LedgerRepository {
  constructor(private readonly ref: TablesRef) {}

  private get t() {
    return this.ref.tables;
  }

  async openAccount(resellerId: string): Promise<void> {
    assertUnique(this.t.accounts.has(resellerId), `credit_accounts.reseller_id ${resellerId}`);
    assertReferenced(this.t.resellers.has(resellerId), `credit_accounts.reseller_id ${resellerId}`);
    this.t.accounts.set(resellerId, 0);
  }

  async post(entry: LedgerEntry): Promise<boolean> {
    return (await this.postAndBalance(entry)) !== null;
  }

  async postAndBalance(entry: LedgerEntry): Promise<Minor | null> {
    assertMinor(entry.amount, 'credit_entries.amount_minor');
    const balance = this.t.accounts.get(entry.resellerId);
    // One conditional update: no account, or a debit below zero, matches no row and writes nothing.
    if (balance === undefined || balance + entry.amount < 0) return null;
    assertUnique(this.t.entries.has(entry.id), `credit_entries.id ${entry.id}`);
    const twin =
      entry.orderId !== null &&
      [...this.t.entries.values()].some((e) => e.orderId === entry.orderId && e.kind === entry.kind);
    assertUnique(twin, `credit_entries (order_id, kind) ${entry.orderId} ${entry.kind}`);
    this.t.accounts.set(entry.resellerId, balance + entry.amount);
    this.t.entries.set(entry.id, copy(entry));
    return balance + entry.amount;
  }

  async balance(resellerId: string): Promise<Minor> {
    return this.t.accounts.get(resellerId) ?? 0;
  }

  async totalBalance(): Promise<Minor> {
    return [...this.t.accounts.values()].reduce((sum, b) => sum + b, 0);
  }

  async sumOfEntries(resellerId: string): Promise<Minor> {
    return this.of(resellerId).reduce((sum, e) => sum + e.amount, 0);
  }

  async entries(resellerId: string, limit: number): Promise<LedgerEntry[]> {
    return copy(this.of(resellerId).sort(newestFirst).slice(0, limit));
  }

  async statement(q: StatementQuery): Promise<StatementRows> {
    const after = q.after;
    const starts = (e: LedgerEntry) =>
      after
        ? e.createdAt.getTime() > after.createdAt ||
          (e.createdAt.getTime() === after.createdAt && byText(e.id, after.id) > 0)
        : !q.from || e.createdAt.getTime() >= q.from.getTime();
    const since = this.of(q.resellerId).filter(starts);
    const page = since
      .filter((e) => !q.before || e.createdAt.getTime() < q.before.getTime())
      .sort(oldestFirst)
      .slice(0, q.limit);
    const openingBalance = (await this.balance(q.resellerId)) - since.reduce((sum, e) => sum + e.amount, 0);
    return { openingBalance, entries: copy(page) };
  }

  private of(resellerId: string): LedgerEntry[] {
    return [...this.t.entries.values()].filter((e) => e.resellerId === resellerId);
  }
}
