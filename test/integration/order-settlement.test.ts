import { SYNC_STATUSES } from '../../src/core/domain/domain-sync-service';
import { AFTER_LEASE_MS, registration, startOrderBench, type OrderBench } from '../support/order-bench';

/**
 * Issue 16, what the database records: when domain sync next looks at a domain its order
 * completed. The decisions (backoff, the operator's hand-over, never refunding an order whose
 * domain changed) run on the memory twin: test/unit/core/order/order-reconciliation.test.ts.
 */
const DAY_MS = 86_400_000;

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
});
