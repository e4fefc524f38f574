import { ulid } from 'ulid';
import { DomainSyncService } from '../../src/core/domain/domain-sync-service';
import { GatewayOrderRegistrar } from '../../src/core/order/gateway-order-registrar';
import { guardRegistrars } from '../../src/core/registrar/guarded-registrar';
import type { OrderService } from '../../src/core/order/order-service';
import type { CallContext, RegistrarOutcome, TransferSyncResult } from '../../src/core/registrar/plugin';
import { RegistrarGateway } from '../../src/core/registrar/registrar-gateway';
import type { EventName } from '../../src/core/common/events';
import { AFTER_LEASE_MS, registration, startOrderBench, type OrderBench } from '../support/order-bench';
import { directoryOf, ScriptedRegistrar } from '../support/scripted-registrar';

/**
 * A registrar that accepts transfers without an expiry date (the registry finishes them later)
 * and reports each one's outcome at transfer sync as a test sets it. While `hold` is on, transfer
 * sync answers wait until released, so several callers all know the outcome before any acts on it.
 */
class TransferringRegistrar extends ScriptedRegistrar {
  readonly outcomes = new Map<string, TransferSyncResult>();
  transferSyncCalls = 0;
  private held: Array<() => void> = [];
  hold = false;

  override readonly transfer = {
    transfer: async (
      input: { domain: string },
      ctx: CallContext,
    ): Promise<RegistrarOutcome<{ expiryDate?: string }>> => {
      this.calls.push({ op: 'transfer', domain: input.domain, transactionId: ctx.transactionId });
      return { ok: true };
    },
  };

  readonly transferSync = {
    sync: async ({ domain }: { domain: string }): Promise<RegistrarOutcome<TransferSyncResult>> => {
      this.transferSyncCalls++;
      if (this.hold) await new Promise<void>((resolve) => this.held.push(resolve));
      const outcome = this.outcomes.get(domain);
      if (!outcome) return { ok: false, reason: 'refused', message: 'no transfer for this domain' };
      if (outcome.completed && outcome.expiryDate) this.registered.set(domain, outcome.expiryDate);
      return { ok: true, ...outcome };
    },
  };

