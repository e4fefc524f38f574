import { spawn } from 'node:child_process';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import type { AnyPlatformEvent } from '../../src/core/common/events';
import { TOKENS } from '../../src/core/tokens';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { TEST_MASTER_KEY } from '../support/harness';
import { ROOT } from '../support/server-process';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A receiver on loopback answering 200 after `delayMs`; counts requests in flight per webhook-id. */
async function receiver(delayMs = 0) {
  const received: Received[] = [];
  const inFlight = new Map<string, number>();
  let overlaps = 0;
  const server = http.createServer((req, res) => {
    const id = String(req.headers['webhook-id']);
    inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
    if (inFlight.get(id)! > 1) overlaps++;
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () =>
      setTimeout(() => {
        received.push({ headers: req.headers, body });
        inFlight.set(id, inFlight.get(id)! - 1);
        res.writeHead(200).end();
      }, delayMs),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    overlaps: () => overlaps,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function eventually(probe: () => boolean, what: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const openModule = (db: TestDatabase, settings: Record<string, unknown> = {}) =>
  createResellerModule({
    database: db.url,
    settings: {
      masterKey: TEST_MASTER_KEY,
      logLevel: 'silent',
      webhookAllowInsecureTargets: true,
      eventsRecoverAfterMs: 1_000,
      ...settings,
    },
  });

async function givenReseller(module: ResellerModule, email: string): Promise<string> {
  const { resellers } = module.services;
  await resellers.createGroup('events');
  return (await resellers.create(email, 'events', 1_000)).reseller.id;
}

describe('event guarantees across processes', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase();
    const module = await openModule(db);
    await module.migrate();
    await module.close();
  });
  afterEach(async () => {
    await db.drop();
  });

  it('delivers an event whose process was killed with SIGKILL between the commit and the dispatch, once the server runs again', async () => {
    const hooks = await receiver();
    const setUp = await openModule(db);
    const resellerId = await givenReseller(setUp, 'killed@example.com');
    const { secret } = await setUp.services.webhooks.add({ resellerId }, hooks.url, ['credit.changed']);
    await setUp.close();
    try {
      // Another process commits a top-up and dies before dispatching its event.
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(ROOT, 'test/fixtures/events/commit-then-die.ts'),
          db.url,
          TEST_MASTER_KEY,
          resellerId,
        ],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let output = '';
      child.stdout!.on('data', (chunk) => {
        output += String(chunk);
      });
      const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, s) => resolve(s)));
      expect(signal).toBe('SIGKILL');
      const entryId = output.trim();
      expect(entryId).toMatch(/^[0-9A-Z]{26}$/);

      const restarted = await openModule(db);
      try {
        const [row] = (await restarted.knex('outbox_events').where({ type: 'credit.changed' }).select()).filter((r) =>
          r.payload.includes(entryId),
        );
        expect(row).toMatchObject({ dispatched_at: null });
        const heard: AnyPlatformEvent[] = [];
        restarted.on('credit.changed', (_data, event) => void heard.push(event as AnyPlatformEvent));
        restarted.startBackgroundJobs();
        await eventually(() => hooks.received.length > 0, 'the webhook');
        const event = new Webhook(secret).verify(
          hooks.received[0]!.body,
          hooks.received[0]!.headers as Record<string, string>,
        ) as AnyPlatformEvent;
        expect(event).toMatchObject({ id: row.id, type: 'credit.changed', data: { entryId, amount: 4_200 } });
        expect(heard.map((e) => e.id)).toContain(row.id);
        expect(hooks.received).toHaveLength(1);
      } finally {
        await restarted.close();
      }
    } finally {
      await hooks.close();
    }
  }, 90_000);

  (TEST_ENGINE === 'mariadb' ? it : it.skip)(
    'shares deliveries between two server processes on one MariaDB without ever sending one twice',
    async () => {
      // A receiver slow enough that both processes have attempts in flight at once.
      const hooks = await receiver(30);
      const first = await openModule(db, { webhookConcurrency: 8 });
      const second = await openModule(db, { webhookConcurrency: 8 });
      try {
        const resellerId = await givenReseller(first, 'shared@example.com');
        await first.services.webhooks.add({ resellerId }, hooks.url, ['credit.changed']);
        for (const m of [first, second]) m.container.get(TOKENS.webhookDeliveryWorker).start();
        const total = 120;
        await Promise.all(
          Array.from({ length: total }, (_, i) => (i % 2 ? first : second).services.credit.adjust(resellerId, 1, null)),
        );
        await eventually(() => hooks.received.length >= total, 'every delivery');
        await new Promise((resolve) => setTimeout(resolve, 500));
        const ids = hooks.received.map((r) => String(r.headers['webhook-id']));
        expect(ids).toHaveLength(total);
        expect(new Set(ids).size).toBe(total);
        expect(hooks.overlaps()).toBe(0);
        const delivered = await first.knex('webhook_deliveries').where({ status: 'delivered' }).count({ n: '*' });
        expect(Number(delivered[0]!.n)).toBe(total);
      } finally {
        await first.close();
        await second.close();
        await hooks.close();
      }
    },
    90_000,
  );
});
