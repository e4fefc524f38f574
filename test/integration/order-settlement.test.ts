import { SYNC_STATUSES } from '../../src/core/domain/domain-sync-service';
import { OPERATOR_NOTE } from '../../src/core/order/order-service';
import { AFTER_LEASE_MS, registration, SETTINGS, startOrderBench, type OrderBench } from '../support/order-bench';

const DAY_MS = 86_400_000;

/**
 * Issue 16: reconciliation never refunds an order whose domain changed while it was open, backs
 * off from a registrar that cannot answer, and hands an order pending past the limit to the
 * operator, who settles it through the same settlement.
 */
describe('settling orders that stay open', () => {
  let b: OrderBench;
  beforeAll(async () => {
    b = await startOrderBench();
  });
  afterAll(async () => {
    await b.close();
  });

  const orderFor = async (name: string) => (await b.orders.list({ domain: name }))[0]!;
  const outcomeFor = (report: { orders: readonly { domain: string; result: string }[] }, name: string) =>
    report.orders.filter((o) => o.domain === name).map((o) => o.result);
  const transfer = (name: string) => ({ ...registration(name), eppCode: 'code' });

  describe('a registrar that cannot tell', () => {
    it('is asked again only after a backoff that doubles per unresolved attempt', async () => {
      const r = await b.newReseller(10_000);
      b.fake.script('backoff.com', 'timeout');
      await b.orders.transfer(r, transfer('backoff.com'));
      b.fake.lookupsFail = true;
      try {
        b.clock.advance(AFTER_LEASE_MS);
        expect(outcomeFor(await b.orders.reconcile(), 'backoff.com')).toEqual(['unresolved']);
        // First wait: RECONCILE_AFTER_MS.
        b.clock.advance(AFTER_LEASE_MS);
        expect(outcomeFor(await b.orders.reconcile(), 'backoff.com')).toEqual(['unresolved']);
        // Second wait: twice that; one RECONCILE_AFTER_MS later it is not asked yet.
        b.clock.advance(AFTER_LEASE_MS);
        expect(outcomeFor(await b.orders.reconcile(), 'backoff.com')).toEqual([]);
        b.clock.advance(SETTINGS.reconcileAfterMs);
        expect(outcomeFor(await b.orders.reconcile(), 'backoff.com')).toEqual(['unresolved']);
        expect(await orderFor('backoff.com')).toMatchObject({ status: 'pending', reconcileAttempts: 3 });
        expect(await b.balance(r)).toBe(10_000 - 900);
      } finally {
        b.fake.lookupsFail = false;
      }
    });

    it('hands an order still pending after PENDING_ORDER_LIMIT_DAYS to the operator, money still reserved', async () => {
      const r = await b.newReseller(10_000);
      b.fake.script('overdue.com', 'timeout');
      await b.orders.transfer(r, transfer('overdue.com'));
      b.fake.lookupsFail = true;
      try {
        b.clock.advance(AFTER_LEASE_MS);
        await b.orders.reconcile();
        expect((await orderFor('overdue.com')).note).not.toMatch(OPERATOR_NOTE);
        b.clock.advance((SETTINGS.pendingLimitDays + 1) * DAY_MS);
        const report = await b.orders.reconcile();
        expect(report.orders.filter((o) => o.domain === 'overdue.com')).toEqual([
          expect.objectContaining({
            result: 'unresolved',
            note: expect.stringMatching(/^needs the operator \(pending 8 days\): reconciliation could not tell/),
          }),
        ]);
        expect(await orderFor('overdue.com')).toMatchObject({ status: 'pending' });
        expect(await b.balance(r)).toBe(10_000 - 900);
      } finally {
        b.fake.lookupsFail = false;
      }
      const order = await orderFor('overdue.com');
      await b.orders.settleByOperator(order.id, { outcome: 'refund', note: 'the registrar never had it' });
      expect(await b.balance(r)).toBe(10_000);
      expect(await b.uow.read.domains.findByName('overdue.com')).toMatchObject({ status: 'Cancelled' });
    });
  });

  describe('when domain sync next asks about a domain its order completed', () => {
    const syncedAt = async (name: string) =>
      (await b.knex('domains').where({ name }).first('synced_at'))?.synced_at ?? null;
    /**
     * Whether domain sync's next pass (a sync interval of a day, as by default) would take the
     * domain: its own claim decides, and the claim is given back at once, unsynced.
     */
    const dueForSync = (name: string) =>
      b.uow.run(async (repos) => {
        const now = b.clock.now();
        const owner = `settlement-test-${name}`;
        const claimed = await repos.domains.claimForSync({
          statuses: SYNC_STATUSES.domain,
          syncedBefore: new Date(now.getTime() - DAY_MS),
          now,
          leaseUntil: new Date(now.getTime() + 60_000),
          owner,
          limit: 10_000,
        });
        await repos.domains.releaseSyncClaims(
          claimed.map((d) => d.id),
          owner,
          null,
        );
        return claimed.some((d) => d.name === name);
      });

    it('is a sync interval later when the registrar answered the registration with its expiry', async () => {
      const r = await b.newReseller(10_000);
      await b.orders.register(r, registration('answered.com'));
      expect(Number(await syncedAt('answered.com'))).toBe(b.clock.now().getTime());
      expect(await dueForSync('answered.com')).toBe(false);
      b.clock.advance(DAY_MS + 1);
      expect(await dueForSync('answered.com')).toBe(true);
    });

    it('is a sync interval later when reconciliation learnt the expiry from the registrar', async () => {
      const r = await b.newReseller(10_000);
      b.fake.script('reconciled-sync.com', 'late');
      await b.orders.register(r, registration('reconciled-sync.com'));
      expect(await syncedAt('reconciled-sync.com')).toBeNull();
      b.clock.advance(AFTER_LEASE_MS);
      expect(outcomeFor(await b.orders.reconcile(), 'reconciled-sync.com')).toEqual(['completed']);
      expect(Number(await syncedAt('reconciled-sync.com'))).toBe(b.clock.now().getTime());
    });

    it('is at once when the operator completed the order on their own word', async () => {
      const r = await b.newReseller(10_000);
      b.fake.script('operator-sync.com', 'lost');
      await b.orders.register(r, registration('operator-sync.com'));
      const order = await orderFor('operator-sync.com');
      // The operator, like reconciliation, waits for the request's lease (issue 26 item 4).
      b.clock.advance(AFTER_LEASE_MS);
      await b.orders.settleByOperator(order.id, { outcome: 'complete', note: 'seen at the registry' });
      expect(await orderFor('operator-sync.com')).toMatchObject({ status: 'completed' });
      expect(await syncedAt('operator-sync.com')).toBeNull();
      expect(await dueForSync('operator-sync.com')).toBe(true);
    });
  });

  describe('a domain that changed while its order was open', () => {
    it('never refunds a renewal whose domain left the account meanwhile; the operator settles it', async () => {
      const r = await b.newReseller(10_000);
      await b.orders.register(r, registration('renewed-away.com'));
      b.fake.script('renewed-away.com', 'timeout');
      await b.orders.renew(r, { domain: 'renewed-away.com', period: 1, addons: {} });
      // What a release racing the renewal would leave (the route itself answers 409 while the order is open).
      await b.knex('domains').where({ name: 'renewed-away.com' }).update({ status: 'Transferred Away' });
      b.clock.advance(AFTER_LEASE_MS);
      const report = await b.orders.reconcile();
      expect(report.orders.filter((o) => o.domain === 'renewed-away.com')).toEqual([
        expect.objectContaining({
          result: 'unresolved',
          note: expect.stringMatching(/not refunded: the domain changed while the order was open/),
        }),
      ]);
      expect(await orderFor('renewed-away.com')).toMatchObject({ action: 'renew', status: 'pending' });
      expect(await b.balance(r)).toBe(10_000 - 1_000 - 1_200);
      const order = await orderFor('renewed-away.com');
      await b.orders.settleByOperator(order.id, { outcome: 'complete', note: 'renewed before it left' });
      expect(await orderFor('renewed-away.com')).toMatchObject({ status: 'completed' });
      expect(await b.balance(r)).toBe(10_000 - 1_000 - 1_200);
    });

    it('never refunds a registration whose domain was cancelled meanwhile', async () => {
      const r = await b.newReseller(10_000);
      b.fake.script('deleted-meanwhile.com', 'lost');
      await b.orders.register(r, registration('deleted-meanwhile.com'));
      await b.knex('domains').where({ name: 'deleted-meanwhile.com' }).update({ status: 'Cancelled' });
      b.clock.advance(AFTER_LEASE_MS);
      expect(outcomeFor(await b.orders.reconcile(), 'deleted-meanwhile.com')).toEqual(['unresolved']);
      expect(await orderFor('deleted-meanwhile.com')).toMatchObject({ status: 'pending' });
      expect(await b.balance(r)).toBe(9_000);
      const order = await orderFor('deleted-meanwhile.com');
      await b.orders.settleByOperator(order.id, { outcome: 'refund', note: 'checked: never registered' });
      expect(await b.balance(r)).toBe(10_000);
      await expect(
        b.orders.settleByOperator(order.id, { outcome: 'refund', note: 'a second time' }),
      ).rejects.toMatchObject({ code: 'conflict' });
      expect(await b.balance(r)).toBe(10_000);
    });
  });
});
