import knex, { type Knex } from 'knex';
import { computeToken } from '../../src/core/auth/api-token';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';
import { createResellerModule } from '../../src/module';
import { startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';
import { ledgerProblems, openLedgers } from '../support/ledger-invariant';
import { startServer, type ServerProcess } from '../support/server-process';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';
import { registerForm } from '../support/wire';
import { givenGroupSellingCom } from '../support/domains';

/**
 * Crashes of the running system, not of one service call (test/integration/order-crash.test.ts
 * covers those): the stand-alone server killed with SIGKILL in the middle of orders and started
 * again, and MariaDB killing the server's connections while orders run. Nothing may be lost,
 * nothing charged twice, and every client must get a clear answer, at the latest on a retry.
 */

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the server process killed with SIGKILL in the middle of orders, then started again', () => {
  let db: TestDatabase;
  let check: Knex;
  let email: string;
  let apiKey: string;
  const servers: ServerProcess[] = [];
  const env = (extra: Record<string, string>) => ({
    MASTER_KEY: TEST_MASTER_KEY,
    SEED_DEMO: 'false',
    LOG_LEVEL: 'silent',
    SANDBOX_LATENCY_MS: '0',
    REGISTRAR_TIMEOUT_MS: '2000',
    RECONCILE_AFTER_MS: '0',
    DATABASE_URL: db.url,
    ...extra,
  });

  beforeAll(async () => {
    db = await createTestDatabase();
    const seed = await createResellerModule({
      database: db.url,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
    });
    await seed.migrate();
    await givenGroupSellingCom(seed, 'default');
    ({ apiKey } = await seed.services.resellers.create('crash@example.com', 'default', 100_00));
    email = 'crash@example.com';
    await seed.close();
    check = connectDatabase(parseDatabaseUrl(db.url));
    openLedgers.add(check);
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    openLedgers.delete(check);
    await check.destroy();
    await db.drop();
  });

  it('loses nothing and charges nothing twice: reconciliation in the restarted server settles every order, and retries with their keys hear the outcome', async () => {
    const first = await startServer('src/main.ts', env({ RECONCILE_INTERVAL_MS: '0' }));
    servers.push(first);
    // slow- names are registered at once and answered only at the deadline; lost- names never happen.
    const names = [
      'slow-crash1.com',
      'slow-crash2.com',
      'slow-crash3.com',
      'lost-crash1.com',
      'lost-crash2.com',
      'lost-crash3.com',
    ];
    const post = (url: string, domain: string) =>
      fetch(`${url}/order/domains/register`, {
        method: 'POST',
        headers: {
          username: email,
          token: computeToken(email, apiKey, new Date()),
          'content-type': 'application/x-www-form-urlencoded',
          'idempotency-key': `key-${domain}`,
        },
        body: registerForm(domain),
      });
    const inFlight = names.map((domain) =>
      post(first.url, domain).then(
        (res) => res.status,
        (error: Error) => error,
      ),
    );

    // Every order past phase 1 (money reserved) and the slow- names at the registry: now the process dies.
    await until('every order is placed and the registry holds the slow- names', async () => {
      const pending = await check('orders').where({ status: 'pending' }).count({ n: '*' }).first();
      const held = await check('plugin_state')
        .where('state_key', 'like', 'domain:slow-crash%')
        .count({ n: '*' })
        .first();
      return Number(pending?.n) === names.length && Number(held?.n) === 3;
    });
    first.child.kill('SIGKILL');
    const outcomes = await Promise.all(inFlight);
    // The clients saw the connection die, not an answer that could mislead them.
    for (const outcome of outcomes)
      expect(typeof outcome === 'number' ? `answered ${outcome}` : 'connection lost').toBe('connection lost');
    expect(await check('credit_accounts').first()).toMatchObject({ balance_minor: 40_00 });

    // The server comes back; its background reconciliation settles what the dead one left.
    const second = await startServer('src/main.ts', env({ RECONCILE_INTERVAL_MS: '200' }));
    servers.push(second);
    // A retry before reconciliation is told the first request is still being handled, and is not charged.
    const early = await post(second.url, 'lost-crash1.com');
    if ((await check('orders').where({ domain_name: 'lost-crash1.com' }).first()).status === 'pending') {
      expect(early.status).toBe(409);
      expect(Object.keys((await early.json()) as object)).toEqual(['error']);
    }
    await until(
      'no order is pending any more',
      async () => Number((await check('orders').where({ status: 'pending' }).count({ n: '*' }).first())?.n) === 0,
    );

    const orders: Array<{ domain_name: string; status: string }> = await check('orders')
      .select('domain_name', 'status')
      .orderBy('domain_name');
    expect(orders).toEqual(
      names
        .map((domain_name) => ({ domain_name, status: domain_name.startsWith('slow-') ? 'completed' : 'failed' }))
        .sort((a, b) => a.domain_name.localeCompare(b.domain_name)),
    );
    expect(await ledgerProblems(check)).toEqual([]);
    // 100.00 - 3 registrations that happened; the 3 that did not were refunded once.
    const credits = await fetch(`${second.url}/billing/credits`, {
      headers: { username: email, token: computeToken(email, apiKey, new Date()) },
    });
    expect(await credits.json()).toBe('70.00');

    // The clients retry with their keys: each hears what its order became, and nothing is charged again.
    for (const domain of names) {
      const retry = await post(second.url, domain);
      if (domain.startsWith('slow-')) {
        expect(retry.status).toBe(200);
        expect(await retry.json()).toBe('success');
      } else {
        expect(retry.status).toBe(502);
        expect(((await retry.json()) as { error: string }).error).toMatch(
          /did not go through at the registrar; 10\.00 was refunded/,
        );
      }
    }
    expect(await check('orders').count({ n: '*' }).first()).toMatchObject({ n: names.length });
    expect(await check('credit_accounts').first()).toMatchObject({ balance_minor: 70_00 });
  }, 60_000);
});

