import { createHash } from 'node:crypto';
import type { DomainError } from '../../src/core/common/errors';
import type { Repositories, TransactionScope, UnitOfWork } from '../../src/core/common/unit-of-work';
import {
  AFTER_LEASE_MS,
  outcomeFor,
  refusal,
  registration,
  startOrderBench,
  type OrderBench,
} from '../support/order-bench';

describe('the order money flow', () => {
  let b: OrderBench;
  beforeAll(async () => {
    b = await startOrderBench();
  });
  afterAll(async () => {
    await b.close();
  });

  const domainOf = (name: string) => b.uow.read.domains.findByName(name);
  const ordersFor = (name: string) => b.orders.list({ domain: name });

  describe('when the registrar answers', () => {
    it('reserves the price, completes the order and activates the domain with the registrar expiry', async () => {
      const r = await b.newReseller(10_000);
      await expect(b.orders.register(r, registration('alpha.com', { period: 2 }))).resolves.toEqual({
        orderId: expect.any(String),
        status: 'completed',
      });
      expect(await b.balance(r)).toBe(10_000 - 1_950);
      const [order] = await ordersFor('alpha.com');
      expect(order).toMatchObject({
        status: 'completed',
        price: 1_950,
        period: 2,
        action: 'register',
        expiryDate: '2028-11-21',
      });
      expect(await domainOf('alpha.com')).toMatchObject({
        status: 'Active',
        expiryDate: '2028-11-21',
        resellerId: r.id,
        registrar: 'fake',
      });
      expect(b.fake.calls.find((c) => c.domain === 'alpha.com')?.transactionId).toBe(order.id);
    });

    it('refunds the full price when the registrar refuses, answers its error and frees the name', async () => {
      const r = await b.newReseller(5_000);
      b.fake.script('refused.com', 'refuse');
      const error = await refusal(b.orders.register(r, registration('refused.com')));
      expect(error.code).toBe('registrar_failed');
      expect(error.message).toMatch(/refused the registration of refused\.com: registry policy/);
      expect(await b.balance(r)).toBe(5_000);
      expect((await ordersFor('refused.com'))[0]).toMatchObject({ status: 'failed' });
      expect(await domainOf('refused.com')).toBeUndefined();
      // The name is free again: a new order goes through.
      await expect(b.orders.register(r, registration('refused.com'))).resolves.toMatchObject({
        orderId: expect.any(String),
      });
      expect(await b.balance(r)).toBe(4_000);
    });

    it('answers 400 unavailable and refunds when the registry says the name is taken', async () => {
      const r = await b.newReseller(5_000);
      b.fake.script('takenname.com', 'unavailable');
      const error = await refusal(b.orders.register(r, registration('takenname.com')));
      expect(error.code).toBe('unavailable');
      expect(await b.balance(r)).toBe(5_000);
    });

    it('refuses with insufficient credit and writes nothing', async () => {
      const r = await b.newReseller(999);
      const error = await refusal(b.orders.register(r, registration('poor.com')));
      expect(error.code).toBe('insufficient_credit');
      expect(error.message).toMatch(/costs 10\.00 and the balance is 9\.99/);
      expect(await ordersFor('poor.com')).toEqual([]);
      expect(await domainOf('poor.com')).toBeUndefined();
      expect(b.fake.callsFor('poor.com')).toBe(0);
    });

    it('refuses a name with an order in progress (409) and one already active (400)', async () => {
      const r = await b.newReseller(5_000);
      const other = await b.newReseller(5_000);
      b.fake.script('busy.com', 'timeout');
      await b.orders.register(r, registration('busy.com'));
      expect((await refusal(b.orders.register(other, registration('busy.com')))).code).toBe('conflict');
      await b.orders.register(r, registration('done.com'));
      expect((await refusal(b.orders.register(r, registration('done.com')))).message).toMatch(
        /already in your account/,
      );
      expect((await refusal(b.orders.register(other, registration('done.com')))).code).toBe('unavailable');
      expect(await b.balance(other)).toBe(5_000);
    });

    it('registers a name that was cancelled, and puts the old row back if the registry refuses', async () => {
      const first = await b.newReseller(5_000);
      const second = await b.newReseller(5_000);
      await b.orders.register(first, registration('reborn.com'));
      await b.knex('domains').where({ name: 'reborn.com' }).update({ status: 'Cancelled' });
      b.fake.registered.delete('reborn.com');
      b.fake.script('reborn.com', 'refuse');
      await refusal(b.orders.register(second, registration('reborn.com')));
      expect(await domainOf('reborn.com')).toMatchObject({ status: 'Cancelled', resellerId: first.id });
      await b.orders.register(second, registration('reborn.com'));
      expect(await domainOf('reborn.com')).toMatchObject({ status: 'Active', resellerId: second.id });
    });
  });

  describe('when the registrar gives no definite answer', () => {
    it('refunds a lost request once even when two reconcilers run at the same moment', async () => {
      const r = await b.newReseller(5_000);
      b.fake.script('lost.com', 'lost');
      await b.orders.register(r, registration('lost.com'));
      b.clock.advance(AFTER_LEASE_MS);
      const reports = await Promise.all([
        b.orders.reconcile({ owner: 'a' }),
        b.orders.reconcile({ owner: 'b' }),
        b.orders.reconcile({ owner: 'c' }),
      ]);
      expect(reports.flatMap((rep) => outcomeFor(rep, 'lost.com'))).toEqual(['refunded']);
      expect(await b.balance(r)).toBe(5_000);
    });
  });

  describe('renewals', () => {
    it('renews an Active, Expired or Grace domain: the expiry moves by the period and it becomes Active', async () => {
      const r = await b.newReseller(10_000);
      await b.orders.register(r, registration('renew.com'));
      await b.orders.renew(r, { domain: 'renew.com', period: 2, addons: {} });
      expect(await domainOf('renew.com')).toMatchObject({ status: 'Active', expiryDate: '2029-11-21' });
      for (const status of ['Expired', 'Grace']) {
        await b.knex('domains').where({ name: 'renew.com' }).update({ status });
        await b.orders.renew(r, { domain: 'renew.com', period: 1, addons: {} });
        expect(await domainOf('renew.com')).toMatchObject({ status: 'Active' });
      }
      expect((await domainOf('renew.com'))?.expiryDate).toBe('2031-11-21');
      expect(await b.balance(r)).toBe(10_000 - 1_000 - 2_300 - 1_200 - 1_200);
    });

    it('refunds a refused renewal and leaves the expiry alone', async () => {
      const r = await b.newReseller(10_000);
      await b.orders.register(r, registration('norenew.com'));
      b.fake.script('norenew.com', 'refuse');
      expect((await refusal(b.orders.renew(r, { domain: 'norenew.com', period: 1, addons: {} }))).code).toBe(
        'registrar_failed',
      );
      expect(await domainOf('norenew.com')).toMatchObject({ status: 'Active', expiryDate: '2027-11-21' });
      expect(await b.balance(r)).toBe(9_000);
    });
  });

  describe('transfers', () => {
    it('transfers a domain in: Pending Transfer, then Active with the registrar expiry', async () => {
      const r = await b.newReseller(10_000);
      await b.orders.transfer(r, { ...registration('incoming.com'), eppCode: 'EPP-123' });
      expect(await domainOf('incoming.com')).toMatchObject({ status: 'Active', expiryDate: '2027-11-21' });
      expect(await b.balance(r)).toBe(9_100);
      expect(JSON.stringify((await ordersFor('incoming.com'))[0])).not.toMatch(/EPP-123/);
    });

    it('refunds a refused transfer and removes the pending domain', async () => {
      const r = await b.newReseller(10_000);
      b.fake.script('badcode.com', 'refuse');
      expect((await refusal(b.orders.transfer(r, { ...registration('badcode.com'), eppCode: 'wrong' }))).code).toBe(
        'registrar_failed',
      );
      expect(await domainOf('badcode.com')).toBeUndefined();
      expect(await b.balance(r)).toBe(10_000);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays a key stored before fingerprints were keyed (an upgrade within its TTL), and refuses another body with it', async () => {
      const r = await b.newReseller(10_000);
      const order = registration('idemupgrade.com');
      const first = await b.orders.register(r, order, { idempotencyKey: 'k-upgrade' });
      const row = () => b.knex('idempotency_keys').where({ reseller_id: r.id, idem_key: 'k-upgrade' });
      // Stored before: the unsalted SHA-256 of the canonical request (keys sorted, undefined left out).
      const canonical = (v: unknown): unknown =>
        Array.isArray(v)
          ? v.map(canonical)
          : v !== null && typeof v === 'object'
            ? Object.fromEntries(
                Object.entries(v)
                  .filter(([, x]) => x !== undefined)
                  .sort(([a], [c]) => (a < c ? -1 : 1))
                  .map(([k, x]) => [k, canonical(x)]),
              )
            : v;
      const unkeyed = createHash('sha256')
        .update(JSON.stringify(canonical({ action: 'register', command: order })))
        .digest('hex');
      expect((await row().first()).fingerprint).not.toBe(unkeyed);
      await row().update({ fingerprint: unkeyed });
      await expect(b.orders.register(r, order, { idempotencyKey: 'k-upgrade' })).resolves.toEqual(first);
      expect(
        (await refusal(b.orders.register(r, registration('idemupgrade2.com'), { idempotencyKey: 'k-upgrade' }))).code,
      ).toBe('idempotency_mismatch');
      expect(b.fake.callsFor('idemupgrade.com')).toBe(1);
      expect(await b.balance(r)).toBe(9_000);
    });

    it('lets concurrent requests with one key place one order', async () => {
      const r = await b.newReseller(10_000);
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, () =>
          b.orders.register(r, registration('idemrace.com'), { idempotencyKey: 'k-race' }),
        ),
      );
      const refusals = results
        .filter((x): x is PromiseRejectedResult => x.status === 'rejected')
        .map((x) => (x.reason as DomainError).code);
      expect(refusals.every((code) => code === 'conflict')).toBe(true);
      expect(await ordersFor('idemrace.com')).toHaveLength(1);
      expect(b.fake.callsFor('idemrace.com')).toBe(1);
      expect(await b.balance(r)).toBe(9_000);
    });
  });

  describe('when the database fails between phases', () => {
    /** A unit of work whose next transactions fail just before commit, as if the connection died. */
    class DyingUnitOfWork implements UnitOfWork {
      failFrom = Infinity;
      private count = 0;
      constructor(private readonly inner: UnitOfWork) {}
      get read(): Repositories {
        return this.inner.read;
      }
      run<T>(work: (repos: TransactionScope) => Promise<T>): Promise<T> {
        const doomed = this.count++ >= this.failFrom;
        return this.inner.run(async (repos) => {
          const result = await work(repos);
          if (doomed) throw new Error('Connection lost: The server closed the connection.');
          return result;
        });
      }
    }

    it('leaves a registered order pending with its money reserved; reconciliation completes it', async () => {
      const r = await b.newReseller(10_000);
      const dying = new DyingUnitOfWork(b.uow);
      dying.failFrom = 1; // phase 1 commits, phase 3 does not
      await expect(
        b.ordersWith(dying).register(r, registration('crash3.com'), { idempotencyKey: 'k-crash' }),
      ).resolves.toMatchObject({ status: 'pending' });
      expect((await ordersFor('crash3.com'))[0].status).toBe('pending');
      expect(
        (await refusal(b.orders.register(r, registration('crash3.com'), { idempotencyKey: 'k-crash' }))).code,
      ).toBe('conflict');
      b.clock.advance(AFTER_LEASE_MS);
      expect(outcomeFor(await b.orders.reconcile(), 'crash3.com')).toEqual(['completed']);
      expect(await domainOf('crash3.com')).toMatchObject({ status: 'Active' });
      expect(await b.balance(r)).toBe(9_000);
      // The replay answers the first order, with the status reconciliation gave it since.
      await expect(b.orders.register(r, registration('crash3.com'), { idempotencyKey: 'k-crash' })).resolves.toEqual({
        orderId: (await ordersFor('crash3.com'))[0]!.id,
        status: 'completed',
      });
      expect(b.fake.callsFor('crash3.com')).toBe(1);
    });

    it('answers a refusal it could not record; reconciliation refunds it once and the key replays the refusal', async () => {
      const r = await b.newReseller(10_000);
      const dying = new DyingUnitOfWork(b.uow);
      dying.failFrom = 1;
      b.fake.script('crashrefused.com', 'refuse');
      expect(
        (
          await refusal(
            b.ordersWith(dying).register(r, registration('crashrefused.com'), { idempotencyKey: 'k-crash2' }),
          )
        ).code,
      ).toBe('registrar_failed');
      expect(await b.balance(r)).toBe(9_000);
      b.clock.advance(AFTER_LEASE_MS);
      expect(outcomeFor(await b.orders.reconcile(), 'crashrefused.com')).toEqual(['refunded']);
      expect(await b.balance(r)).toBe(10_000);
      expect(
        (await refusal(b.orders.register(r, registration('crashrefused.com'), { idempotencyKey: 'k-crash2' }))).code,
      ).toBe('registrar_failed');
    });

    it('writes nothing when phase 1 itself fails', async () => {
      const r = await b.newReseller(10_000);
      const dying = new DyingUnitOfWork(b.uow);
      dying.failFrom = 0;
      await expect(b.ordersWith(dying).register(r, registration('crash1.com'))).rejects.toThrow(/Connection lost/);
      expect(await ordersFor('crash1.com')).toEqual([]);
      expect(await domainOf('crash1.com')).toBeUndefined();
      expect(await b.balance(r)).toBe(10_000);
      expect(b.fake.callsFor('crash1.com')).toBe(0);
    });
  });

  describe('under concurrency', () => {
    it('lets exactly 9 of 30 concurrent 10.00 orders through on 90.00, never below zero', async () => {
      const r = await b.newReseller(9_000);
      let lowest = Infinity;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const row = await b.knex('credit_accounts').where({ reseller_id: r.id }).first('balance_minor');
          lowest = Math.min(lowest, Number(row.balance_minor));
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) => b.orders.register(r, registration(`rush-${i}.com`))),
      );
      sampling = false;
      await sampler;
      expect(results.filter((x) => x.status === 'fulfilled')).toHaveLength(9);
      const codes = results
        .filter((x): x is PromiseRejectedResult => x.status === 'rejected')
        .map((x) => (x.reason as DomainError).code);
      expect(new Set(codes)).toEqual(new Set(['insufficient_credit']));
      expect(await b.balance(r)).toBe(0);
      expect(lowest).toBeGreaterThanOrEqual(0);
      expect(await b.orders.list({ resellerId: r.id })).toHaveLength(9);
    });

    it('places one order and one charge for 10 concurrent registrations of one name', async () => {
      const r = await b.newReseller(10_000);
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () => b.orders.register(r, registration('contended.com'))),
      );
      expect(results.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
      const codes = results
        .filter((x): x is PromiseRejectedResult => x.status === 'rejected')
        .map((x) => (x.reason as DomainError).code);
      expect(codes.every((c) => c === 'conflict' || c === 'unavailable')).toBe(true);
      expect(await ordersFor('contended.com')).toHaveLength(1);
      expect(b.fake.callsFor('contended.com')).toBe(1);
      expect(await b.balance(r)).toBe(9_000);
    });

    it('places one renewal for 10 concurrent renewals of one domain', async () => {
      const r = await b.newReseller(20_000);
      await b.orders.register(r, registration('renewrace.com'));
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () => b.orders.renew(r, { domain: 'renewrace.com', period: 1, addons: {} })),
      );
      expect(results.filter((x) => x.status === 'fulfilled').length).toBeGreaterThanOrEqual(1);
      // Renewals that ran one after another are all legitimate; overlapping ones are refused.
      const placed = (await ordersFor('renewrace.com')).filter((o) => o.action === 'renew');
      expect(placed).toHaveLength(results.filter((x) => x.status === 'fulfilled').length);
      expect(await b.balance(r)).toBe(20_000 - 1_000 - placed.length * 1_200);
      const expiry = (await domainOf('renewrace.com'))?.expiryDate;
      expect(expiry).toBe(`${2027 + placed.length}-11-21`);
    });
  });
});
