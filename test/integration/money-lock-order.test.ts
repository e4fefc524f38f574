import type { Knex } from 'knex';
import { ulid } from 'ulid';
import { postWithBalance } from '../../src/core/credit/ledger';
import { TOKENS } from '../../src/core/tokens';
import { startHarness, type Harness } from '../support/harness';
import { TEST_ENGINE } from '../support/test-database';
import { form, placeRegister } from '../support/wire';

/**
 * docs/architecture.md#lock-order: every transaction that touches a reseller's money takes the
 * reseller row (shared, by a foreign key check, or exclusive) before its credit account, never
 * after. A transaction that took them the other way round met an operator's adjustment (which
 * locks the reseller, then moves the balance) in a cycle, and under load every retry deadlocked.
 *
 * Each case holds the reseller row in a transaction of its own, as an adjustment does between its
 * two statements, runs one money path, and asks: while that path waits, is the credit account still
 * free? A path that took the balance first holds it while it waits for the reseller.
 * MariaDB only: SQLite has one writer at a time and no row locks.
 */
(TEST_ENGINE === 'mariadb' ? describe : describe.skip)('the order of row locks on the money path (mariadb)', () => {
  let h: Harness;
  let resellerId: string;

  beforeAll(async () => {
    // Room for the holder, the probes and the path under test at once.
    h = await startHarness({ settings: { dbPoolMax: 10 } });
    resellerId = (await h.module.services.resellers.byEmail(h.reseller.email)).id;
  });
  afterAll(() => h.close());

  /**
   * Runs `work` while another transaction holds the reseller row for update; answers what `work`
   * did, whether it was seen waiting on `waitingStatement` (the start of its SQL), and if so
   * whether the reseller's credit account was free meanwhile.
   */
  async function whileResellerLocked<T>(
    waitingStatement: string,
    work: () => PromiseLike<T>,
  ): Promise<{ result: T; waited: boolean; accountFreeWhileWaiting: boolean | null }> {
    const holder = await h.module.knex.transaction();
    try {
      await holder('resellers').where({ id: resellerId }).forUpdate().first('id');
      // A promise of its own: a request builder is a thenable that sends once per `then`.
      const running = Promise.resolve().then(work);
      running.catch(() => {});
      const waiting = await waitingOn(h.module.knex, waitingStatement, running);
      const accountFreeWhileWaiting = waiting ? await accountIsFree(h.module.knex, resellerId) : null;
      await holder.commit();
      return { result: await running, waited: waiting, accountFreeWhileWaiting };
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
    }
  }

  it('posts a ledger entry without waiting for the reseller row', async () => {
    const uow = h.module.container.get(TOKENS.unitOfWork);
    const { result, waited } = await whileResellerLocked('insert into `credit_entries`', () =>
      uow.run(({ ledger }) =>
        postWithBalance(ledger, {
          id: ulid(),
          resellerId,
          amount: 5_00,
          kind: 'top_up',
          orderId: null,
          note: 'credit posted while another transaction holds the reseller',
          createdAt: h.clock.now(),
        }),
      ),
    );
    expect({ waited, balance: result }).toEqual({ waited: false, balance: 105_00 });
  });

  it('places a renewal waiting for the reseller row before it takes the balance', async () => {
    expect((await placeRegister(h, 'lock-order-renewal.com')).status).toBe(200);
    const before = await h.module.services.credit.balance(resellerId);
    const { result, waited, accountFreeWhileWaiting } = await whileResellerLocked('insert into `orders`', () =>
      h.http
        .post('/order/domains/renew')
        .set(h.headers())
        .type('form')
        .send(form({ domain: 'lock-order-renewal.com', regperiod: '1' })),
    );
    expect({ waited, accountFreeWhileWaiting, status: result.status }).toEqual({
      waited: true,
      accountFreeWhileWaiting: true,
      status: 200,
    });
    expect(await h.module.services.credit.balance(resellerId)).toBeLessThan(before);
  });

  it('settles the low-credit flag taking the reseller row before the balance', async () => {
    await h.module.knex('resellers').where({ id: resellerId }).update({ low_credit_threshold_minor: 1_000_00 });
    const uow = h.module.container.get(TOKENS.unitOfWork);
    const { result, waited, accountFreeWhileWaiting } = await whileResellerLocked('select', () =>
      uow.run(({ resellers }) => resellers.settleCreditLow(resellerId)),
    );
    expect({ waited, accountFreeWhileWaiting, fell: result !== undefined }).toEqual({
      waited: true,
      accountFreeWhileWaiting: true,
      fell: true,
    });
  });
});

/**
 * Whether a statement of this test's database starting with `statement` is seen waiting for a lock
 * before `running` settles (other test files share the server; the statement tells the path under
 * test from, say, an API log write waiting on the same row).
 */
async function waitingOn(knex: Knex, statement: string, running: Promise<unknown>): Promise<boolean> {
  let settled = false;
  running.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    const [rows] = await knex.raw(
      `select count(*) as n from information_schema.innodb_trx t
         join information_schema.processlist p on p.id = t.trx_mysql_thread_id
        where t.trx_state = 'LOCK WAIT' and p.db = database() and t.trx_query like ?`,
      [`${statement}%`],
    );
    if (Number(rows[0].n) > 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** Whether the reseller's credit account can be locked at once, by a transaction that then lets it go. */
async function accountIsFree(knex: Knex, resellerId: string): Promise<boolean> {
  const probe = await knex.transaction();
  try {
    await probe.raw('select balance_minor from credit_accounts where reseller_id = ? for update nowait', [resellerId]);
    return true;
  } catch {
    return false;
  } finally {
    await probe.rollback();
  }
}