const describeOnMariaDb = TEST_ENGINE === 'mariadb' ? describe : describe.skip;

describeOnMariaDb("MariaDB killing the server's connections while orders run", () => {
  let h: Harness;
  let admin: Knex;
  let database: string;

  beforeAll(async () => {
    h = await startHarness({
      settings: {
        registrarTimeoutMs: 1000,
        reconcileAfterMs: 1000,
        plugins: { sandbox: { latencyMs: 15 } },
        authMaxFailures: 10_000,
      },
    });
    admin = knex({ client: 'mysql2', connection: process.env.TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306' });
    database = new URL(h.databaseUrl).pathname.slice(1);
    await h.module.services.credit.adjust(
      (await h.module.services.resellers.byEmail(h.reseller.email)).id,
      900_00,
      'for the killing',
    );
  });
  afterAll(async () => {
    await admin.destroy();
    await h.close();
  });

  it('answers every request clearly, keeps serving, and after reconciliation every order is final with its money right', async () => {
    let killing = true;
    let kills = 0;
    const killer = (async () => {
      while (killing) {
        const [rows] = await admin.raw(
          'SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()',
          [database],
        );
        const victims = (rows as Array<{ id: number }>).filter(() => Math.random() < 0.5);
        for (const { id } of victims) {
          await admin.raw(`KILL ${Number(id)}`).then(
            () => {
              kills++;
            },
            () => undefined,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
      }
    })();

    const replies: Array<{ domain: string; status: number; body: unknown; retryAfter?: string }> = [];
    let serial = 0;
    const client = async () => {
      for (let i = 0; i < 6; i++) {
        const domain = `killed-${serial++}.com`;
        const res = await h.http
          .post('/order/domains/register')
          .set(h.headers())
          .type('form')
          .send(registerForm(domain));
        replies.push({ domain, status: res.status, body: res.body, retryAfter: res.headers['retry-after'] });
      }
    };
    await Promise.all(Array.from({ length: 8 }, client));
    killing = false;
    await killer;

    if (process.env.KILL_VERBOSE)
      process.stderr.write(
        `kills ${kills}; replies ${JSON.stringify(replies.reduce<Record<number, number>>((a, r) => ({ ...a, [r.status]: (a[r.status] ?? 0) + 1 }), {}))}\n`,
      );
    // Connections were really killed under the orders, and some orders went through regardless.
    expect(kills).toBeGreaterThan(5);
    expect(replies.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    // Clear answers only, never a 500: success; a 503 with Retry-After when the database lost the
    // request's connection twice (a unit of work that lost it before COMMIT runs again once on a
    // fresh one); or a 502 saying nothing was charged when the sandbox (whose registry lives in this
    // database) lost its connection while answering the premium question asked before any money moves.
    for (const r of replies.filter((x) => x.status !== 200)) {
      expect([r.domain, Object.keys(r.body as object)]).toEqual([r.domain, ['error']]);
      const { error } = r.body as { error: string };
      if (r.status === 502) expect(error).toMatch(/is a premium name .*nothing was charged$/);
      else
        expect([r.domain, r.status, error, r.retryAfter]).toEqual([
          r.domain,
          503,
          'The database is not answering; try again in a few seconds',
          '2',
        ]);
    }
    // The server keeps serving once the database stops misbehaving.
    const after = await h.http
      .post('/order/domains/register')
      .set(h.headers())
      .type('form')
      .send(registerForm('after-the-killing.com'));
    expect(after.status).toBe(200);

    for (let pass = 0; pass < 3; pass++) {
      h.clock.advance(1000 + 1000 + 1);
      await h.module.reconcile();
    }
    const orders: Array<{ domain_name: string; status: string; price_minor: number }> = await h.module
      .knex('orders')
      .select('domain_name', 'status', 'price_minor');
    expect(orders.filter((o) => o.status === 'pending')).toEqual([]);
    expect(await ledgerProblems(h.module.knex)).toEqual([]);
    // A client told "error" was never charged for it.
    const charged = new Set(orders.filter((o) => o.status === 'completed').map((o) => o.domain_name));
    for (const r of replies.filter((x) => x.status !== 200))
      expect({ domain: r.domain, charged: charged.has(r.domain) }).toEqual({ domain: r.domain, charged: false });
    // Every cent accounted for: the opening 1000.00 less the completed orders.
    const balance = Number((await h.module.knex('credit_accounts').first()).balance_minor);
    expect(balance).toBe(
      1000_00 - orders.filter((o) => o.status === 'completed').reduce((s, o) => s + Number(o.price_minor), 0),
    );
  }, 60_000);
});
