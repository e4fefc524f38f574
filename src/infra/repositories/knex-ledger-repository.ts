import type { Knex } from 'knex';
import type { EntryKind, LedgerEntry, LedgerRepository } from '../../core/credit/ledger';
import type { Minor } from '../../core/shared/money';
import { readFirst } from '../db/direct-reads';

interface EntryRow { id: string; reseller_id: string; amount_minor: number | string; kind: string; order_id: string | null; note: string | null; created_at: number | string }

const BALANCE = 'SELECT balance_minor FROM credit_accounts WHERE reseller_id = ?';

export class KnexLedgerRepository implements LedgerRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async openAccount(resellerId: string): Promise<void> {
    await this.db('credit_accounts').insert({ reseller_id: resellerId, balance_minor: 0 });
  }

  async post(entry: LedgerEntry): Promise<boolean> {
    // One conditional update moves the balance; a debit that would go below zero matches no row.
    const moved = await this.db('credit_accounts')
      .where({ reseller_id: entry.resellerId })
      .andWhere('balance_minor', '>=', -entry.amount)
      .update({ balance_minor: this.db.raw('balance_minor + ?', [entry.amount]) });
    if (moved !== 1) return false;
    await this.db('credit_entries').insert({
      id: entry.id,
      reseller_id: entry.resellerId,
      amount_minor: entry.amount,
      kind: entry.kind,
      order_id: entry.orderId,
      note: entry.note,
      created_at: entry.createdAt.getTime(),
    });
    return true;
  }

  async balance(resellerId: string): Promise<Minor> {
    const row = await readFirst<{ balance_minor: number | string }>(this.db, BALANCE, [resellerId]);
    return row ? Number(row.balance_minor) : 0;
  }

  async totalBalance(): Promise<Minor> {
    const row = await this.db('credit_accounts').sum({ total: 'balance_minor' }).first();
    return Number(row?.total ?? 0);
  }

  async sumOfEntries(resellerId: string): Promise<Minor> {
    const row = await this.db('credit_entries').sum({ total: 'amount_minor' }).where({ reseller_id: resellerId }).first();
    return Number(row?.total ?? 0);
  }

  async entries(resellerId: string, limit: number): Promise<LedgerEntry[]> {
    const rows: EntryRow[] = await this.db('credit_entries').where({ reseller_id: resellerId }).orderBy('id', 'desc').limit(limit);
    return rows.map((row) => ({
      id: row.id,
      resellerId: row.reseller_id,
      amount: Number(row.amount_minor),
      kind: row.kind as EntryKind,
      orderId: row.order_id,
      note: row.note,
      createdAt: new Date(Number(row.created_at)),
    }));
  }
}
