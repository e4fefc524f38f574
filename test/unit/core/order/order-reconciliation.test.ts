import type { MemoryUnitOfWork } from '../../../../src/infra/repositories/memory/memory-unit-of-work';
import type { DomainStatus } from '../../../../src/core/domain/domain';
import { OPERATOR_NOTE } from '../../../../src/core/order/order-service';
import {
  AFTER_LEASE_MS,
  SETTINGS,
  type OrderCore,
  outcomeFor,
  refusal,
  registration,
  startMemoryOrderBench,
} from '../../../support/order-bench';

const DAY_MS = 86_400_000;

/**
 * Reconciliation's decisions (src/core/order/order-reconciliation.ts): what a pending order
 * becomes once the registrar is asked again after the request's lease, on the memory twin of the
 * unit of work. Races between reconcilers, and the same decisions through the real SQL, stay in
 * test/integration (order-money-flow, order-settlement, transfer-sync-settlement).
 */
describe('reconciling an order the registrar gave no definite answer', () => {
  let b: OrderCore<MemoryUnitOfWork>;
  beforeEach(async () => {
    b = await startMemoryOrderBench();
  });
  afterEach(async () => {
    await b.close();
  });

  const domainOf = (name: string) => b.uow.read.domains.findByName(name);
  const ordersFor = (name: string) => b.orders.list({ domain: name });

  it('keeps the money reserved and answers success on a timeout; reconciliation refunds exactly once', async () => {
    const r = await b.newReseller(5_000);
    b.fake.script('timeout.com', 'timeout');
    await expect(b.orders.register(r, registration('timeout.com'))).resolves.toMatchObject({ status: 'pending' });
    expect(await b.balance(r)).toBe(4_000);
    expect((await ordersFor('timeout.com'))[0]).toMatchObject({
      status: 'pending',
      note: expect.stringMatching(/did not answer within/),
    });
    expect(await domainOf('timeout.com')).toMatchObject({ status: 'Pending Registration' });

    // Within the request's lease reconciliation keeps its hands off.
    expect(outcomeFor(await b.orders.reconcile(), 'timeout.com')).toEqual([]);
    b.clock.advance(AFTER_LEASE_MS);
    expect(outcomeFor(await b.orders.reconcile(), 'timeout.com')).toEqual(['refunded']);
    expect(await b.balance(r)).toBe(5_000);
    expect(await domainOf('timeout.com')).toMatchObject({ status: 'Cancelled', resellerId: r.id });
    b.clock.advance(AFTER_LEASE_MS);
    expect(outcomeFor(await b.orders.reconcile(), 'timeout.com')).toEqual([]);
    expect(await b.balance(r)).toBe(5_000);
  });
  it('completes an order whose registration succeeded after the deadline, charging once', async () => {
    const r = await b.newReseller(5_000);
    b.fake.script('late.com', 'late');
    await expect(b.orders.register(r, registration('late.com'))).resolves.toMatchObject({ status: 'pending' });
    expect((await ordersFor('late.com'))[0].status).toBe('pending');
    b.clock.advance(AFTER_LEASE_MS);
    expect(outcomeFor(await b.orders.reconcile(), 'late.com')).toEqual(['completed']);
    expect(await domainOf('late.com')).toMatchObject({ status: 'Active', expiryDate: '2027-11-21' });
    expect(await b.balance(r)).toBe(4_000);
    expect(b.fake.callsFor('late.com')).toBe(1);
  });
  it('treats a registrar fault as unknown, never as a refusal', async () => {
    const r = await b.newReseller(5_000);
    b.fake.script('fault.com', 'fault');
    await expect(b.orders.register(r, registration('fault.com'))).resolves.toMatchObject({ status: 'pending' });
    expect((await ordersFor('fault.com'))[0]).toMatchObject({
      status: 'pending',
      note: expect.stringMatching(/ECONNRESET/),
    });
    b.clock.advance(AFTER_LEASE_MS);
    await b.orders.reconcile();
    expect((await ordersFor('fault.com'))[0].status).toBe('failed');
    expect(await b.balance(r)).toBe(5_000);
  });
  it('keeps an order pending while the registrar cannot tell, and settles it once it can', async () => {
    const r = await b.newReseller(5_000);
    b.fake.script('unsure.com', 'pending');
    await b.orders.register(r, registration('unsure.com'));
    b.fake.lookupsFail = true;
    b.clock.advance(AFTER_LEASE_MS);
    try {
      expect(outcomeFor(await b.orders.reconcile(), 'unsure.com')).toEqual(['unresolved']);
      expect((await ordersFor('unsure.com'))[0]).toMatchObject({ status: 'pending', reconcileAttempts: 1 });
      expect(await b.balance(r)).toBe(4_000);
    } finally {
      b.fake.lookupsFail = false;
    }
    // Asked again only once its reconciliation lease runs out.
    expect(outcomeFor(await b.orders.reconcile(), 'unsure.com')).toEqual([]);
    b.clock.advance(AFTER_LEASE_MS);
    expect(outcomeFor(await b.orders.reconcile(), 'unsure.com')).toEqual(['completed']);
    expect(await domainOf('unsure.com')).toMatchObject({ status: 'Active' });
  });
  it('reconciles an unanswered renewal by comparing the registrar expiry', async () => {
    const r = await b.newReseller(10_000);
    await b.orders.register(r, registration('slowrenew.com'));
    await b.orders.register(r, registration('lostrenew.com'));
    b.fake.script('slowrenew.com', 'late');
    b.fake.script('lostrenew.com', 'lost');
    await b.orders.renew(r, { domain: 'slowrenew.com', period: 1, addons: {} });
    await b.orders.renew(r, { domain: 'lostrenew.com', period: 1, addons: {} });
    expect((await refusal(b.orders.renew(r, { domain: 'lostrenew.com', period: 1, addons: {} }))).code).toBe(
      'conflict',
    );
    b.clock.advance(AFTER_LEASE_MS);
    const report = await b.orders.reconcile();
    expect(outcomeFor(report, 'slowrenew.com')).toEqual(['completed']);
    expect(outcomeFor(report, 'lostrenew.com')).toEqual(['refunded']);
    expect(await domainOf('slowrenew.com')).toMatchObject({ expiryDate: '2028-11-21' });
    expect(await domainOf('lostrenew.com')).toMatchObject({ status: 'Active', expiryDate: '2027-11-21' });
    expect(await b.balance(r)).toBe(10_000 - 2_000 - 1_200);
  });

  const firstOrderFor = async (name: string) => (await b.orders.list({ domain: name }))[0]!;
  // Not the newest by id: two orders placed within one millisecond have ids in no particular order.
  const renewalOf = async (name: string) => (await b.orders.list({ domain: name })).find((o) => o.action === 'renew')!;
  const transfer = (name: string) => ({ ...registration(name), eppCode: 'code' });
  /** What a change racing the order would leave (a release, a deletion): routes refuse them while it is open. */
  const setStatus = async (name: string, status: DomainStatus) => {
    const domain = (await domainOf(name))!;
    await b.uow.run(({ domains }) => domains.update(domain.id, { status }, b.clock.now()));
  };

  describe('issue 16: a registrar that cannot tell', () => {
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
        expect(await firstOrderFor('backoff.com')).toMatchObject({ status: 'pending', reconcileAttempts: 3 });
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
        expect((await firstOrderFor('overdue.com')).note).not.toMatch(OPERATOR_NOTE);
        b.clock.advance((SETTINGS.pendingLimitDays + 1) * DAY_MS);
        const report = await b.orders.reconcile();
        expect(report.orders.filter((o) => o.domain === 'overdue.com')).toEqual([
          expect.objectContaining({
            result: 'unresolved',
            note: expect.stringMatching(/^needs the operator \(pending 8 days\): reconciliation could not tell/),
          }),
        ]);
        expect(await firstOrderFor('overdue.com')).toMatchObject({ status: 'pending' });
        expect(await b.balance(r)).toBe(10_000 - 900);
      } finally {
        b.fake.lookupsFail = false;
      }
      const order = await firstOrderFor('overdue.com');
      await b.orders.settleByOperator(order.id, { outcome: 'refund', note: 'the registrar never had it' });
      expect(await b.balance(r)).toBe(10_000);
      expect(await b.uow.read.domains.findByName('overdue.com')).toMatchObject({ status: 'Cancelled' });
    });
  });

  describe('issue 16: a domain that changed while its order was open', () => {
    it('never refunds a renewal whose domain left the account meanwhile; the operator settles it', async () => {
      const r = await b.newReseller(10_000);
      await b.orders.register(r, registration('renewed-away.com'));
      b.fake.script('renewed-away.com', 'timeout');
      await b.orders.renew(r, { domain: 'renewed-away.com', period: 1, addons: {} });
      // What a release racing the renewal would leave (the route itself answers 409 while the order is open).
      await setStatus('renewed-away.com', 'Transferred Away');
      b.clock.advance(AFTER_LEASE_MS);
      const report = await b.orders.reconcile();
      expect(report.orders.filter((o) => o.domain === 'renewed-away.com')).toEqual([
        expect.objectContaining({
          result: 'unresolved',
          note: expect.stringMatching(/not refunded: the domain changed while the order was open/),
        }),
      ]);
      expect(await renewalOf('renewed-away.com')).toMatchObject({ action: 'renew', status: 'pending' });
      expect(await b.balance(r)).toBe(10_000 - 1_000 - 1_200);
      const order = await renewalOf('renewed-away.com');
      await b.orders.settleByOperator(order.id, { outcome: 'complete', note: 'renewed before it left' });
      expect(await renewalOf('renewed-away.com')).toMatchObject({ status: 'completed' });
      expect(await b.balance(r)).toBe(10_000 - 1_000 - 1_200);
    });

    it('never refunds a registration whose domain was cancelled meanwhile', async () => {
      const r = await b.newReseller(10_000);
      b.fake.script('deleted-meanwhile.com', 'lost');
      await b.orders.register(r, registration('deleted-meanwhile.com'));
      await setStatus('deleted-meanwhile.com', 'Cancelled');
      b.clock.advance(AFTER_LEASE_MS);
      expect(outcomeFor(await b.orders.reconcile(), 'deleted-meanwhile.com')).toEqual(['unresolved']);
      expect(await firstOrderFor('deleted-meanwhile.com')).toMatchObject({ status: 'pending' });
      expect(await b.balance(r)).toBe(9_000);
      const order = await firstOrderFor('deleted-meanwhile.com');
      await b.orders.settleByOperator(order.id, { outcome: 'refund', note: 'checked: never registered' });
      expect(await b.balance(r)).toBe(10_000);
      await expect(
        b.orders.settleByOperator(order.id, { outcome: 'refund', note: 'a second time' }),
      ).rejects.toMatchObject({ code: 'conflict' });
      expect(await b.balance(r)).toBe(10_000);
    });
  });
});
