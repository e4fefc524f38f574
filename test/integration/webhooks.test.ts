import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { fixedClock } from '../../src/core/common/clock';
import { TOKENS } from '../../src/core/tokens';
import { RETRY_DELAYS_MS } from '../../src/core/webhooks/retry-schedule';
import { KnexWebhookRepository } from '../../src/infra/repositories/knex-webhook-repository';
import { HttpWebhookSender } from '../../src/infra/webhooks/http-webhook-sender';
import { startHarness, type Harness } from '../support/harness';
import { TEST_ENGINE } from '../support/test-database';

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A receiver on loopback: records every request and answers what `reply` says for its path. */
async function receiver(reply: (path: string) => { status: number; headers?: Record<string, string> } | 'hang') {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body });
      const answer = reply(path);
      if (answer === 'hang') return;
      res.writeHead(answer.status, answer.headers).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return {
    received,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The first truthy answer of `probe`, asked every 20 ms. */
async function eventually<T>(
  probe: () => Promise<T> | T,
  what: string,
  ms = 20_000,
): Promise<Exclude<T, false | undefined | null>> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false && value !== null) return value as Exclude<T, false | undefined | null>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('webhooks', () => {
  let h: Harness;
  let hooks: Awaited<ReturnType<typeof receiver>>;
  const answers = new Map<string, Array<{ status: number; headers?: Record<string, string> } | 'hang'>>();
  let resellerId: string;
  let otherId: string;

  beforeAll(async () => {
    hooks = await receiver((path) => answers.get(path)?.shift() ?? { status: 204 });
    // The verifier checks the timestamp against the real time: the module's clock starts now.
    h = await startHarness({
      clock: fixedClock(new Date()),
      settings: { webhookAllowInsecureTargets: true, webhookTimeoutMs: 500 },
    });
    const { resellers } = h.module.services;
    resellerId = (await resellers.byEmail('reseller@example.com')).id;
    otherId = (await resellers.create('other@example.com', 'default', 5_000)).reseller.id;
    h.module.container.get(TOKENS.webhookDeliveryWorker).start();
    // An endpoint gets the events that occur once it exists, not those of the set-up.
    h.clock.advance(1);
  });
  afterAll(async () => {
    await h.close();
    await hooks.close();
  });

  const webhooks = () => h.module.services.webhooks;
  const topUp = (who: string, amount = 100) => h.module.services.credit.adjust(who, amount, null);
  const deliveriesTo = (endpointId: string) => webhooks().deliveries({ endpointId });
  const at = (path: string) => hooks.received.filter((r) => r.path === path);

  it('signs every delivery so that the Standard Webhooks verifier accepts it, with the event id as webhook-id', async () => {
    const { endpoint, secret } = await webhooks().add({ resellerId }, hooks.url('/signed'));
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const { entry } = await topUp(resellerId);
    const [request] = await eventually(() => at('/signed').length > 0 && at('/signed'), 'the delivery');
    const verified = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>) as {
      id: string;
      type: string;
      data: { entryId: string };
    };
    expect(verified).toMatchObject({ type: 'credit.changed', data: { entryId: entry.id } });
    expect(request!.headers['webhook-id']).toBe(verified.id);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(
        request!.body,
        request!.headers as Record<string, string>,
      ),
    ).toThrow();
    const [delivery] = await eventually(async () => {
      const list = await deliveriesTo(endpoint.id);
      return list[0]?.status === 'delivered' && list;
    }, 'the delivery recorded');
    expect(delivery).toMatchObject({ eventId: verified.id, attempts: 1, lastStatus: 204 });
    await webhooks().remove(endpoint.id);
  });

  it("sends a reseller's endpoint its own events only, the operator's every reseller's, each only the types it asked for", async () => {
    const mine = await webhooks().add({ resellerId }, hooks.url('/mine'), ['credit.changed']);
    const operator = await webhooks().add('operator', hooks.url('/operator'), ['credit.changed']);
    const lowOnly = await webhooks().add({ resellerId }, hooks.url('/low-only'), ['credit.low']);
    await topUp(otherId);
    await topUp(resellerId);
    await eventually(() => at('/operator').length >= 2, 'the operator deliveries');
    await eventually(() => at('/mine').length >= 1, "the reseller's delivery");
    const resellersOf = (path: string) => at(path).map((r) => JSON.parse(r.body).resellerId);
    expect(resellersOf('/operator').sort()).toEqual([resellerId, otherId].sort());
    expect(resellersOf('/mine')).toEqual([resellerId]);
    expect(await deliveriesTo(lowOnly.endpoint.id)).toEqual([]);
    for (const e of [mine, operator, lowOnly]) await webhooks().remove(e.endpoint.id);
  });

  it('retries a failed attempt on the schedule with the same webhook-id, honours Retry-After, and records one delivery', async () => {
    answers.set('/flaky', [{ status: 500 }, { status: 429, headers: { 'retry-after': '120' } }, { status: 200 }]);
    const { endpoint } = await webhooks().add({ resellerId }, hooks.url('/flaky'));
    await topUp(resellerId);
    await eventually(() => at('/flaky').length === 1, 'the first attempt');
    const first = await eventually(async () => {
      const [d] = await deliveriesTo(endpoint.id);
      return d?.attempts === 1 && d;
    }, 'the first failure recorded');
    // Retried 5 s (± 10 %) after the failure, not before.
    const delay = first.nextAttemptAt.getTime() - h.clock.now().getTime();
    expect(delay).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[1]! * 0.9 - 1);
    expect(delay).toBeLessThanOrEqual(RETRY_DELAYS_MS[1]! * 1.1 + 1);
    h.clock.advance(6_000);
    h.module.container.get(TOKENS.webhookDeliveryWorker).wake();
    await eventually(() => at('/flaky').length === 2, 'the second attempt');
    const second = await eventually(async () => {
      const [d] = await deliveriesTo(endpoint.id);
      return d?.attempts === 2 && d;
    }, 'the 429 recorded');
    // The schedule says 5 min, Retry-After 2 min: the later wins; the schedule's 5 min here.
    expect(second.nextAttemptAt.getTime() - h.clock.now().getTime()).toBeGreaterThanOrEqual(270_000);
    h.clock.advance(330_000);
    h.module.container.get(TOKENS.webhookDeliveryWorker).wake();
    await eventually(async () => (await deliveriesTo(endpoint.id))[0]?.status === 'delivered', 'the delivery');
    const ids = new Set(at('/flaky').map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    expect((await deliveriesTo(endpoint.id))[0]).toMatchObject({ attempts: 3, lastStatus: 200 });
    await webhooks().remove(endpoint.id);
  });

  it('waits as long as Retry-After asks when it asks for longer than the schedule', async () => {
    answers.set('/busy', [{ status: 503, headers: { 'retry-after': '3600' } }]);
    const { endpoint } = await webhooks().add({ resellerId }, hooks.url('/busy'));
    await topUp(resellerId);
    const [d] = await eventually(async () => {
      const list = await deliveriesTo(endpoint.id);
      return list[0]?.attempts === 1 && list;
    }, 'the 503 recorded');
    expect(d!.nextAttemptAt.getTime() - h.clock.now().getTime()).toBeGreaterThanOrEqual(3_600_000);
    await webhooks().remove(endpoint.id);
  });

  it('disables an endpoint that answers 410, and replays its dead delivery after it is enabled, with the same webhook-id', async () => {
    answers.set('/gone', [{ status: 410 }]);
    const { endpoint } = await webhooks().add({ resellerId }, hooks.url('/gone'));
    await topUp(resellerId);
    const dead = await eventually(async () => {
      const [d] = await deliveriesTo(endpoint.id);
      return d?.status === 'dead' && d;
    }, 'the dead delivery');
    expect(await webhooks().endpoint(endpoint.id)).toMatchObject({ status: 'disabled' });
    await expect(webhooks().replay(dead.id)).rejects.toThrow(/disabled/);
    await webhooks().enable(endpoint.id);
    await webhooks().replay(dead.id);
    await expect(webhooks().replay(dead.id)).rejects.toThrow(/only a dead delivery/);
    await eventually(async () => (await deliveriesTo(endpoint.id))[0]?.status === 'delivered', 'the replay');
    const ids = at('/gone').map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
    await webhooks().remove(endpoint.id);
  });

  it('signs with the previous secret beside the new one for 24 hours after a rotation', async () => {
    // The verifier checks the timestamp against the real time (earlier tests moved the clock on).
    h.clock.set(new Date());
    const { endpoint, secret: old } = await webhooks().add({ resellerId }, hooks.url('/rotated'));
    const { secret: fresh } = await webhooks().rotateSecret(endpoint.id);
    await topUp(resellerId);
    const [during] = await eventually(() => at('/rotated').length === 1 && at('/rotated'), 'the delivery');
    for (const secret of [old, fresh])
      expect(() => new Webhook(secret).verify(during!.body, during!.headers as Record<string, string>)).not.toThrow();
    h.clock.advance(24 * 3_600_000 + 1);
    await topUp(resellerId);
    const after = await eventually(() => at('/rotated')[1], 'the next delivery');
    const signedAt = new Date(Number(after.headers['webhook-timestamp']) * 1000);
    jest.useFakeTimers({
      now: signedAt,
      doNotFake: ['setTimeout', 'setImmediate', 'nextTick', 'setInterval', 'clearTimeout'],
    });
    try {
      expect(() => new Webhook(fresh).verify(after.body, after.headers as Record<string, string>)).not.toThrow();
      expect(() => new Webhook(old).verify(after.body, after.headers as Record<string, string>)).toThrow();
    } finally {
      jest.useRealTimers();
    }
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    await webhooks().remove(endpoint.id);
  });

  it('keeps sending to the others while one endpoint hangs', async () => {
    answers.set(
      '/slow',
      Array.from({ length: 20 }, () => 'hang' as const),
    );
    const slow = await webhooks().add({ resellerId }, hooks.url('/slow'));
    const fast = await webhooks().add({ resellerId }, hooks.url('/fast'));
    for (let i = 0; i < 12; i++) await topUp(resellerId, 1);
    await eventually(() => at('/fast').length >= 12, 'every delivery to the fast endpoint', 5_000);
    await webhooks().remove(slow.endpoint.id);
    await webhooks().remove(fast.endpoint.id);
  });

  it('claims deliveries to two endpoints in batches, not one per transaction once their shares are full', async () => {
    const worker = h.module.container.get(TOKENS.webhookDeliveryWorker);
    await worker.stop();
    const a = await webhooks().add({ resellerId }, hooks.url('/batch-a'));
    const b = await webhooks().add({ resellerId }, hooks.url('/batch-b'));
    for (let i = 0; i < 60; i++) await topUp(resellerId, 1);
    await h.module.container.get(TOKENS.outboxDispatcher).drain();
    const claims = jest.spyOn(KnexWebhookRepository.prototype, 'claimDue');
    try {
      worker.start();
      await eventually(() => at('/batch-a').length >= 60 && at('/batch-b').length >= 60, 'all 120 deliveries', 10_000);
      // 32 slots, a quarter (8) per endpoint: claiming again whenever half of the slots were
      // free meant a claim after every attempt with two endpoints.
      expect(claims.mock.calls.length).toBeLessThanOrEqual(16);
    } finally {
      claims.mockRestore();
      await webhooks().remove(a.endpoint.id);
      await webhooks().remove(b.endpoint.id);
    }
  });

  it("hands what dispatch makes for an endpoint that answers to the worker unclaimed by a round; a failing one's go through claim rounds, with the same bytes", async () => {
    const worker = h.module.container.get(TOKENS.webhookDeliveryWorker);
    const { endpoint } = await webhooks().add({ resellerId }, hooks.url('/handed'), ['credit.changed']);
    await topUp(resellerId);
    await eventually(async () => (await deliveriesTo(endpoint.id))[0]?.status === 'delivered', 'the first delivery');
    // Which deliveries claim rounds read back (a round claims, then reads what it claimed).
    const readBack: string[] = [];
    const claimed = KnexWebhookRepository.prototype.claimed;
    const spy = jest.spyOn(KnexWebhookRepository.prototype, 'claimed').mockImplementation(async function (
      this: KnexWebhookRepository,
      ids,
      token,
    ) {
      const found = await claimed.call(this, ids, token);
      readBack.push(...found.map((d) => d.id));
      return found;
    });
    answers.set('/handed', [{ status: 500 }]);
    try {
      await topUp(resellerId);
      await eventually(() => at('/handed').length === 2, "the second event's attempt");
      const failed = await eventually(
        async () => (await deliveriesTo(endpoint.id)).find((d) => d.status === 'pending' && d.attempts === 1),
        'its failure recorded',
      );
      // The endpoint had answered: the delivery was claimed as it was inserted and sent as it was.
      expect(readBack).not.toContain(failed.id);
      // Failing now: the next event's delivery waits in its row for a claim round.
      await topUp(resellerId);
      await eventually(() => at('/handed').length === 3, "the third event's attempt");
      const thirdEvent = at('/handed')[2]!.headers['webhook-id'];
      const third = await eventually(
        async () => (await deliveriesTo(endpoint.id)).find((d) => d.eventId === thirdEvent && d.status === 'delivered'),
        'the third delivery recorded',
      );
      expect(readBack).toContain(third.id);
      // The retry is claimed from its row and sends the very bytes the hand-off sent.
      h.clock.advance(6_000);
      worker.wake();
      await eventually(() => at('/handed').length === 4, 'the retry');
      expect(readBack).toContain(failed.id);
      const attempts = at('/handed').filter((r) => r.headers['webhook-id'] === failed.eventId);
      expect(attempts).toHaveLength(2);
      expect(attempts[1]!.body).toBe(attempts[0]!.body);
      await eventually(
        async () => (await deliveriesTo(endpoint.id)).find((d) => d.id === failed.id)?.status === 'delivered',
        'the retry recorded',
      );
    } finally {
      spy.mockRestore();
      await webhooks().remove(endpoint.id);
    }
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    answers.set('/moved', [{ status: 302, headers: { location: hooks.url('/target') } }]);
    const { endpoint } = await webhooks().add({ resellerId }, hooks.url('/moved'));
    await topUp(resellerId);
    const [d] = await eventually(async () => {
      const list = await deliveriesTo(endpoint.id);
      return list[0]?.attempts === 1 && list;
    }, 'the attempt');
    expect(d).toMatchObject({ status: 'pending', lastStatus: 302 });
    expect(at('/target')).toEqual([]);
    await webhooks().remove(endpoint.id);
  });

  // MariaDB picks the primary key for these by itself; SQLite, without statistics, walked the status index.
  (TEST_ENGINE === 'sqlite' ? it : it.skip)(
    'claims and records deliveries through their ids, not by walking every pending or delivered one',
    async () => {
      const byIds: Array<{ sql: string; bindings: unknown[] }> = [];
      const listen = (query: { sql: string; bindings: unknown[] }) => {
        if (/^(update|delete) .*`webhook_deliveries`.* `id` in \(/i.test(query.sql)) byIds.push(query);
      };
      h.module.knex.on('query', listen);
      const { endpoint } = await webhooks().add({ resellerId }, hooks.url('/by-ids'), ['credit.changed']);
      try {
        for (let i = 0; i < 3; i++) await topUp(resellerId, 1);
        await eventually(
          async () => (await deliveriesTo(endpoint.id)).filter((d) => d.status === 'delivered').length === 3,
          'three deliveries',
        );
        // The purge's delete, without moving the clock on the tests after this one.
        await new KnexWebhookRepository(h.module.knex).purgeDelivered(new Date(h.clock.now().getTime() + 1), 1000);
      } finally {
        h.module.knex.off('query', listen);
        await webhooks().remove(endpoint.id);
      }
      expect(byIds.map((q) => q.sql.split(' where ')[0])).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/set `claim_token`/),
          expect.stringMatching(/set `status` = \?/),
          expect.stringMatching(/^delete/),
        ]),
      );
      for (const { sql, bindings } of byIds) {
        const plan: Array<{ detail: string }> = await h.module.knex.raw(`explain query plan ${sql}`, bindings as never);
        expect({ sql, plan: plan.map((step) => step.detail) }).toEqual({
          sql,
          plan: [expect.stringMatching(/USING INDEX sqlite_autoindex_webhook_deliveries_1 \(id=\?\)/)],
        });
      }
    },
  );

  it('purges delivered deliveries and their events after the retention, never an undelivered one', async () => {
    answers.set(
      '/never',
      Array.from({ length: 20 }, () => ({ status: 500 })),
    );
    const never = await webhooks().add({ resellerId }, hooks.url('/never'), ['credit.changed']);
    const { entry } = await topUp(resellerId, 7);
    await eventually(() => at('/never').length >= 1, 'the failed attempt');
    const event = await eventually(async () => {
      const row = (await h.module.knex('outbox_events').where({ type: 'credit.changed' }).select()).find((r) =>
        r.payload.includes(entry.id),
      );
      return row?.dispatched_at && row;
    }, 'the dispatched event');
    h.clock.advance(31 * 86_400_000);
    const dispatcher = h.module.container.get(TOKENS.outboxDispatcher);
    const purged = await dispatcher.purge();
    expect(purged.purgedEvents).toBeGreaterThan(0);
    expect(await h.module.knex('outbox_events').where({ id: event.id }).first()).toBeDefined();
    await webhooks().remove(never.endpoint.id);
    await dispatcher.purge();
    expect(await h.module.knex('outbox_events').where({ id: event.id }).first()).toBeUndefined();
  });
});

