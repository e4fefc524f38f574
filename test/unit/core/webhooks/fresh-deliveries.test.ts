import { fixedClock } from '../../../../src/core/common/clock';
import { InProcessEventBus } from '../../../../src/core/common/events';
import { CreditService } from '../../../../src/core/credit/credit-service';
import { OutboxDispatcher } from '../../../../src/core/events/event-dispatcher';
import { ResellerService } from '../../../../src/core/reseller/reseller-service';
import { WebhookDeliveryWorker, type WebhookSender } from '../../../../src/core/webhooks/delivery-worker';
import type { AttemptAnswer } from '../../../../src/core/webhooks/retry-schedule';
import { WebhookService } from '../../../../src/core/webhooks/webhook-service';
import { AesSecretBox } from '../../../../src/infra/crypto/aes-secret-box';
import { createLogger } from '../../../../src/infra/logging';
import { MemoryUnitOfWork } from '../../../../src/infra/repositories/memory/memory-unit-of-work';

/** A receiver that answers each request only when the test says so. */
class HeldReceiver implements WebhookSender {
  readonly arrived: Array<{ readonly path: string; readonly eventId: string; answer(status: number): void }> = [];

  send(request: { readonly url: string; readonly headers: Readonly<Record<string, string>> }): Promise<AttemptAnswer> {
    return new Promise((resolve) =>
      this.arrived.push({
        path: new URL(request.url).pathname,
        eventId: request.headers['webhook-id']!,
        answer: (status) => resolve({ kind: 'response', status }),
      }),
    );
  }

  at(path: string) {
    return this.arrived.filter((r) => r.path === path);
  }
}

async function until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * The dispatch hands the deliveries it creates to this process's worker (src/core/events/
 * event-dispatcher.ts, FreshDeliveries) only while no delivery waits in its row: otherwise a new
 * event's delivery would be sent before an older one that waits for a claim round. On the memory
 * twin of the unit of work, with every answer held until the test gives it, so that the worker's
 * state at each dispatch is known; the hand-off through the real SQL is in
 * test/integration/webhooks.test.ts.
 */
describe('fresh webhook deliveries handed to the worker', () => {
  const logger = createLogger('silent');
  const clock = fixedClock('2026-11-27T10:00:00Z');
  const secrets = new AesSecretBox(Buffer.alloc(32, 7));
  let dispatcher: OutboxDispatcher;
  let worker: WebhookDeliveryWorker;
  let receiver: HeldReceiver;
  let credit: CreditService;
  let resellerId: string;
  let webhooks: WebhookService;
  const events: string[] = [];

  beforeEach(async () => {
    const bus = new InProcessEventBus(logger);
    const uow = new MemoryUnitOfWork((committed) => dispatcher.committed(committed));
    dispatcher = new OutboxDispatcher(uow, bus, clock, logger, {
      recoverAfterMs: 60_000,
      batchSize: 100,
      retentionMs: 0,
    });
    receiver = new HeldReceiver();
    // Eight slots: each endpoint gets two in flight and two more claimed waiting for them. No poll
    // during the test: claim rounds start only when the worker is woken or has room.
    worker = new WebhookDeliveryWorker(uow, receiver, secrets, clock, logger, {
      concurrency: 8,
      timeoutMs: 10_000,
      pollMs: 3_600_000,
    });
    dispatcher.handOffTo(worker);
    worker.start();
    const resellers = new ResellerService(uow, secrets, clock);
    await resellers.createGroup('default');
    resellerId = (await resellers.create('reseller@example.com', 'default', 0)).reseller.id;
    credit = new CreditService(uow, clock);
    webhooks = new WebhookService(uow, secrets, clock, { allowInsecureTargets: true });
    events.length = 0;
    bus.on('credit.changed', (_data, event) => {
      events.push(event.id);
    });
  });
  afterEach(async () => {
    for (const r of receiver.arrived) r.answer(204);
    await dispatcher.drain();
    await worker.stop();
  });

  /** One event (a credit change), dispatched. */
  const event = async () => {
    await credit.adjust(resellerId, 100, null);
    await dispatcher.drain();
  };
  /** The order in which `path` first received each event. */
  const firstArrivals = (path: string) => [...new Set(receiver.at(path).map((r) => r.eventId))];

  it('sends no new event before an older one that waits in its row, to either endpoint', async () => {
    for (const path of ['/a', '/b']) await webhooks.add('operator', `http://127.0.0.1${path}`, ['credit.changed']);
    // Both endpoints answer once: the worker may now be handed their deliveries.
    await event();
    await until(() => receiver.arrived.length === 2, 'the first deliveries');
    for (const r of receiver.arrived) r.answer(204);
    await until(
      async () => (await webhooks.deliveries({ status: 'delivered' })).length === 2,
      'the first deliveries recorded',
    );
    // Four events fill each endpoint's room (two in flight, two waiting for a slot), unanswered.
    for (let i = 0; i < 4; i++) await event();
    await until(() => receiver.arrived.length === 6, 'two attempts in flight per endpoint');
    // The fifth finds no room: its deliveries wait in their rows for a claim round.
    await event();
    // One answer from /a: a slot there, and room for one more delivery to it.
    receiver.at('/a')[1]!.answer(204);
    await until(() => receiver.at('/a').length === 4, "/a's next waiting delivery sent");
    // The sixth event comes while the fifth still waits for /a in its row.
    await event();
    // Every answer from here on, until every event reached both endpoints.
    await until(() => {
      for (const r of receiver.arrived) r.answer(204);
      const done = firstArrivals('/a').length === events.length && firstArrivals('/b').length === events.length;
      // What a poll would do: a delivery left in its row is claimed by the next round.
      if (!done) worker.wake();
      return done;
    }, 'every event delivered');
    expect(firstArrivals('/a')).toEqual(events);
    expect(firstArrivals('/b')).toEqual(events);
  });

  it('sends no new event before an older one that a claim round took beyond its endpoint’s room and gave back', async () => {
    await webhooks.add('operator', 'http://127.0.0.1/a', ['credit.changed']);
    await event();
    await until(() => receiver.arrived.length === 1, 'the first delivery');
    receiver.arrived[0]!.answer(204);
    await until(
      async () => (await webhooks.deliveries({ status: 'delivered' })).length === 1,
      'the first delivery recorded',
    );
    // Five events while the worker is stopped: their deliveries wait in their rows.
    await worker.stop();
    for (let i = 0; i < 5; i++) await event();
    // Started again, its round takes all five (fewer than it could) and gives back the one beyond
    // the endpoint's room (two in flight, two waiting for a slot).
    worker.start();
    await until(() => receiver.arrived.length === 3, 'two attempts in flight');
    // One answer: room for one more delivery to /a, not yet worth another claim round.
    receiver.arrived[1]!.answer(204);
    await until(() => receiver.arrived.length === 4, 'the next waiting delivery sent');
    // A new event while the one given back still waits in its row.
    await event();
    await until(() => {
      for (const r of receiver.arrived) r.answer(204);
      const done = firstArrivals('/a').length === events.length;
      if (!done) worker.wake();
      return done;
    }, 'every event delivered');
    expect(firstArrivals('/a')).toEqual(events);
  });
});
