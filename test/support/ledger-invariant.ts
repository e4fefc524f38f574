import type { Knex } from 'knex';

/** Databases of the running test file; `ledger-invariant-hook.ts` checks each after every test. */
export const openLedgers = new Set<Knex>();

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

async function problemsIn(db: Knex.Transaction): Promise<string[]> {
  const problems: string[] = [];
  const accounts = await db('credit_accounts').select('reseller_id', 'balance_minor');
  for (const account of accounts) {
    const row = await db('credit_entries')
      .where({ reseller_id: account.reseller_id })
      .sum({ total: 'amount_minor' })
      .first();
    const sum = Number(row?.total ?? 0);
    const balance = Number(account.balance_minor);
    if (balance !== sum) problems.push(`reseller ${account.reseller_id}: balance ${balance} but entries sum to ${sum}`);
    if (balance < 0) problems.push(`reseller ${account.reseller_id}: negative balance ${balance}`);
  }
  const orders = await db('orders').select('id', 'price_minor', 'status', 'open_domain', 'domain_name');
  const entries = await db('credit_entries').whereNotNull('order_id').select('order_id', 'kind', 'amount_minor');
  const byOrder = new Map<string, Array<{ kind: string; amount: number }>>();
  for (const e of entries)
    byOrder.set(e.order_id, [...(byOrder.get(e.order_id) ?? []), { kind: e.kind, amount: Number(e.amount_minor) }]);
  const known = new Set<string>();
  for (const order of orders) {
    known.add(order.id);
    const price = Number(order.price_minor);
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
    if ((order.status === 'pending') !== (order.open_domain === order.domain_name))
      problems.push(`order ${order.id} (${order.status}): open_domain ${order.open_domain}`);
  }
  for (const orderId of byOrder.keys())
    if (!known.has(orderId)) problems.push(`entries for order ${orderId}, which does not exist`);
  return problems;
}

export async function expectLedgerInvariant(db: Knex): Promise<void> {
  expect(await ledgerProblems(db)).toEqual([]);
}
