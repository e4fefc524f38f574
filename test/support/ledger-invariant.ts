import type { Knex } from 'knex';
import type { MemoryUnitOfWork } from '../../src/infra/repositories/memory/memory-unit-of-work';

/** Databases of the running test file; `ledger-invariant-hook.ts` checks each after every test. */
export const openLedgers = new Set<Knex>();

/** The memory twins of the running test file, checked after every test as the databases are. */
export const openMemoryLedgers = new Set<MemoryUnitOfWork>();

/**
 * The money invariant, checked straight in the database after every test:
 * - every account's balance equals the sum of its entries and is never negative;
 * - every order has exactly one debit of its price; a failed order exactly one refund of it,
 *   any other order none: its entries net to -price (pending, completed) or 0 (failed);
 * - no order entry without an order; no pending order without an open-order lock, none settled with one.
 */
export async function ledgerProblems(db: Knex): Promise<string[]> {
  // One transaction: a consistent snapshot (InnoDB repeatable read, SQLite WAL), so a commit
  // landing between two of these reads can never look like a broken ledger.
  return db.transaction((trx) => problemsIn(trx));
}

/** What the invariant reads: every account, every order entry, every order (one snapshot). */
export interface LedgerSnapshot {
  readonly accounts: ReadonlyArray<{ readonly resellerId: string; readonly balance: number }>;
  /** Every entry's amount per reseller (all kinds). */
  readonly sums: ReadonlyMap<string, number>;
  readonly orderEntries: ReadonlyArray<{ readonly orderId: string; readonly kind: string; readonly amount: number }>;
  readonly orders: ReadonlyArray<{
    readonly id: string;
    readonly price: number;
    readonly status: string;
    readonly openDomain: string | null;
    readonly domain: string;
  }>;
}

async function problemsIn(db: Knex.Transaction): Promise<string[]> {
  const accounts = (await db('credit_accounts').select('reseller_id', 'balance_minor')).map((a) => ({
    resellerId: String(a.reseller_id),
    balance: Number(a.balance_minor),
  }));
  const sums = new Map<string, number>();
  for (const account of accounts) {
    const row = await db('credit_entries')
      .where({ reseller_id: account.resellerId })
      .sum({ total: 'amount_minor' })
      .first();
    sums.set(account.resellerId, Number(row?.total ?? 0));
  }
  const orders = (await db('orders').select('id', 'price_minor', 'status', 'open_domain', 'domain_name')).map((o) => ({
    id: String(o.id),
    price: Number(o.price_minor),
    status: String(o.status),
    openDomain: o.open_domain as string | null,
    domain: String(o.domain_name),
  }));
  const orderEntries = (
    await db('credit_entries').whereNotNull('order_id').select('order_id', 'kind', 'amount_minor')
  ).map((e) => ({ orderId: String(e.order_id), kind: String(e.kind), amount: Number(e.amount_minor) }));
  return ledgerSnapshotProblems({ accounts, sums, orders, orderEntries });
}

/** The invariant's checks, whichever storage the snapshot was read from (the database, the memory twin). */
export function ledgerSnapshotProblems({ accounts, sums, orders, orderEntries }: LedgerSnapshot): string[] {
  const problems: string[] = [];
  for (const { resellerId, balance } of accounts) {
    const sum = sums.get(resellerId) ?? 0;
    if (balance !== sum) problems.push(`reseller ${resellerId}: balance ${balance} but entries sum to ${sum}`);
    if (balance < 0) problems.push(`reseller ${resellerId}: negative balance ${balance}`);
  }
  const byOrder = new Map<string, Array<{ kind: string; amount: number }>>();
  for (const e of orderEntries) byOrder.set(e.orderId, [...(byOrder.get(e.orderId) ?? []), e]);
  const known = new Set<string>();
  for (const order of orders) {
    known.add(order.id);
    const price = order.price;
    const list = byOrder.get(order.id) ?? [];
    const debits = list.filter((e) => e.kind === 'order_debit');
    const refunds = list.filter((e) => e.kind === 'order_refund');
    const net = list.reduce((s, e) => s + e.amount, 0);
    if (debits.length !== 1 || debits[0].amount !== -price)
      problems.push(`order ${order.id}: expected one debit of ${-price}, got ${JSON.stringify(debits)}`);
    const expectedRefunds = order.status === 'failed' ? 1 : 0;
    if (refunds.length !== expectedRefunds)
      problems.push(`order ${order.id} (${order.status}): ${refunds.length} refunds`);
    const expectedNet = order.status === 'failed' ? 0 : -price;
    if (net !== expectedNet)
      problems.push(`order ${order.id} (${order.status}): entries net ${net}, expected ${expectedNet}`);
    if ((order.status === 'pending') !== (order.openDomain === order.domain))
      problems.push(`order ${order.id} (${order.status}): open_domain ${order.openDomain}`);
  }
  for (const orderId of byOrder.keys())
    if (!known.has(orderId)) problems.push(`entries for order ${orderId}, which does not exist`);
  return problems;
}

export async function expectLedgerInvariant(db: Knex): Promise<void> {
  expect(await ledgerProblems(db)).toEqual([]);
}

/** The same invariant over a memory twin's committed tables. */
export function memoryLedgerProblems(uow: MemoryUnitOfWork): string[] {
  const { accounts, entries, orders } = uow.tables;
  const sums = new Map<string, number>();
  for (const e of entries.values()) sums.set(e.resellerId, (sums.get(e.resellerId) ?? 0) + e.amount);
  return ledgerSnapshotProblems({
    accounts: [...accounts].map(([resellerId, balance]) => ({ resellerId, balance })),
    sums,
    orderEntries: [...entries.values()].flatMap((e) =>
      e.orderId === null ? [] : [{ orderId: e.orderId, kind: e.kind, amount: e.amount }],
    ),
    // The twin has no open_domain column: a pending order holds its name, as the column would.
    orders: [...orders.values()].map((o) => ({
      id: o.id,
      price: o.price,
      status: o.status,
      openDomain: o.status === 'pending' ? o.domain : null,
      domain: o.domain,
    })),
  });
}
