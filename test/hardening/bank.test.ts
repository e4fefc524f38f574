import path from 'node:path';
import qs from 'qs';
import { computeToken } from '../../src/core/auth/api-token';
import { startHarness, type Harness } from '../support/harness';
import { ledgerProblems } from '../support/ledger-invariant';
import { TEST_ENGINE } from '../support/test-database';
import { REGISTRANT } from '../support/wire';

/**
 * The bank test: many workers move money at once for a bounded time, through the HTTP API and
 * the operator's services: top-ups and adjustments, registrations, renewals and transfers whose
 * registrar outcome is random (the scripted registrar: success, refusal, fault, no answer,
 * success after the deadline, "pending", taken), retries with Idempotency-Keys, and
 * reconciliation running in the middle of it all while the clock jumps past leases. Afterwards:
 * the money is conserved (every balance is what went in minus what completed and pending orders
 * cost), no balance was ever seen below zero, no request got a 500, and after reconciliation
 * every order is final. On MariaDB, where transactions really run side by side (SQLite's single
 * writer would serialise them). BANK_SECONDS (4) and BANK_SEED replay a run.
 */
const describeOnMariaDb = TEST_ENGINE === 'mariadb' ? describe : describe.skip;
const SECONDS = Number(process.env.BANK_SECONDS ?? 4);
const SEED = Number(process.env.BANK_SEED ?? Math.floor(Math.random() * 2 ** 31));
const WORKERS = 16;
const MIN_ORDERS_SENT = 160;
const RESELLERS = 6;
const OPENING = 150_00;
const REGISTRAR_DEADLINE_MS = 150;
const RECONCILE_AFTER_MS = 1000;
const _PRICES = { register: 10_00, renew: 12_00, transfer: 9_00 };

/** A small seeded PRNG (mulberry32): the same seed makes the same choices in the same order per worker. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Registrar outcomes by name prefix (test/fixtures/plugins/scripted). */
const OUTCOMES = ['', '', '', '', 'refuse-', 'fault-', 'lost-', 'late-', 'pending-', 'taken-'];

