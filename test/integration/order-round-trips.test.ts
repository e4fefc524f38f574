import { ulid } from 'ulid';
import type { OrderService } from '../../src/core/order/order-service';
import type { EventName, EventPayloads } from '../../src/core/common/events';
import { createLogger } from '../../src/infra/logging';
import { OrderSettlement } from '../../src/core/order/order-settlement';
import { TEST_ENGINE } from '../support/test-database';
import { KnexLedgerRepository } from '../../src/infra/repositories/knex-ledger-repository';
import {
  AFTER_LEASE_MS,
  newOrderService,
  registration,
  startOrderBench,
  type OrderBench,
} from '../support/order-bench';

/**
 * The shortcuts that keep an order's round trips down (bench/RESULTS.md, "Hot paths"), each
 * checked for doing what the long way did: the balance answered by the debit's insert, a new
 * name inserted without a read first; and settlement as one transaction on every engine.
 */
describe('an order in few round trips', () => {
  let b: OrderBench;
  let orders: OrderService;
  let published: Array<{ name: EventName; event: EventPayloads[EventName] }>;
  let statements: string[];
  const record = (query: { sql: string }) => statements.push(query.sql);

  beforeAll(async () => {
    b = await startOrderBench();
    const events = b.events;
    for (const name of [
      'order.placed',
      'order.completed',
      'order.failed',
      'domain.status_changed',
      'credit.changed',
    ] as const) {
      events.on(name, (event) => {
        published.push({ name, event });
      });
    }
    orders = newOrderService(b.uow, b.registrar, b.catalogue, b.clock, createLogger('silent'));
    b.knex.on('query', record);
  });
  afterAll(async () => {
    b.knex.off('query', record);
    await b.close();
  });
  beforeEach(() => {
    published = [];
    statements = [];
  });

  const domainOf = (name: string) => b.uow.read.domains.findByName(name);
  const orderFor = async (name: string) => (await b.orders.list({ domain: name }))[0];
  /** A COMMIT, alone or (MariaDB) after the transaction's last statement in the same round trip. */
  const isCommit = (sql: string) => /(^|;\s*)commit;?$/i.test(sql.trim());
  /** Sent once on a connection the pool has just opened, before its first transaction (MariaDB). */
  const isConnectionSetUp = (sql: string) => /^set autocommit/i.test(sql.trim());

  it('publishes every event of a registration, credit.changed with the balance right after the debit', async () => {
    const r = await b.newReseller(10_000);
    published = [];
    await expect(orders.register(r, registration('events-rt.com'))).resolves.toMatchObject({
      orderId: expect.any(String),
    });
    const order = await orderFor('events-rt.com');
    expect(published.map((p) => p.name)).toEqual([
      'domain.status_changed',
      'credit.changed',
      'order.placed',
      'order.completed',
      'domain.status_changed',
    ]);
    expect(published[1].event).toMatchObject({
      resellerId: r.id,
      amount: -1_000,
      kind: 'order_debit',
      orderId: order.id,
      balance: 9_000,
    });
    expect(published[0].event).toMatchObject({ domain: 'events-rt.com', from: null, to: 'Pending Registration' });
    expect(published[4].event).toMatchObject({ domain: 'events-rt.com', from: 'Pending Registration', to: 'Active' });
    expect(order).toMatchObject({ status: 'completed', expiryDate: '2027-11-21' });
    expect(await domainOf('events-rt.com')).toMatchObject({ status: 'Active', expiryDate: '2027-11-21' });
  });

  it('reads no domain row before inserting a new name, and none of the balance after the debit', async () => {
    const r = await b.newReseller(10_000);
    await orders.register(r, registration('fresh-rt.com'));
    const reads = statements.filter((sql) => /^select/i.test(sql.trim()));
    expect(reads.filter((sql) => /from `domains`/.test(sql))).toEqual([]);
    expect(reads.filter((sql) => /from `credit_accounts`/.test(sql))).toEqual([]);
  });

  it('still refuses a name held elsewhere, in progress, or in the account, writing nothing', async () => {
    const [owner, other] = [await b.newReseller(10_000), await b.newReseller(10_000)];
    await orders.register(owner, registration('held-rt.com'));
    await expect(orders.register(other, registration('held-rt.com'))).rejects.toMatchObject({
      code: 'unavailable',
      message: 'held-rt.com is not available',
    });
    await expect(orders.register(owner, registration('held-rt.com'))).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/already in your account \(Active\)/),
    });
    b.fake.script('busy-rt.com', 'timeout');
    await orders.register(owner, registration('busy-rt.com'));
    await expect(orders.register(other, registration('busy-rt.com'))).rejects.toMatchObject({ code: 'conflict' });
    expect(await b.balance(other)).toBe(10_000);
    expect(await b.orders.list({ resellerId: other.id })).toEqual([]);
  });

  it('takes over a Cancelled name, keeping what it was to put back on failure', async () => {
    const [first, second] = [await b.newReseller(10_000), await b.newReseller(10_000)];
    await orders.register(first, registration('again-rt.com'));
    await b.knex('domains').where({ name: 'again-rt.com' }).update({ status: 'Cancelled' });
    b.fake.registered.delete('again-rt.com');
    b.fake.script('again-rt.com', 'refuse');
    await expect(orders.register(second, registration('again-rt.com'))).rejects.toMatchObject({
      code: 'registrar_failed',
    });
    expect(await domainOf('again-rt.com')).toMatchObject({ status: 'Cancelled', resellerId: first.id });
    expect(await b.balance(second)).toBe(10_000);
    await expect(orders.register(second, registration('again-rt.com'))).resolves.toMatchObject({
      orderId: expect.any(String),
    });
    expect(await domainOf('again-rt.com')).toMatchObject({ status: 'Active', resellerId: second.id });
  });

  it('completes an order whose domain left the pending state, leaving the domain as it is and announcing no status change', async () => {
    const r = await b.newReseller(10_000);
    b.fake.script('moved-rt.com', 'late');
    await orders.register(r, registration('moved-rt.com'));
    expect(await orderFor('moved-rt.com')).toMatchObject({ status: 'pending' });
    await b.knex('domains').where({ name: 'moved-rt.com' }).update({ status: 'Fraud' });
    published = [];
    b.clock.advance(AFTER_LEASE_MS);
    const report = await orders.reconcile();
    expect(report.orders.filter((o) => o.domain === 'moved-rt.com').map((o) => o.result)).toEqual(['completed']);
    expect(await orderFor('moved-rt.com')).toMatchObject({ status: 'completed' });
    expect(await domainOf('moved-rt.com')).toMatchObject({ status: 'Fraud' });
    expect(
      published.filter((p) => (p.event as { domain?: string }).domain === 'moved-rt.com').map((p) => p.name),
    ).toEqual(['order.completed']);
    expect(await b.balance(r)).toBe(9_000);
  });

  it('renews through the same completion, only for the domain still in the account', async () => {
    const r = await b.newReseller(10_000);
    await orders.register(r, registration('renew-rt.com'));
    published = [];
    await expect(orders.renew(r, { domain: 'renew-rt.com', period: 1, addons: {} })).resolves.toMatchObject({
      orderId: expect.any(String),
    });
    expect(await domainOf('renew-rt.com')).toMatchObject({ status: 'Active', expiryDate: '2028-11-21' });
    expect(published.map((p) => p.name)).toEqual(['credit.changed', 'order.placed', 'order.completed']);
    expect(await b.balance(r)).toBe(10_000 - 1_000 - 1_200);
  });

  describe('the ledger answering its balance', () => {
    it('answers the balance after the entry, and null with nothing written when it would go below zero', async () => {
      const r = await b.newReseller(1_000);
      const entry = (amount: number) => ({
        id: ulid(),
        resellerId: r.id,
        amount,
        kind: 'adjustment' as const,
        orderId: null,
        note: null,
        createdAt: new Date(),
      });
      await expect(b.uow.run((repos) => repos.ledger.postAndBalance!(entry(-400)))).resolves.toBe(600);
      await expect(b.uow.run((repos) => repos.ledger.postAndBalance!(entry(-700)))).resolves.toBeNull();
      await expect(b.uow.run((repos) => repos.ledger.postAndBalance!(entry(250)))).resolves.toBe(850);
      expect(await b.balance(r)).toBe(850);
      expect(await b.credit.verify(r.id)).toMatchObject({ consistent: true, sumOfEntries: 850 });
      const ledger = new KnexLedgerRepository(b.knex);
      expect(await ledger.balance(r.id)).toBe(850);
    });

    it('moves the balance and inserts the entry in one round trip where the connection takes both at once (MariaDB)', async () => {
      const r = await b.newReseller(1_000);
      const entry = {
        id: ulid(),
        resellerId: r.id,
        amount: -300,
        kind: 'adjustment' as const,
        orderId: null,
        note: null,
        createdAt: new Date(),
      };
      statements = [];
      await expect(b.uow.run((repos) => repos.ledger.postAndBalance!(entry))).resolves.toBe(700);
      const ledgerStatements = statements.filter((sql) => /credit_/.test(sql));
      if (TEST_ENGINE === 'mariadb')
        expect(ledgerStatements).toEqual([
          expect.stringMatching(/^update `credit_accounts`.*;\s*insert into `credit_entries`/s),
        ]);
      else expect(ledgerStatements).toHaveLength(2);
      // Refused: the entry sent beside the move that matched no row is removed, in the same transaction.
      await expect(
        b.uow.run((repos) => repos.ledger.postAndBalance!({ ...entry, id: ulid(), amount: -701 })),
      ).resolves.toBeNull();
      expect(await b.knex('credit_entries').where({ reseller_id: r.id }).pluck('amount_minor')).toEqual(
        expect.not.arrayContaining([-701]),
      );
      expect(await b.credit.verify(r.id)).toMatchObject({ consistent: true, sumOfEntries: 700 });
    });

    it('is what operator adjustments report too', async () => {
      const r = await b.newReseller(1_000);
      await expect(b.credit.adjust(r.id, 500, 'top up')).resolves.toMatchObject({ balance: 1_500 });
      await expect(b.credit.adjust(r.id, -2_000, null)).rejects.toMatchObject({ code: 'insufficient_credit' });
      expect(await b.balance(r)).toBe(1_500);
    });
  });

  describe('settling an order: one transaction of the same statements on every engine', () => {
    it('sends phase 1 and phase 3 as one transaction each, whoever listens to events', async () => {
      const r = await b.newReseller(10_000);
      statements = [];
      await orders.register(r, registration('phase3-rt.com'));
      expect(statements.filter(isCommit)).toHaveLength(2);
      const quiet = newOrderService(b.uow, b.registrar, b.catalogue, b.clock, createLogger('silent'));
      const heard = statements.filter((sql) => !isConnectionSetUp(sql)).length;
      statements = [];
      await quiet.register(r, registration('phase3-quiet-rt.com'));
      // The same statements with no listener at all: nothing depends on who subscribes.
      expect(statements.filter((sql) => !isConnectionSetUp(sql))).toHaveLength(heard);
    });

    it('completes the order and moves its domain in one round trip where the connection takes both (MariaDB), and moves nothing when another party settled the order first', async () => {
      const settlement = new OrderSettlement(b.uow, b.clock, createLogger('silent'), {
        registrarTimeoutMs: 1_000,
        reconcileAfterMs: 1_000,
      });
      const r = await b.newReseller(10_000);
      for (const name of ['together-rt.com', 'raced-rt.com']) b.fake.script(name, 'timeout');
      await orders.register(r, registration('together-rt.com'));
      await orders.register(r, registration('raced-rt.com'));
      const [together, raced] = [await orderFor('together-rt.com'), await orderFor('raced-rt.com')];
      statements = [];
      await expect(settlement.complete(together, '2027-11-21', 'done', { fromRegistrar: true })).resolves.toBe(
        'completed',
      );
      const settling = statements.filter((sql) => /`orders`|`domains`/.test(sql));
      if (TEST_ENGINE === 'mariadb')
        expect(settling).toEqual([expect.stringMatching(/^update `orders`.*;\s*update `domains`/s)]);
      else expect(settling).toHaveLength(2);
      expect(await domainOf('together-rt.com')).toMatchObject({ status: 'Active', expiryDate: '2027-11-21' });
      // Settled by someone else between our read of the order and our settlement.
      await b.knex('orders').where({ id: raced.id }).update({ status: 'completed', open_domain: null });
      published = [];
      await expect(settlement.complete(raced, '2027-11-21', 'done', { fromRegistrar: true })).resolves.toBe(
        'settled_already',
      );
      expect(await domainOf('raced-rt.com')).toMatchObject({ status: 'Pending Registration', expiryDate: null });
      expect(published).toEqual([]);
    });

    it('changes nothing when the order was settled already', async () => {
      const r = await b.newReseller(10_000);
      b.fake.script('twice-rt.com', 'timeout');
      await orders.register(r, registration('twice-rt.com'));
      const order = await orderFor('twice-rt.com');
      await b.knex('orders').where({ id: order.id }).update({ status: 'completed', open_domain: null });
      b.clock.advance(AFTER_LEASE_MS);
      await expect(orders.settleByOperator(order.id, { outcome: 'refund', note: 'again' })).rejects.toMatchObject({
        code: 'conflict',
      });
      expect(await domainOf('twice-rt.com')).toMatchObject({ status: 'Pending Registration' });
      expect(await b.balance(r)).toBe(9_000);
    });
  });
});