  /** Waits until `callers` transfer syncs are held, then lets them all answer at once. */
  async releaseWhenHeld(callers: number): Promise<void> {
    for (let i = 0; this.held.length < callers; i++) {
      if (i > 2_000) throw new Error(`only ${this.held.length} of ${callers} transfer syncs arrived`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    this.hold = false;
    for (const release of this.held.splice(0)) release();
  }
}

/**
 * Transfer sync (POST /domains/{domain}/transfersync and the background rounds) hands the outcome
 * of a domain's open transfer order to the order flow: settled once, through the order's own
 * transitions, whoever else (reconciliation, another process) learns the outcome at the same time.
 * With TEST_DB=mariadb the concurrent settlements take real row locks.
 */
describe('transfer sync settles an open transfer order', () => {
  const fake = new TransferringRegistrar();
  let b: OrderBench;
  /** Services as in another process: their own order service and syncer, over the same database. */
  let processes: Array<{ orders: OrderService; syncer: DomainSyncService }>;
  beforeAll(async () => {
    b = await startOrderBench({ fake });
    // A deadline long enough for the held calls; the orders' leases keep the bench's settings.
    const registrars = guardRegistrars(directoryOf(fake), { timeoutMs: 10_000, logger: b.logger });
    const gateway = new RegistrarGateway(registrars, b.logger);
    const process = () => {
      const orders = b.ordersWith(b.uow, new GatewayOrderRegistrar(registrars, gateway, b.logger));
      return { orders, syncer: new DomainSyncService(b.uow, gateway, b.clock, orders) };
    };
    processes = [process(), process()];
  });
  afterAll(async () => {
    await b.close();
  });

  const domainOf = (name: string) => b.uow.read.domains.findByName(name);
  const orderOf = async (name: string) => (await b.orders.list({ domain: name }))[0]!;
  const refundsOf = async (orderId: string) =>
    (await b.knex('credit_entries').where({ order_id: orderId, kind: 'order_refund' })).length;
  /** Counts the events about `domain` published while `during` runs. */
  const countEvents = async (domain: string, during: () => Promise<unknown>) => {
    const counts: Partial<Record<EventName | string, number>> = {};
    const names: EventName[] = ['order.completed', 'order.refunded', 'domain.status_changed'];
    const off = names.map((name) =>
      b.events.on(name, (e) => {
        const event = e as { domain: string; cause?: string };
        if (event.domain !== domain) return;
        const key = event.cause ? `${name} (${event.cause})` : name;
        counts[key] = (counts[key] ?? 0) + 1;
      }),
    );
    try {
      await during();
    } finally {
      for (const unsubscribe of off) unsubscribe();
    }
    return counts;
  };
  const transferIn = async (name: string, credit = 10_000) => {
    const reseller = await b.newReseller(credit);
    await expect(b.orders.transfer(reseller, { ...registration(name), eppCode: 'EPP' })).resolves.toMatchObject({
      orderId: expect.any(String),
    });
    expect(await orderOf(name)).toMatchObject({ status: 'pending', action: 'transfer' });
    expect(await domainOf(name)).toMatchObject({ status: 'Pending Transfer' });
    return reseller;
  };

  it('completes the order once when two transfer syncs and reconciliation learn the completion at the same moment', async () => {
    const r = await transferIn('race-completed.com');
    fake.outcomes.set('race-completed.com', { completed: true, failed: false, expiryDate: '2027-11-21' });
    b.clock.advance(AFTER_LEASE_MS);
    const domain = (await domainOf('race-completed.com'))!;
    fake.hold = true;
    const events = await countEvents('race-completed.com', async () => {
      const [reports] = await Promise.all([
        Promise.all([
          processes[0]!.orders.reconcile({ owner: 'reconciler-a' }),
          processes[1]!.orders.reconcile({ owner: 'reconciler-b' }),
        ]),
        processes[0]!.syncer.transferSync(domain),
        processes[1]!.syncer.transferSync(domain),
        // Two syncs and the one reconciler that claimed the order (the other finds it busy).
        fake.releaseWhenHeld(3),
      ]);
      // Whoever settled, reconciliation reports it only when it was the one.
      const results = reports.flatMap((report) =>
        report.orders.filter((o) => o.domain === 'race-completed.com').map((o) => o.result),
      );
      expect(results.filter((result) => result !== 'completed')).toEqual([]);
    });
    expect(events).toEqual({ 'order.completed': 1, 'domain.status_changed (order)': 1 });
    expect(await orderOf('race-completed.com')).toMatchObject({
      status: 'completed',
      expiryDate: '2027-11-21',
      leaseOwner: null,
    });
    expect(await domainOf('race-completed.com')).toMatchObject({ status: 'Active', expiryDate: '2027-11-21' });
    expect(await b.balance(r)).toBe(10_000 - 900);
  });

  it("stamps the domain synced when it completes the transfer on the registrar's expiry, and not without one", async () => {
    const syncedAt = async (name: string) =>
      (await b.knex('domains').where({ name }).first('synced_at'))?.synced_at ?? null;
    await transferIn('synced-by-transfer.com');
    await transferIn('no-expiry-transfer.com');
    fake.outcomes.set('synced-by-transfer.com', { completed: true, failed: false, expiryDate: '2027-11-21' });
    fake.outcomes.set('no-expiry-transfer.com', { completed: true, failed: false });
    b.clock.advance(AFTER_LEASE_MS);
    for (const name of ['synced-by-transfer.com', 'no-expiry-transfer.com'])
      await processes[0]!.syncer.transferSync((await domainOf(name))!);

    expect(await domainOf('synced-by-transfer.com')).toMatchObject({ status: 'Active', expiryDate: '2027-11-21' });
    expect(Number(await syncedAt('synced-by-transfer.com'))).toBe(b.clock.now().getTime());
    // Without the registrar's date the row has no expiry: domain sync asks at its next pass.
    expect(await domainOf('no-expiry-transfer.com')).toMatchObject({ status: 'Active', expiryDate: null });
    expect(await syncedAt('no-expiry-transfer.com')).toBeNull();
  });

  it('refunds the order once when two transfer syncs and reconciliation learn the failure at the same moment', async () => {
    const r = await transferIn('race-failed.com');
    fake.outcomes.set('race-failed.com', {
      completed: false,
      failed: true,
      reason: 'the losing registrar rejected the transfer',
    });
    b.clock.advance(AFTER_LEASE_MS);
    const domain = (await domainOf('race-failed.com'))!;
    fake.hold = true;
    const events = await countEvents('race-failed.com', () =>
      Promise.all([
        processes[0]!.orders.reconcile({ owner: 'reconciler-c' }),
        processes[0]!.syncer.transferSync(domain),
        processes[1]!.syncer.transferSync(domain),
        fake.releaseWhenHeld(3),
      ]),
    );
    expect(events).toEqual({ 'order.refunded': 1, 'domain.status_changed (order)': 1 });
    const order = await orderOf('race-failed.com');
    expect(order).toMatchObject({
      status: 'failed',
      note: expect.stringMatching(/the transfer failed: the losing registrar rejected the transfer$/),
    });
    expect(await refundsOf(order.id)).toBe(1);
    expect(await domainOf('race-failed.com')).toMatchObject({ status: 'Cancelled' });
    expect(await b.balance(r)).toBe(10_000);
  });

  it('refunds once when only transfer syncs race: one takes the lease, the others leave the order to it', async () => {
    const r = await transferIn('syncs-failed.com');
    fake.outcomes.set('syncs-failed.com', { completed: false, failed: true, reason: 'rejected' });
    b.clock.advance(AFTER_LEASE_MS);
    const domain = (await domainOf('syncs-failed.com'))!;
    fake.hold = true;
    const events = await countEvents('syncs-failed.com', () =>
      Promise.all([
        processes[0]!.syncer.transferSync(domain),
        processes[1]!.syncer.transferSync(domain),
        processes[1]!.syncer.transferSync(domain),
        fake.releaseWhenHeld(3),
      ]),
    );
    expect(events).toEqual({ 'order.refunded': 1, 'domain.status_changed (order)': 1 });
    const order = await orderOf('syncs-failed.com');
    expect(order).toMatchObject({ status: 'failed', note: 'transfer sync: the transfer failed: rejected' });
    expect(await refundsOf(order.id)).toBe(1);
    expect(await b.balance(r)).toBe(10_000);
  });

  it('keeps the row a failed transfer took over as Cancelled for the reseller who ordered it (issue 13 item 3)', async () => {
    const previous = await b.newReseller(0);
    const now = b.clock.now();
    await b.uow.run((repos) =>
      repos.domains.insert({
        id: ulid(),
        name: 'came-back.com',
        unicodeName: 'came-back.com',
        tld: '.com',
        resellerId: previous.id,
        registrar: 'fake',
        status: 'Transferred Away',
        expiryDate: '2026-05-01',
        createdAt: now,
      }),
    );
    const r = await transferIn('came-back.com');
    fake.outcomes.set('came-back.com', { completed: false, failed: true, reason: 'rejected' });
    b.clock.advance(AFTER_LEASE_MS);
    const domain = (await domainOf('came-back.com'))!;
    const events = await countEvents('came-back.com', () => processes[0]!.syncer.transferSync(domain));
    expect(events).toEqual({ 'order.refunded': 1, 'domain.status_changed (order)': 1 });
    expect(await domainOf('came-back.com')).toMatchObject({ status: 'Cancelled', resellerId: r.id, expiryDate: null });
    expect(await b.balance(r)).toBe(10_000);
  });

  it('leaves a transfer still in progress pending, money reserved', async () => {
    const r = await transferIn('still-moving.com');
    fake.outcomes.set('still-moving.com', { completed: false, failed: false });
    b.clock.advance(AFTER_LEASE_MS);
    const view = await processes[0]!.syncer.transferSync((await domainOf('still-moving.com'))!);
    expect(view).toMatchObject({ completed: false, failed: false });
    expect(await orderOf('still-moving.com')).toMatchObject({ status: 'pending' });
    expect(await domainOf('still-moving.com')).toMatchObject({ status: 'Pending Transfer' });
    expect(await b.balance(r)).toBe(10_000 - 900);
    // Settled by reconciliation later, so the ledger invariant sees no order left open.
    fake.outcomes.set('still-moving.com', { completed: true, failed: false, expiryDate: '2027-11-21' });
    expect(
      (await b.orders.reconcile()).orders.filter((o) => o.domain === 'still-moving.com').map((o) => o.result),
    ).toEqual(['completed']);
  });
});
