import type { OrderRegistrar } from '../../src/core/order/order-registrar';
import { deferred } from '../support/fakes';
import { AFTER_LEASE_MS, registration, SETTINGS, startOrderBench, type OrderBench } from '../support/order-bench';

/**
 * Issue 26 items 4 and 5: `order settle` waits for the request's registrar call like
 * reconciliation does, and refuses completion dates that contradict the order.
 */
describe('the operator settling an order by hand', () => {
  let b: OrderBench;
  beforeAll(async () => {
    b = await startOrderBench();
  });
  afterAll(async () => {
    await b.close();
  });

  const orderFor = async (name: string) => (await b.orders.list({ domain: name }))[0]!;
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 5));
  };

  describe("while the request's registrar call may still be running", () => {
    it('refuses to refund, naming the time left, and the registration the registrar then reports stands', async () => {
      const r = await b.newReseller(10_000);
      const gate = deferred();
      // The request path's registrar call is held until the test lets it answer.
      const held: OrderRegistrar = Object.create(b.registrar, {
        register: {
          value: async (...args: Parameters<OrderRegistrar['register']>) => {
            await gate.promise;
            return b.registrar.register(...args);
          },
        },
      });
      const placing = b.ordersWith(b.uow, held).register(r, registration('inflight.com'));
      await until(async () => (await b.orders.list({ domain: 'inflight.com' })).length > 0);
      const order = await orderFor('inflight.com');
      expect(order.status).toBe('pending');

      const refused = b.orders.settleByOperator(order.id, { outcome: 'refund', note: 'looks stuck' });
      const leaseSeconds = Math.ceil((SETTINGS.registrarTimeoutMs + SETTINGS.reconcileAfterMs) / 1000);
      await expect(refused).rejects.toMatchObject({
        code: 'conflict',
        message: expect.stringMatching(
          new RegExp(
            `^Order ${order.id}: the request that placed it may still be waiting for the registrar ` +
              `\\(its lease runs until .*, ${leaseSeconds} s from now\\); settle it after that; nothing was changed$`,
          ),
        ),
      });
      await expect(
        b.orders.settleByOperator(order.id, { outcome: 'complete', note: 'looks done' }),
      ).rejects.toMatchObject({ code: 'conflict' });
      expect(await orderFor('inflight.com')).toMatchObject({ status: 'pending' });

      gate.resolve();
      await expect(placing).resolves.toMatchObject({ orderId: expect.any(String) });
      expect(await orderFor('inflight.com')).toMatchObject({ status: 'completed' });
      expect(await b.uow.read.domains.findByName('inflight.com')).toMatchObject({ status: 'Active' });
      expect(await b.balance(r)).toBe(10_000 - 1000);
    });

    it('settles once the lease has run out, as reconciliation would', async () => {
      const r = await b.newReseller(10_000);
      b.fake.script('leased.com', 'timeout');
      await b.orders.register(r, registration('leased.com'));
      const order = await orderFor('leased.com');
      b.clock.advance(SETTINGS.registrarTimeoutMs);
      await expect(b.orders.settleByOperator(order.id, { outcome: 'refund', note: 'too early' })).rejects.toMatchObject(
        { code: 'conflict', message: expect.stringMatching(/60 s from now/) },
      );
      b.clock.advance(AFTER_LEASE_MS - SETTINGS.registrarTimeoutMs);
      await expect(
        b.orders.settleByOperator(order.id, { outcome: 'refund', note: 'never arrived' }),
      ).resolves.toMatchObject({ status: 'failed' });
      expect(await b.balance(r)).toBe(10_000);
    });
  });

  describe('--complete --expiry', () => {
    const pendingAfterLease = async (name: string, place: () => Promise<unknown>) => {
      b.fake.script(name, 'timeout');
      await place();
      b.clock.advance(AFTER_LEASE_MS);
      return orderFor(name);
    };

    it('refuses an expiry in the past for a transfer or a registration, and changes nothing', async () => {
      const r = await b.newReseller(10_000);
      const transfer = await pendingAfterLease('moved-in.com', () =>
        b.orders.transfer(r, { ...registration('moved-in.com'), eppCode: 'code' }),
      );
      await expect(
        b.orders.settleByOperator(transfer.id, { outcome: 'complete', note: 'done', expiryDate: '1970-01-01' }),
      ).rejects.toMatchObject({
        code: 'validation_failed',
        message: `the expiry date 1970-01-01 is in the past (today is ${b.clock.now().toISOString().slice(0, 10)}); a completed transfer expires in the future; nothing was changed`,
      });
      const registered = await pendingAfterLease('yesterday.com', () =>
        b.orders.register(r, registration('yesterday.com')),
      );
      const yesterday = new Date(b.clock.now().getTime() - 86_400_000).toISOString().slice(0, 10);
      await expect(
        b.orders.settleByOperator(registered.id, { outcome: 'complete', note: 'done', expiryDate: yesterday }),
      ).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/is in the past/) });
      expect(await orderFor('moved-in.com')).toMatchObject({ status: 'pending' });
      expect(await b.uow.read.domains.findByName('moved-in.com')).toMatchObject({
        status: 'Pending Transfer',
        expiryDate: null,
      });
      expect(await b.balance(r)).toBe(10_000 - 900 - 1000);
    });

    it('refuses a renewal expiry that is not after the previous one, and accepts one that is', async () => {
      const r = await b.newReseller(10_000);
      await b.orders.register(r, registration('renewed.com'));
      const previous = (await b.uow.read.domains.findByName('renewed.com'))!.expiryDate!;
      expect(previous).toBe('2027-11-21');
      const renewal = await pendingAfterLease('renewed.com', () =>
        b.orders.renew(r, { domain: 'renewed.com', period: 1, addons: {} }),
      );
      for (const expiryDate of ['2000-01-01', previous]) {
        await expect(
          b.orders.settleByOperator(renewal.id, { outcome: 'complete', note: 'renewed', expiryDate }),
        ).rejects.toMatchObject({
          code: 'validation_failed',
          message: `the expiry date ${expiryDate} is not after the domain's expiry before the renewal (${previous}); a renewal moves it later; nothing was changed`,
        });
      }
      expect(await b.uow.read.domains.findByName('renewed.com')).toMatchObject({ expiryDate: previous });
      await expect(
        b.orders.settleByOperator(renewal.id, { outcome: 'complete', note: 'renewed', expiryDate: '2028-11-21' }),
      ).resolves.toMatchObject({ status: 'completed', expiryDate: '2028-11-21' });
      expect(await b.uow.read.domains.findByName('renewed.com')).toMatchObject({
        status: 'Active',
        expiryDate: '2028-11-21',
      });
    });
  });
});
