import type { MemoryUnitOfWork } from '../../../../src/infra/repositories/memory/memory-unit-of-work';
import { type OrderCore, refusal, registration, startMemoryOrderBench } from '../../../support/order-bench';

/**
 * Idempotent replay (src/core/order/order-placement.ts, docs/orders.md): a retry with the same
 * Idempotency-Key and body gets the first answer, on the memory twin of the unit of work.
 * Concurrent requests with one key stay in test/integration/order-money-flow.test.ts, where the
 * database's key decides between them.
 */
describe('an order placed with an Idempotency-Key', () => {
  let b: OrderCore<MemoryUnitOfWork>;
  beforeEach(async () => {
    b = await startMemoryOrderBench();
  });
  afterEach(async () => {
    await b.close();
  });

  const ordersFor = (name: string) => b.orders.list({ domain: name });

  it('replays the first answer to a retry with the same key and body: one charge, one registrar call', async () => {
    const r = await b.newReseller(10_000);
    const order = registration('idem.com');
    const first = await b.orders.register(r, order, { idempotencyKey: 'k-1' });
    expect(first).toEqual({ orderId: expect.any(String), status: 'completed' });
    await expect(b.orders.register(r, order, { idempotencyKey: 'k-1' })).resolves.toEqual(first);
    expect(b.fake.callsFor('idem.com')).toBe(1);
    expect(await b.balance(r)).toBe(9_000);
    expect(await ordersFor('idem.com')).toHaveLength(1);
  });
  it('replays a refusal with the same error and no second registrar call', async () => {
    const r = await b.newReseller(10_000);
    b.fake.script('idemrefused.com', 'refuse');
    const first = await refusal(b.orders.register(r, registration('idemrefused.com'), { idempotencyKey: 'k-2' }));
    const again = await refusal(b.orders.register(r, registration('idemrefused.com'), { idempotencyKey: 'k-2' }));
    expect(again).toMatchObject({ code: first.code, message: first.message });
    expect(b.fake.callsFor('idemrefused.com')).toBe(1);
  });
  it('answers 422 for the same key with another body, and scopes keys per reseller', async () => {
    const r = await b.newReseller(10_000);
    const other = await b.newReseller(10_000);
    await b.orders.register(r, registration('idemone.com'), { idempotencyKey: 'shared' });
    expect((await refusal(b.orders.register(r, registration('idemtwo.com'), { idempotencyKey: 'shared' }))).code).toBe(
      'idempotency_mismatch',
    );
    expect(
      (await refusal(b.orders.renew(r, { domain: 'idemone.com', period: 1, addons: {} }, { idempotencyKey: 'shared' })))
        .code,
    ).toBe('idempotency_mismatch');
    await expect(
      b.orders.register(other, registration('idemtwo.com'), { idempotencyKey: 'shared' }),
    ).resolves.toMatchObject({ status: 'completed' });
  });
  it('answers 409 while the first request with the key is in flight', async () => {
    const r = await b.newReseller(10_000);
    b.fake.script('inflight.com', 'timeout');
    const first = b.orders.register(r, registration('inflight.com'), { idempotencyKey: 'k-3' });
    while (b.fake.callsFor('inflight.com') === 0) await new Promise((resolve) => setImmediate(resolve));
    const second = await refusal(b.orders.register(r, registration('inflight.com'), { idempotencyKey: 'k-3' }));
    expect(second).toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/Idempotency-Key is still in progress/),
    });
    const placed = await first;
    await expect(b.orders.register(r, registration('inflight.com'), { idempotencyKey: 'k-3' })).resolves.toEqual(
      placed,
    );
    expect(b.fake.callsFor('inflight.com')).toBe(1);
  });
  it('keeps a key for its lifetime (24 h), then treats it as new', async () => {
    const r = await b.newReseller(10_000);
    await b.orders.register(r, registration('keyttl.com'), { idempotencyKey: 'k-ttl' });
    b.clock.advance(24 * 3_600_000 - 1);
    await b.orders.register(r, registration('keyttl.com'), { idempotencyKey: 'k-ttl' });
    expect(b.fake.callsFor('keyttl.com')).toBe(1);
    b.clock.advance(2);
    expect(
      (await refusal(b.orders.register(r, registration('keyttl.com'), { idempotencyKey: 'k-ttl' }))).message,
    ).toMatch(/already in your account/);
  });
  it('refuses a malformed key with 400', async () => {
    const r = await b.newReseller(10_000);
    expect(
      (await refusal(b.orders.register(r, registration('badkey.com'), { idempotencyKey: 'has space' }))).code,
    ).toBe('validation_failed');
  });
});
