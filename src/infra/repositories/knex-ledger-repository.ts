import type { Knex } from 'knex';
import type { Db } from '../db/db';
import type { EntryKind, LedgerEntry, LedgerRepository, StatementQuery, StatementRows } from '../../core/credit/ledger';
import type { Minor } from '../../core/common/money';
import { databaseKind, rawRows } from '../db/database-kind';
import { rowInsert, StatementTexts } from '../db/statement-text';

interface EntryRow {
  id: string;
  reseller_id: string;
  amount_minor: number | string;
  kind: string;
  order_id: string | null;
  note: string | null;
  created_at: number | string;
}

const BALANCE = 'SELECT balance_minor FROM credit_accounts WHERE reseller_id = ?';

export class KnexLedgerRepository implements LedgerRepository {
  constructor(private readonly db: Db) {}

  async openAccount(resellerId: string): Promise<void> {
    await this.db('credit_accounts').insert({ reseller_id: resellerId, balance_minor: 0 });
  }

  async post(entry: LedgerEntry): Promise<boolean> {
    if (!(await this.move(entry))) return false;
    await this.db('credit_entries').insert(entryRow(entry));
    return true;
  }

  async postAndBalance(entry: LedgerEntry): Promise<Minor | null> {
    const returns = await insertReturns(this.db);
    if (returns && this.db.multipleStatements) return this.postAndBalanceTogether(entry);
    if (!(await this.move(entry))) return null;
    if (!returns) {
      await this.db('credit_entries').insert(entryRow(entry));
      return this.balance(entry.resellerId);
    }
    // The entry's insert answers the balance the update above left (this transaction's own write): one round trip, not two.
    const insert = this.insertAnsweringBalance(entry);
    const result = await this.db.raw(insert.sql, insert.bindings);
    return Number(rawRows<{ balance: number | string }>(this.db, result)[0]!.balance);
  }

  /**
   * The move and the entry's insert (answering the balance) in one round trip, on a connection
   * that takes several statements at once. The server runs both, so when the move matched no row
   * (the balance cannot take the debit) the entry just inserted is removed again, in the same
   * transaction, before anyone can see it: nothing is written, as with the move alone.
   */
  private async postAndBalanceTogether(entry: LedgerEntry): Promise<Minor | null> {
    const move = MOVE.text(this.db, 'move', {
      resellerId: entry.resellerId,
      amount: entry.amount,
      floor: -entry.amount,
    });
    const insert = this.insertAnsweringBalance(entry);
    const [[moved, rows]] = (await this.db.raw(`${move.sql};\n${insert.sql}`, [
      ...move.bindings,
      ...insert.bindings,
    ] as Knex.RawBinding[])) as [[{ affectedRows: number }, Array<{ balance: number | string }>]];
    if (moved.affectedRows === 1) return Number(rows[0]!.balance);
    await this.db('credit_entries').where({ id: entry.id }).delete();
    return null;
  }

  /** The entry's insert answering the balance the move left (this transaction's own write): `INSERT … RETURNING`. */
  private insertAnsweringBalance(entry: LedgerEntry): { sql: string; bindings: Knex.RawBinding[] } {
    const insert = INSERT_ENTRY.text(this.db, 'row', entryRow(entry));
    return {
      sql: `${insert.sql} returning (select \`balance_minor\` from \`credit_accounts\` where \`reseller_id\` = ?) as \`balance\``,
      bindings: [...(insert.bindings as Knex.RawBinding[]), entry.resellerId],
    };
  }

  /** One conditional update moves the balance; a debit that would go below zero matches no row. */
  private async move(entry: LedgerEntry): Promise<boolean> {
    return (await this.moveQuery(entry)) === 1;
  }

  private moveQuery(entry: LedgerEntry): Knex.QueryBuilder<object, number> {
    return moveQuery(this.db, entry.resellerId, entry.amount, -entry.amount);
  }

  async balance(resellerId: string): Promise<Minor> {
    const row = rawRows<{ balance_minor: number | string }>(this.db, await this.db.raw(BALANCE, [resellerId]))[0];
    return row ? Number(row.balance_minor) : 0;
  }

  async totalBalance(): Promise<Minor> {
    const row = await this.db('credit_accounts').sum({ total: 'balance_minor' }).first();
    return Number(row?.total ?? 0);
  }

  async sumOfEntries(resellerId: string): Promise<Minor> {
    const row = await this.db('credit_entries')
      .sum({ total: 'amount_minor' })
      .where({ reseller_id: resellerId })
      .first();
    return Number(row?.total ?? 0);
  }