describeOnMariaDb('bank: concurrent money movements on MariaDB', () => {
  let h: Harness;
  const resellers: Array<{ id: string; email: string; apiKey: string }> = [];
  let moneyIn = 0;
  const replies: Array<{ kind: string; domain: string; status: number; body: unknown }> = [];
  let lowestBalanceSeen = Number.POSITIVE_INFINITY;

  beforeAll(async () => {
    h = await startHarness({
      pluginsDir: path.join(__dirname, '..', 'fixtures', 'plugins'),
      registrar: 'scripted',
      settings: {
        registrarTimeoutMs: REGISTRAR_DEADLINE_MS,
        reconcileAfterMs: RECONCILE_AFTER_MS,
        authMaxFailures: 10_000,
        dbPoolMax: 20,
      },
    });
    moneyIn += 100_00; // the harness reseller's opening credit
    for (let i = 0; i < RESELLERS; i++) {
      const email = `bank-${i}@example.com`;
      const { reseller, apiKey } = await h.module.services.resellers.create(email, 'default', OPENING);
      resellers.push({ id: reseller.id, email, apiKey });
      moneyIn += OPENING;
    }
  });
  afterAll(async () => {
    await h.close();
  });

  it(`conserves money, never goes below zero and settles every order (seed ${SEED})`, async () => {
    const deadline = Date.now() + SECONDS * 1000;
    // On a busy machine a few seconds may hold too few orders to mean anything: go on past the
    // deadline until enough were sent, within a hard stop well inside the test's timeout.
    const hardStop = Date.now() + 4 * SECONDS * 1000;
    let ordersSent = 0;
    const goOn = () => Date.now() < hardStop && (Date.now() < deadline || ordersSent < MIN_ORDERS_SENT);
    let serial = 0;
    const headersOf = (r: (typeof resellers)[number]) => ({
      username: r.email,
      token: computeToken(r.email, r.apiKey, h.clock.now()),
    });
    const owned = new Map<string, string[]>(resellers.map((r) => [r.id, []]));

    const order = async (rand: () => number, r: (typeof resellers)[number]) => {
      const roll = rand();
      const kind = roll < 0.6 ? 'register' : roll < 0.85 ? 'renew' : 'transfer';
      let domain: string;
      let body: Record<string, unknown>;
      if (kind === 'renew') {
        const mine = owned.get(r.id)!;
        // Mostly its own domains; sometimes another reseller's, or one nobody holds: 409, no money moves.
        domain =
          mine.length > 0 && rand() < 0.8 ? mine[Math.floor(rand() * mine.length)]! : `bank-${SEED}-${serial++}.com`;
        body = { domain, regperiod: rand() < 0.8 ? '1' : '2' };
      } else {
        const prefix =
          kind === 'transfer'
            ? rand() < 0.5
              ? 'xferok-'
              : 'xferfail-'
            : OUTCOMES[Math.floor(rand() * OUTCOMES.length)]!;
        domain = `${prefix}bank-${SEED}-${serial++}.com`;
        body = {
          domain,
          regperiod: '1',
          nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
          contacts: { registrant: REGISTRANT },
          ...(kind === 'transfer' && { eppcode: 'EPP' }),
        };
      }
      const send = (key?: string) =>
        h.http
          .post(`/order/domains/${kind}`)
          .set({ ...headersOf(r), ...(key && { 'Idempotency-Key': key }) })
          .type('form')
          .send(qs.stringify(body));
      // One in five is sent twice at once with one Idempotency-Key, like a client retrying on a timeout.
      const key = rand() < 0.2 ? `k-${SEED}-${serial++}` : undefined;
      const answers = await Promise.all(key ? [send(key), send(key)] : [send()]);
      for (const res of answers) replies.push({ kind, domain, status: res.status, body: res.body });
      if (kind === 'register' && answers.some((a) => a.status === 200)) owned.get(r.id)!.push(domain);
    };

    const operator = async (rand: () => number, r: (typeof resellers)[number]) => {
      const amount = Math.round(rand() * 50_00) + 1;
      if (rand() < 0.75) {
        await h.module.services.credit.adjust(r.id, amount, 'bank test top-up');
        moneyIn += amount;
      } else {
        // Taking money back may be refused (it would go below zero): then nothing moves.
        try {
          await h.module.services.credit.adjust(r.id, -amount, 'bank test adjustment');
          moneyIn -= amount;
        } catch (error) {
          expect((error as { code?: string }).code).toBe('insufficient_credit');
        }
      }
    };

    const worker = async (index: number) => {
      const rand = random(SEED + index);
      while (goOn()) {
        const r = resellers[Math.floor(rand() * resellers.length)]!;
        const roll = rand();
        if (roll < 0.75) {
          ordersSent++;
          await order(rand, r);
        } else if (roll < 0.9) await operator(rand, r);
        else {
          // Reconciliation in the middle of the traffic, with the clock past the leases of orders still in flight.
          h.clock.advance(REGISTRAR_DEADLINE_MS + RECONCILE_AFTER_MS + 1);
          await h.module.reconcile();
        }
      }
    };

    // A watcher reading every balance, all the time: none may ever be seen below zero.
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const rows: Array<{ balance_minor: number | string }> = await h.module
          .knex('credit_accounts')
          .select('balance_minor');
        for (const row of rows) lowestBalanceSeen = Math.min(lowestBalanceSeen, Number(row.balance_minor));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();

    await Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(i)));
    watching = false;
    await watcher;

    // Settle everything left: past every lease, reconcile until nothing is pending (transfers may need a second look).
    for (let pass = 0; pass < 5; pass++) {
      h.clock.advance(REGISTRAR_DEADLINE_MS + RECONCILE_AFTER_MS + 1);
      await h.module.services.orders.reconcile({ limit: 10_000 });
    }

    const orders: Array<{ status: string; price_minor: number | string; domain_name: string }> = await h.module
      .knex('orders')
      .select('status', 'price_minor', 'domain_name');
    const accounts: Array<{ balance_minor: number | string }> = await h.module
      .knex('credit_accounts')
      .select('balance_minor');
    const held = accounts.reduce((sum, a) => sum + Number(a.balance_minor), 0);
    const spent = orders.filter((o) => o.status !== 'failed').reduce((sum, o) => sum + Number(o.price_minor), 0);
    const byStatus = orders.reduce<Record<string, number>>(
      (acc, o) => ({ ...acc, [o.status]: (acc[o.status] ?? 0) + 1 }),
      {},
    );
    const statuses = replies.reduce<Record<number, number>>(
      (acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }),
      {},
    );
    const context = `seed ${SEED}; orders ${JSON.stringify(byStatus)}; replies ${JSON.stringify(statuses)}`;
    if (process.env.BANK_VERBOSE)
      process.stderr.write(`${context}; money in ${moneyIn}, held ${held}, lowest balance seen ${lowestBalanceSeen}\n`);

    // Enough happened for the test to mean something.
    expect(orders.length > 50 && (byStatus.completed ?? 0) > 10 && (byStatus.failed ?? 0) > 5 ? 'busy' : context).toBe(
      'busy',
    );
    // Money is conserved: what is held is what came in minus what orders cost, to the cent.
    expect({ held, context }).toEqual({ held: moneyIn - spent, context });
    // No balance was ever below zero, and none is now.
    expect(lowestBalanceSeen).toBeGreaterThanOrEqual(0);
    expect(Math.min(...accounts.map((a) => Number(a.balance_minor)))).toBeGreaterThanOrEqual(0);
    // Every order is final after reconciliation.
    expect({ pending: byStatus.pending ?? 0, context }).toEqual({ pending: 0, context });
    // The ledger's own invariant: balances equal their entries; each order's entries match its state.
    expect(await ledgerProblems(h.module.knex)).toEqual([]);
    // Every answer was a clear one: no 500, and every error the {"error"} shape.
    expect(replies.filter((r) => r.status >= 500 && r.status !== 502)).toEqual([]);
    for (const r of replies.filter((x) => x.status !== 200)) expect(Object.keys(r.body as object)).toEqual(['error']);
    // A refusal the client was told about was never charged.
    const failedNames = new Set(orders.filter((o) => o.status === 'failed').map((o) => o.domain_name));
    const chargedNames = new Set(orders.filter((o) => o.status !== 'failed').map((o) => o.domain_name));
    for (const r of replies.filter(
      (x) =>
        x.kind !== 'renew' &&
        (x.status === 502 || (x.status === 400 && /not available/.test(String((x.body as { error?: string }).error)))),
    )) {
      expect({ domain: r.domain, charged: chargedNames.has(r.domain) && !failedNames.has(r.domain) }).toEqual({
        domain: r.domain,
        charged: false,
      });
    }
  }, 60_000);
});