describe('webhook targets (SSRF)', () => {
  it('refuses plain http and loopback, private and link-local addresses when saving, unless insecure targets are allowed', async () => {
    const h = await startHarness();
    try {
      const id = (await h.module.services.resellers.byEmail('reseller@example.com')).id;
      const add = (url: string) => h.module.services.webhooks.add({ resellerId: id }, url);
      for (const url of [
        'http://hooks.example.com/',
        'https://127.0.0.1/',
        'https://10.1.2.3/',
        'https://169.254.169.254/latest/meta-data',
        'https://[::1]/',
        'https://[fd00:ec2::254]/',
        'https://localhost/',
        'https://user:pass@hooks.example.com/',
        'not a url',
      ])
        await expect(add(url)).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(add('https://hooks.example.com/x')).resolves.toMatchObject({
        endpoint: { url: 'https://hooks.example.com/x' },
      });
      await expect(
        h.module.services.webhooks.add({ resellerId: id }, 'https://hooks.example.com/', ['order.exploded']),
      ).rejects.toThrow(/unknown event type order\.exploded/);
    } finally {
      await h.close();
    }
  });

  it('checks the address when connecting: a name that resolves to loopback is refused, and so is an address literal', async () => {
    const sender = new HttpWebhookSender({ allowInsecureTargets: false });
    try {
      const send = (url: string) => sender.send({ url, headers: {}, body: '{}', timeoutMs: 2_000 });
      await expect(send('https://localhost:9/hook')).resolves.toMatchObject({
        kind: 'error',
        error: expect.stringMatching(/resolves to (127\.0\.0\.1|::1), which webhooks may not reach/),
      });
      await expect(send('https://127.0.0.1:9/hook')).resolves.toMatchObject({
        kind: 'error',
        error: expect.stringMatching(/may not reach/),
      });
      await expect(send('http://example.com/hook')).resolves.toMatchObject({
        kind: 'error',
        error: expect.stringMatching(/https only/),
      });
    } finally {
      sender.close();
    }
  });
});