  async entries(resellerId: string, limit: number): Promise<LedgerEntry[]> {
    const rows: EntryRow[] = await this.db('credit_entries')
      .where({ reseller_id: resellerId })
      .orderBy('id', 'desc')
      .limit(limit);
    return rows.map(toEntry);
  }

  async statement(q: StatementQuery): Promise<StatementRows> {
    const start = (query: Knex.QueryBuilder) => {
      const after = q.after;
      if (after)
        return query.where((w) =>
          w
            .where('created_at', '>', after.createdAt)
            .orWhere((x) => x.where('created_at', '=', after.createdAt).where('id', '>', after.id)),
        );
      return q.from ? query.where('created_at', '>=', q.from.getTime()) : query;
    };
    const page = start(this.db('credit_entries').where({ reseller_id: q.resellerId }))
      .orderBy([
        { column: 'created_at', order: 'asc' },
        { column: 'id', order: 'asc' },
      ])
      .limit(q.limit);
    if (q.before) page.where('created_at', '<', q.before.getTime());
    // The balance before the page is today's balance less every entry from the page's start on,
    // in one statement (one snapshot on both engines), so an entry posted meanwhile counts on
    // both sides and cancels out; a statement of recent weeks sums few rows.
    const since = start(
      this.db('credit_entries').sum({ total: 'amount_minor' }).where({ reseller_id: q.resellerId }),
    ).toSQL();
    const [rows, opening] = await Promise.all([
      page as Promise<EntryRow[]>,
      this.db.raw(`select (${BALANCE}) - coalesce((${since.sql}), 0) as opening`, [q.resellerId, ...since.bindings]),
    ]);
    const openingRow = rawRows<{ opening: number | string | null }>(this.db, opening)[0];
    return { openingBalance: Number(openingRow?.opening ?? 0), entries: rows.map(toEntry) };
  }
}

function toEntry(row: EntryRow): LedgerEntry {
  return {
    id: row.id,
    resellerId: row.reseller_id,
    amount: Number(row.amount_minor),
    kind: row.kind as EntryKind,
    orderId: row.order_id,
    note: row.note,
    createdAt: new Date(Number(row.created_at)),
  };
}

/** One conditional update moves the balance; a debit that would go below zero matches no row. */
function moveQuery(db: Db, resellerId: string, amount: unknown, floor: unknown): Knex.QueryBuilder<object, number> {
  return db('credit_accounts')
    .where({ reseller_id: resellerId })
    .andWhere('balance_minor', '>=', floor as number)
    .update({ balance_minor: db.raw('balance_minor + ?', [amount as number]) });
}

/** The move and the entry's insert as text, built by knex once per dialect (src/infra/db/statement-text.ts). */
const MOVE = new StatementTexts<'resellerId' | 'amount' | 'floor'>((db, value) =>
  moveQuery(db, value('resellerId'), value('amount'), value('floor')),
);
const INSERT_ENTRY = rowInsert<keyof ReturnType<typeof entryRow>>('credit_entries');

function entryRow(entry: LedgerEntry) {
  return {
    id: entry.id,
    reseller_id: entry.resellerId,
    amount_minor: entry.amount,
    kind: entry.kind,
    order_id: entry.orderId,
    note: entry.note,
    created_at: entry.createdAt.getTime(),
  };
}

/** Per database (the connection settings a transaction shares with its pool): whether INSERT … RETURNING works. */
const returning = new WeakMap<object, Promise<boolean>>();

/**
 * SQLite (3.35+, bundled with better-sqlite3) and MariaDB 10.5+ answer INSERT … RETURNING; MySQL
 * does not. Asked once per database, inside the caller's transaction. A failure to ask is not
 * remembered and is thrown: the question is a statement of that transaction, and its error (a
 * deadlock; on Galera, another node's commit aborting this transaction) may mean the database
 * rolled the whole transaction back. Answering "no" instead once let the debit's entry and order
 * commit in a new transaction without the balance update (an oversell on multi-primary Galera).
 */
function insertReturns(db: Db): Promise<boolean> {
  const key = db.client.config as object;
  let known = returning.get(key);
  if (!known) {
    known =
      databaseKind(db) === 'sqlite'
        ? Promise.resolve(true)
        : db.raw('select version() as `version`').then(
            ([rows]: [Array<{ version: string }>]) => mariaDbFrom(String(rows[0]?.version ?? ''), 10, 5),
            (error: unknown) => {
              returning.delete(key);
              throw error;
            },
          );
    returning.set(key, known);
  }
  return known;
}

function mariaDbFrom(version: string, major: number, minor: number): boolean {
  const match = /^(\d+)\.(\d+)/.exec(version);
  if (!match || !/mariadb/i.test(version)) return false;
  const [maj, min] = [Number(match[1]), Number(match[2])];
  return maj > major || (maj === major && min >= minor);
}
