import { registration, startOrderBench, type OrderBench } from '../support/order-bench';
import { TEST_ENGINE } from '../support/test-database';

/**
 * An Idempotency-Key is an opaque client string (docs/api.md): keys that differ only by case are two
 * keys on every engine, MariaDB's case-insensitive collation notwithstanding.
 */
describe(`Idempotency-Keys that differ only by case (${TEST_ENGINE})`, () => {
  let b: OrderBench;
  beforeAll(async () => {
    b = await startOrderBench();
  });
  afterAll(async () => {
    await b.close();
  });

  it('are two keys: each places its own order, and each replays its own answer', async () => {
    const r = await b.newReseller(10_000);
    const upper = await b.orders.register(r, registration('casekeyone.com'), { idempotencyKey: 'Order-7' });
    // Another order under the lower-case key: neither a replay of the first nor a 422.
    const lower = await b.orders.register(r, registration('casekeytwo.com'), { idempotencyKey: 'order-7' });
    expect(lower.orderId).not.toBe(upper.orderId);
    expect(await b.balance(r)).toBe(10_000 - 2 * 1_000);

    await expect(b.orders.register(r, registration('casekeyone.com'), { idempotencyKey: 'Order-7' })).resolves.toEqual(
      upper,
    );
    await expect(b.orders.register(r, registration('casekeytwo.com'), { idempotencyKey: 'order-7' })).resolves.toEqual(
      lower,
    );
    expect(await b.balance(r)).toBe(10_000 - 2 * 1_000);
  });
});
