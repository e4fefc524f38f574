import type { AnyPlatformEvent, EventName } from '../../src/core/common/events';
import { toPlatformEvent } from '../../src/core/events/outbox';
import { TOKENS } from '../../src/core/tokens';
import { createResellerModule } from '../../src/module';
import { startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';
import { registerForm } from '../support/wire';

/** ADR 15 on the engine under test: events written in the causing transaction, fed to subscribers after commit, at least once. */
describe('the event outbox', () => {
  let h: Harness;
  let resellerId: string;
  beforeAll(async () => {
    h = await startHarness({ settings: { eventsRecoverAfterMs: 5_000 } });
    resellerId = (await h.module.services.resellers.byEmail('reseller@example.com')).id;
  });
  afterAll(async () => {
    await h.close();
  });

  const dispatcher = () => h.module.container.get(TOKENS.outboxDispatcher);
  const uow = () => h.module.container.get(TOKENS.unitOfWork);
  const rows = (where: Record<string, unknown> = {}) => h.module.knex('outbox_events').where(where).select();

  /** Every event of `types` published while `during` runs, dispatch included. */
  async function heard(types: readonly EventName[], during: () => Promise<unknown>): Promise<AnyPlatformEvent[]> {
    const seen: AnyPlatformEvent[] = [];
    const off = types.map((type) => h.module.on(type, (_data, event) => void seen.push(event as AnyPlatformEvent)));
    try {
      await during();
      await dispatcher().drain();
    } finally {
      for (const unsubscribe of off) unsubscribe();
    }
    return seen;
  }

  it('writes the event with the change that causes it and hands it to subscribers once committed, with a stable id', async () => {
    let payload: unknown;
    const off = h.module.on('credit.changed', (data) => {
      payload = data;
    });
    const events = await heard(['credit.changed'], () => h.module.services.credit.adjust(resellerId, 500, 'wire'));
    off();
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({
      type: 'credit.changed',
      version: 1,
      resellerId,
      timestamp: new Date(h.clock.now()).toISOString(),
      data: { resellerId, amount: 500, kind: 'top_up', balance: 10_500 },
    });
    expect(payload).toEqual(event!.data);
    expect(event!.id).toMatch(/^evt_[0-9A-Z]{26}$/);
    const [row] = await rows({ id: event!.id });
    expect(row).toMatchObject({ type: 'credit.changed', reseller_id: resellerId });
    expect(row.dispatched_at).not.toBeNull();
  });

  it('writes nothing and tells no one when the transaction rolls back', async () => {
    const before = (await rows()).length;
    const events = await heard(['credit.changed'], () =>
      uow()
        .run(async ({ outbox }) => {
          outbox.push({
            name: 'credit.changed',
            event: { resellerId, entryId: 'x', amount: 1, kind: 'top_up', orderId: null, balance: 1, at: new Date() },
          });
          throw new Error('changed my mind');
        })
        .catch(() => undefined),
    );
    expect(events).toEqual([]);
    expect(await rows()).toHaveLength(before);
  });

  it('dispatches an event its process never dispatched (it died after the commit) once, to subscribers too, with its own id', async () => {
    const orphan = toPlatformEvent({
      name: 'domain.lock.changed',
      event: { domainId: 'd-orphan', domain: 'orphan.com', resellerId, isLocked: true, at: h.clock.now() },
    });
    // Committed by a process that was killed before it dispatched: in the table, undispatched.
    await h.module.knex.transaction((trx) =>
      trx('outbox_events').insert({
        id: orphan.id,
        type: orphan.type,
        version: 1,
        reseller_id: resellerId,
        occurred_at: Date.parse(orphan.timestamp),
        payload: JSON.stringify(orphan.data),
      }),
    );
    // Not yet: its own process may still be dispatching it.
    expect(await heard(['domain.lock.changed'], () => dispatcher().recover())).toEqual([]);
    h.clock.advance(5_001);
    const events = await heard(['domain.lock.changed'], () => dispatcher().recover());
    expect(events).toEqual([orphan]);
    expect((await rows({ id: orphan.id }))[0].dispatched_at).not.toBeNull();
    expect(await heard(['domain.lock.changed'], () => dispatcher().recover())).toEqual([]);
  });

  it('publishes domain.registered beside order.completed in the same transaction', async () => {
    const res = await h.http
      .post('/order/domains/register')
      .set(h.headers())
      .type('form')
      .send(registerForm('outboxed.com'));
    expect(res.status).toBe(200);
    await dispatcher().drain();
    const types = (await rows()).filter((r) => r.payload.includes('outboxed.com')).map((r) => r.type);
    expect(types).toEqual(
      expect.arrayContaining(['order.placed', 'order.completed', 'domain.registered', 'domain.status_changed']),
    );
  });

  it('publishes credit.low once per fall below the threshold, again only after the balance rose to it', async () => {
    const { resellers, credit } = h.module.services;
    const balance = await credit.balance(resellerId);
    await resellers.setLowCreditThreshold(resellerId, balance - 1000);
    const low = (amount: number) => heard(['credit.low'], () => credit.adjust(resellerId, amount, null));
    const falls = await low(-1500);
    expect(falls.map((e) => e.data)).toEqual([{ resellerId, balance: balance - 1500, threshold: balance - 1000 }]);
    expect(await low(-100)).toEqual([]);
    expect(await low(+1600)).toEqual([]);
    expect(await low(-1500)).toHaveLength(1);
    await resellers.setLowCreditThreshold(resellerId, null);
    expect(await low(-100)).toEqual([]);
  });

  it('publishes credit.low from the balance when dispatched, not from a fall dispatched late (after a rise), so the next fall still counts', async () => {
    const { resellers, credit } = h.module.services;
    const balance = await credit.balance(resellerId);
    const threshold = balance - 1000;
    await resellers.setLowCreditThreshold(resellerId, threshold);
    // A fall below the threshold that another process committed and died before dispatching; a
    // top-up back above it followed and was dispatched first (its own process lived).
    const stale = toPlatformEvent({
      name: 'credit.changed',
      event: {
        resellerId,
        entryId: 'e-stale',
        amount: -1500,
        kind: 'adjustment',
        orderId: null,
        balance: balance - 1500,
        at: h.clock.now(),
      },
    });
    await h.module.knex('outbox_events').insert({
      id: stale.id,
      type: stale.type,
      version: 1,
      reseller_id: resellerId,
      occurred_at: Date.parse(stale.timestamp),
      payload: JSON.stringify(stale.data),
    });
    h.clock.advance(5_001);
    expect(await heard(['credit.low'], () => dispatcher().recover())).toEqual([]);
    const falls = await heard(['credit.low'], () => credit.adjust(resellerId, -1500, null));
    expect(falls.map((e) => e.data)).toEqual([{ resellerId, balance: balance - 1500, threshold }]);
    await credit.adjust(resellerId, 1500, null);
    await resellers.setLowCreditThreshold(resellerId, null);
  });

  it('routes to endpoints and thresholds another process changed since this one last dispatched', async () => {
    const other = await createResellerModule({
      database: h.databaseUrl,
      clock: h.clock,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent', webhookAllowInsecureTargets: true },
    });
    try {
      const { credit } = h.module.services;
      await heard(['credit.changed'], () => credit.adjust(resellerId, 1, null)); // this process's copy is current
      const { endpoint: added } = await other.services.webhooks.add('operator', 'http://127.0.0.1:9/elsewhere', [
        'credit.changed',
      ]);
      const balance = await credit.balance(resellerId);
      await other.services.resellers.setLowCreditThreshold(resellerId, balance - 10);
      h.clock.advance(1);
      const events = await heard(['credit.changed', 'credit.low'], () => credit.adjust(resellerId, -20, null));
      expect(events.map((e) => e.type)).toEqual(['credit.changed', 'credit.low']);
      const deliveries = await h.module
        .knex('webhook_deliveries')
        .where({ endpoint_id: added.id, event_id: events[0]!.id });
      expect(deliveries).toHaveLength(1);
      await other.services.webhooks.remove(added.id);
      await other.services.resellers.setLowCreditThreshold(resellerId, null);
      const after = await heard(['credit.changed'], () => credit.adjust(resellerId, 20, null));
      expect(await h.module.knex('webhook_deliveries').where({ event_id: after[0]!.id })).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('publishes one credit.low for one fall that two processes dispatch at once', async () => {
    const other = await createResellerModule({
      database: h.databaseUrl,
      clock: h.clock,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
    });
    try {
      const { credit, resellers } = h.module.services;
      const balance = await credit.balance(resellerId);
      await resellers.setLowCreditThreshold(resellerId, balance - 100);
      const seen: AnyPlatformEvent[] = [];
      const offs = [h.module, other].map((m) => m.on('credit.low', (_d, e) => void seen.push(e as AnyPlatformEvent)));
      // Two debits below the threshold, one in each process, dispatched concurrently.
      await Promise.all([credit.adjust(resellerId, -150, null), other.services.credit.adjust(resellerId, -10, null)]);
      await Promise.all([dispatcher().drain(), other.container.get(TOKENS.outboxDispatcher).drain()]);
      for (const off of offs) off();
      expect(seen).toHaveLength(1);
      await credit.adjust(resellerId, 160, null);
      await resellers.setLowCreditThreshold(resellerId, null);
    } finally {
      await other.close();
    }
  });

  it('publishes credit.low at once when the threshold is set above the balance', async () => {
    const { resellers, credit } = h.module.services;
    const balance = await credit.balance(resellerId);
    const events = await heard(['credit.low'], () => resellers.setLowCreditThreshold(resellerId, balance + 100));
    expect(events.map((e) => e.data)).toEqual([{ resellerId, balance, threshold: balance + 100 }]);
    await resellers.setLowCreditThreshold(resellerId, null);
  });
});
