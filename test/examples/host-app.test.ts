import knex, { type Knex } from 'knex';
import qs from 'qs';
import request from 'supertest';
import { computeToken } from '../../src/core/auth/api-token';
import { createHostApp, type HostApp } from '../../examples/host-app/host-app';
import { givenDomain } from '../support/domains';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';
import { REGISTRANT } from '../support/wire';

/** The feed is written by event handlers, which the module does not wait for: look until it shows up. */
async function eventually<T>(read: () => Promise<T[]>, expected: T): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await read()).some((item) => JSON.stringify(item) === JSON.stringify(expected))) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(await read()).toContainEqual(expected);
}

/** The host's own knex connection, made the way a host makes it. */
function hostConnection(url: string): Knex {
  return TEST_ENGINE === 'sqlite'
    ? knex({ client: 'better-sqlite3', connection: { filename: url.slice('sqlite:'.length) }, useNullAsDefault: true })
    : knex({ client: 'mysql2', connection: url });
}

describe('examples/host-app: a host platform embedding the module', () => {
  let database: TestDatabase;
  let db: Knex;
  let host: HostApp;
  let customer: { email: string; apiKey: string };
  const http = () => request(host.app.callback());
  const headers = (who = customer) => ({ username: who.email, token: computeToken(who.email, who.apiKey, new Date()) });

  beforeAll(async () => {
    database = await createTestDatabase();
    db = hostConnection(database.url);
    host = await createHostApp({ db, masterKey: TEST_MASTER_KEY, settings: { logLevel: 'silent' } });
    customer = await host.signUp('shop@host.example');
  });
  afterAll(async () => {
    await host.close();
    // The module left the host's connection open: closing it is the host's business.
    await db.destroy();
    await database.drop();
  });

  it("serves the reseller API under the host's prefix and leaves the host's routes alone", async () => {
    expect((await http().get('/dashboard')).text).toBe('host dashboard');
    expect((await http().get('/reseller-api/tlds').set(headers())).body).toEqual(['.com']);
    expect((await http().get('/reseller-api/healthz')).body).toEqual({ status: 'ok' });
    expect((await http().get('/reseller-api/openapi.json')).body.openapi).toBe('3.1.0');
  });

  it("keeps credit in the host's own table: the API reads the host's balance, and a top-up is an event", async () => {
    await host.topUp(customer.email, 40_00);
    expect((await db('host_customers').where({ email: customer.email }).first()).balance_cents).toEqual(4000);
    expect((await http().get('/reseller-api/billing/credits').set(headers())).body).toBe('40.00');
    // The module's own ledger tables stay empty: the host's ledger replaced them.
    expect(Number((await db('credit_accounts').count({ n: '*' }).first())?.n)).toBe(0);
    await eventually(() => host.activity(), { event: 'credit.changed', summary: 'top_up 40.00, balance 40.00' });
  });

  it("refuses an adjustment the host's balance cannot cover, and changes nothing", async () => {
    const { reseller_id: resellerId } = await db('host_customers').where({ email: customer.email }).first();
    const before = (await http().get('/reseller-api/billing/credits').set(headers())).body;
    await expect(host.reseller.services.credit.adjust(resellerId, -1_000_00, 'too much')).rejects.toMatchObject({
      code: 'insufficient_credit',
    });
    expect((await http().get('/reseller-api/billing/credits').set(headers())).body).toBe(before);
  });

  it("authenticates the host's customers with the keys the host keeps, and honours the host's suspensions", async () => {
    await host.setSuspended(customer.email, true);
    expect((await http().get('/reseller-api/tlds').set(headers())).body).toEqual({
      error: 'This reseller account is suspended',
    });
    await host.setSuspended(customer.email, false);
    expect((await http().get('/reseller-api/tlds').set(headers())).status).toBe(200);
    expect(
      (
        await http()
          .get('/reseller-api/tlds')
          .set(headers({ ...customer, apiKey: 'not-the-key' }))
      ).body,
    ).toEqual({ error: 'Invalid API Token provided' });
  });

  it("pays orders from the host's balance in the order's transaction, and tells the host about each step", async () => {
    const order = (domain: string) =>
      http()
        .post('/reseller-api/order/domains/register')
        .set(headers())
        .type('form')
        .send(
          qs.stringify({
            domain,
            regperiod: '1',
            nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
            contacts: { registrant: REGISTRANT },
          }),
        );
    expect((await order('hosted-order.com')).body).toBe('success');
    expect((await db('host_customers').where({ email: customer.email }).first()).balance_cents).toEqual(28_00);
    await eventually(() => host.activity(), {
      event: 'order.placed',
      summary: 'register hosted-order.com for 1 year(s): 12.00 reserved',
    });
    await eventually(() => host.activity(), { event: 'credit.changed', summary: 'order_debit -12.00, balance 28.00' });
    await eventually(() => host.activity(), {
      event: 'domain.status_changed',
      summary: 'hosted-order.com: new → Pending Registration (order)',
    });
    await eventually(() => host.activity(), {
      event: 'domain.status_changed',
      summary: 'hosted-order.com: Pending Registration → Active (order)',
    });
    await eventually(() => host.activity(), {
      event: 'order.completed',
      summary: `register hosted-order.com done, expires ${new Date().getUTCFullYear() + 1}-${new Date().toISOString().slice(5, 10)}`,
    });

    // The sandbox fails fail- names: the host's balance is refunded in the same transaction as the failure.
    expect((await order('fail-hosted.com')).status).toBe(502);
    expect((await db('host_customers').where({ email: customer.email }).first()).balance_cents).toEqual(28_00);
    await eventually(() => host.activity(), { event: 'credit.changed', summary: 'order_refund 12.00, balance 28.00' });
    const failed = (await host.activity()).find((a) => a.event === 'order.failed');
    expect(failed?.summary).toMatch(
      /^register fail-hosted\.com failed \(refused by the registrar: .*\); 12\.00 refunded$/,
    );
  });

  it('hears about domain status changes through the typed events', async () => {
    await givenDomain(host.reseller, 'hosted-domain.com', { owner: customer.email });
    expect((await http().post('/reseller-api/domains/hosted-domain.com/delete').set(headers())).body).toEqual({
      success: true,
      status: 'Cancelled',
    });
    await eventually(() => host.activity(), {
      event: 'domain.status_changed',
      summary: 'hosted-domain.com: Active → Cancelled (delete)',
    });
  });
});
