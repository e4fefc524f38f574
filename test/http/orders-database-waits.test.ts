import { startHarness, type Harness } from '../support/harness';
import { TEST_ENGINE } from '../support/test-database';
import { form, placeRegister } from '../support/wire';

const DEADLINE_MS = 250;
/** What MariaDB answers a statement that waited longer than innodb_lock_wait_timeout (50 s by default). */
const LOCK_WAIT_TIMEOUT = "SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 1205, MESSAGE_TEXT = 'Lock wait timeout exceeded'";

/**
 * Issue 26: on Galera a renewal waited 50 s for a lock and was answered 500. Where the wait
 * happens decides the answer: while the order is placed, nothing was charged and the reseller may
 * send it again (503, Retry-After); once the registrar has acted, the order is what the registrar
 * made of it ("success", pending) and reconciliation records it. Triggers make the database fail
 * exactly there: on MariaDB with the lock wait timeout's own error; on SQLite, whose waits end in
 * SQLITE_BUSY (retried, then 503 as before), with any error, which the settlement answers the same way.
 */
describe(`an order whose database statement times out waiting for a lock (${TEST_ENGINE})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ settings: { registrarTimeoutMs: DEADLINE_MS, reconcileAfterMs: 0 } });
  });
  afterAll(async () => {
    await h.close();
  });

  const balance = async () => (await h.http.get('/billing/credits').set(h.headers())).body as string;
  const order = async (domain: string) => (await h.module.services.orders.list({ domain }))[0];
  const domainRow = (domain: string) => h.module.knex('domains').where({ name: domain }).first();

  (TEST_ENGINE === 'mariadb' ? it : it.skip)(
    'answers 503 with Retry-After while the order is placed, charging nothing, and the same request sent again succeeds',
    async () => {
      await h.module.knex.raw(
        `CREATE TRIGGER wait_on_debit BEFORE INSERT ON credit_entries FOR EACH ROW BEGIN IF NEW.note LIKE 'register waited-debit.com %' THEN ${LOCK_WAIT_TIMEOUT}; END IF; END`,
      );
      const before = await balance();
      try {
        const res = await placeRegister(h, 'waited-debit.com', {}, undefined).set('Idempotency-Key', 'waited-1');
        expect([res.status, res.headers['retry-after'], res.body]).toEqual([
          503,
          '2',
          {
            error:
              'The database waited too long for another change to finish; try again in a few seconds (an order sent again with its Idempotency-Key is never charged twice)',
          },
        ]);
        expect(await balance()).toBe(before);
        expect(await order('waited-debit.com')).toBeUndefined();
        expect(await domainRow('waited-debit.com')).toBeUndefined();
      } finally {
        await h.module.knex.raw('DROP TRIGGER wait_on_debit');
      }
      const again = await placeRegister(h, 'waited-debit.com').set('Idempotency-Key', 'waited-1');
      expect([again.status, again.body]).toEqual([200, 'success']);
      expect(await order('waited-debit.com')).toMatchObject({ status: 'completed' });
    },
  );

  it('answers "success" once the registrar has renewed, keeps the order pending with its money, and reconciliation completes it once', async () => {
    expect((await placeRegister(h, 'waited-settle.com')).status).toBe(200);
    const expiry = (await domainRow('waited-settle.com')).expiry_date as string;
    await h.module.knex.raw(
      TEST_ENGINE === 'sqlite'
        ? "CREATE TRIGGER wait_on_settle BEFORE UPDATE ON orders WHEN NEW.status = 'completed' AND NEW.domain_name = 'waited-settle.com' BEGIN SELECT RAISE(ABORT, 'database is locked'); END"
        : `CREATE TRIGGER wait_on_settle BEFORE UPDATE ON orders FOR EACH ROW BEGIN IF NEW.status = 'completed' AND NEW.domain_name = 'waited-settle.com' THEN ${LOCK_WAIT_TIMEOUT}; END IF; END`,
    );
    const before = Number(await balance());
    try {
      const res = await h.http
        .post('/order/domains/renew')
        .set(h.headers())
        .type('form')
        .send(form({ domain: 'waited-settle.com', regperiod: '1' }));
      expect([res.status, res.body, res.headers['order-status']]).toEqual([200, 'success', 'pending']);
      expect(await order('waited-settle.com')).toMatchObject({ action: 'renew', status: 'pending' });
      expect(Number(await balance())).toBe(before - 12);
    } finally {
      await h.module.knex.raw('DROP TRIGGER wait_on_settle');
    }
    h.clock.advance(DEADLINE_MS + 1);
    const report = await h.module.reconcile();
    expect(report.completed).toBe(1);
    expect(await order('waited-settle.com')).toMatchObject({ action: 'renew', status: 'completed' });
    expect((await domainRow('waited-settle.com')).expiry_date).toBe(
      `${Number(expiry.slice(0, 4)) + 1}${expiry.slice(4)}`,
    );
    expect(Number(await balance())).toBe(before - 12);
  });
});
