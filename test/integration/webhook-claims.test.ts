import { ulid } from 'ulid';
import { TOKENS } from '../../src/core/tokens';
import type { StoredEndpoint, WebhookDelivery } from '../../src/core/webhooks/webhook';
import { startHarness, type Harness } from '../support/harness';
import { TEST_ENGINE } from '../support/test-database';

const AT = new Date('2026-11-01T00:00:00Z');
const later = (ms: number) => new Date(AT.getTime() + ms);

function endpoint(status: StoredEndpoint['status'] = 'enabled'): StoredEndpoint {
  return {
    id: `whe_${ulid()}`,
    resellerId: null,
    url: 'https://hooks.example.com/in',
    eventTypes: null,
    status,
    disabledReason: status === 'disabled' ? 'answered 410' : null,
    failingSince: null,
    createdAt: AT,
    sealedSecret: 'sealed',
    previousSealedSecret: null,
    previousSecretUntil: null,
  };
}

function delivery(endpointId: string, n: number): WebhookDelivery {
  return {
    id: ulid(),
    eventId: `evt_${ulid()}`,
    endpointId,
    eventType: 'order.completed',
    status: 'pending',
    attempts: 0,
    nextAttemptAt: later(n),
    lastStatus: null,
    lastError: null,
    lastAttemptAt: null,
    deliveredAt: null,
    createdAt: later(n),
  };
}

// Row locks decide what another process can claim: MariaDB only (SQLite runs one writer at a time).
(TEST_ENGINE === 'mariadb' ? describe : describe.skip)('claiming webhook deliveries from a backlog (mariadb)', () => {
  let h: Harness;
  const enabled = [endpoint(), endpoint()];
  const disabled = endpoint('disabled');

  beforeAll(async () => {
    h = await startHarness();
    const uow = h.module.container.get(TOKENS.unitOfWork);
    await uow.run(async ({ webhooks }) => {
      for (const e of [...enabled, disabled]) await webhooks.insertEndpoint(e);
      // The disabled endpoint's deliveries come first in the queue: a claim must pass over them.
      await webhooks.insertDeliveries(Array.from({ length: 50 }, (_, i) => delivery(disabled.id, i)));
      await webhooks.insertDeliveries(Array.from({ length: 1000 }, (_, i) => delivery(enabled[i % 2]!.id, 100 + i)));
    });
    await h.module.knex.raw('analyze table webhook_deliveries');
  });
  afterAll(() => h.close());

  it('leaves the rest of the backlog to another process while a claim is still committing', async () => {
    const uow = h.module.container.get(TOKENS.unitOfWork);
    const claim = (token: string) => ({
      now: later(10_000),
      leaseUntil: later(70_000),
      token,
      limit: 10,
      excludeEndpoints: [],
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let first: string[] = [];
    let claimedFirst!: () => void;
    const firstClaimed = new Promise<void>((resolve) => {
      claimedFirst = resolve;
    });
    // The first claim's transaction stays open (its rows locked) while the second claims.
    const slow = uow.run(async ({ webhooks }) => {
      first = await webhooks.claimDue(claim('first'));
      claimedFirst();
      await held;
    });
    await firstClaimed;
    const second = await uow.run(({ webhooks }) => webhooks.claimDue(claim('second')));
    release();
    await slow;

    expect(first).toHaveLength(10);
    expect(second).toHaveLength(10);
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    // Oldest first, and none of the disabled endpoint's.
    const rows = await h.module
      .knex('webhook_deliveries')
      .whereIn('id', [...first, ...second])
      .select('endpoint_id', 'next_attempt_at');
    expect(rows.map((r: { endpoint_id: string }) => r.endpoint_id)).not.toContain(disabled.id);
    expect(Math.max(...rows.map((r: { next_attempt_at: number | string }) => Number(r.next_attempt_at)))).toBe(
      later(119).getTime(),
    );
  });

  it('claims for no endpoint it was told to leave out, and nothing when every enabled endpoint is left out', async () => {
    const uow = h.module.container.get(TOKENS.unitOfWork);
    const claim = (token: string, excludeEndpoints: string[]) =>
      uow.run(({ webhooks }) =>
        webhooks.claimDue({ now: later(10_000), leaseUntil: later(70_000), token, limit: 5, excludeEndpoints }),
      );
    const some = await claim('only-second', [enabled[0]!.id]);
    const rows = await h.module.knex('webhook_deliveries').whereIn('id', some).distinct('endpoint_id');
    expect(some).toHaveLength(5);
    expect(rows).toEqual([{ endpoint_id: enabled[1]!.id }]);
    expect(
      await claim(
        'none',
        enabled.map((e) => e.id),
      ),
    ).toEqual([]);
  });
});
