import qs from 'qs';
import { startHarness, type Harness } from '../support/harness';
import { REGISTRANT, placeRegister } from '../support/wire';

const DEADLINE_MS = 250;

/** The sandbox registrar's test names drive every failure case end to end (docs/plugins.md). */
describe('orders against the sandbox registrar and its test names', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ settings: { registrarTimeoutMs: DEADLINE_MS } });
  });
  afterAll(async () => {
    await h.close();
  });

  const register = (domain: string) => placeRegister(h, domain);
  const credits = async () => (await h.http.get('/billing/credits').set(h.headers())).body as string;
  const domainRow = (domain: string) => h.module.knex('domains').where({ name: domain }).first();
  const order = async (domain: string) => (await h.module.services.orders.list({ domain }))[0];
  const reconcileLater = () => {
    h.clock.advance(DEADLINE_MS + 60_000 + 1);
    return h.module.reconcile();
  };
  let before: string;
  beforeEach(async () => {
    before = await credits();
  });
  const spent = async () => ((Number(before) * 100 - Number(await credits()) * 100) / 100).toFixed(2);

  it('registers an ordinary name, debits the price and activates the domain', async () => {
    const res = await register('plain-name.com');
    expect(res.status).toBe(200);
    expect(res.body).toBe('success');
    expect(await spent()).toBe('10.00');
    expect(await domainRow('plain-name.com')).toMatchObject({ status: 'Active', expiry_date: '2027-11-21' });
    expect(await order('plain-name.com')).toMatchObject({ status: 'completed' });
  });

  it('refuses a taken- name as not available and charges nothing', async () => {
    const res = await register('taken-name.com');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/taken-name\.com/);
    expect(await spent()).toBe('0.00');
    expect(await domainRow('taken-name.com')).toBeUndefined();
  });

  it("answers a fail- name with the registrar's error and refunds in full", async () => {
    const res = await register('fail-name.com');
    expect(res.status).toBe(502);
    expect(res.body.error).toMatch(/Sandbox registry error/);
    expect(await spent()).toBe('0.00');
    expect(await order('fail-name.com')).toMatchObject({ status: 'failed' });
  });

  it('keeps the money reserved for a slow- name and completes it at reconciliation, charging once', async () => {
    const res = await register('slow-name.com');
    expect(res.status).toBe(200);
    expect(res.body).toBe('success');
    expect(await spent()).toBe('10.00');
    expect(await domainRow('slow-name.com')).toMatchObject({ status: 'Pending Registration' });
    const report = await reconcileLater();
    expect(report.completed).toBeGreaterThanOrEqual(1);
    expect(await domainRow('slow-name.com')).toMatchObject({ status: 'Active' });
    expect(await order('slow-name.com')).toMatchObject({ status: 'completed' });
    expect(await spent()).toBe('10.00');
  });

  it('refunds a lost- name exactly once at reconciliation', async () => {
    expect((await register('lost-name.com')).status).toBe(200);
    expect(await spent()).toBe('10.00');
    await reconcileLater();
    await reconcileLater();
    expect(await order('lost-name.com')).toMatchObject({ status: 'failed' });
    expect(await spent()).toBe('0.00');
    expect(await domainRow('lost-name.com')).toMatchObject({ status: 'Cancelled' });
  });

  it('renews an active domain and moves its expiry by the period', async () => {
    await register('renew-me.com');
    before = await credits();
    const res = await h.http
      .post('/order/domains/renew')
      .set(h.headers())
      .type('form')
      .send({ domain: 'renew-me.com', regperiod: '2' });
    expect(res.status).toBe(200);
    expect(await spent()).toBe('23.00');
    expect(await domainRow('renew-me.com')).toMatchObject({ status: 'Active', expiry_date: '2029-11-21' });
  });

  it('renews a premium- name at its premium renewal price, which availability no longer tells (issue 26 item 1)', async () => {
    await h.module.services.catalogue.setPremiumRule('default', { kind: 'markup', basisPoints: 0 });
    const id = (await h.module.services.resellers.byEmail(h.reseller.email)).id;
    await h.module.services.credit.adjust(id, 1000_00, 'premium test');
    try {
      const accept = { premiumEnabled: '1', premiumCost: '500.00' };
      const body = qs.parse(
        qs.stringify({
          domain: 'premium-sandbox.com',
          regperiod: '1',
          nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
          contacts: { registrant: REGISTRANT },
          ...accept,
        }),
      );
      const post = (route: string, form: object) =>
        h.http.post(route).set(h.headers()).type('form').send(qs.stringify(form));
      expect((await post('/order/domains/register', body)).status).toBe(200);
      const start = await credits();
      const refused = await post('/order/domains/renew', { domain: 'premium-sandbox.com', regperiod: '1' });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(
        /^premium-sandbox.com is a premium name: the renewal for 1 year\(s\) costs 500.00;/,
      );
      expect(
        (await post('/order/domains/renew', { domain: 'premium-sandbox.com', regperiod: '1', ...accept })).status,
      ).toBe(200);
      expect(Number(start) - Number(await credits())).toBe(500);
    } finally {
      await h.module.services.catalogue.setPremiumRule('default', null);
    }
  });

  it('transfers a name in with its EPP code and completes it at transfer sync', async () => {
    const res = await h.http
      .post('/order/domains/transfer')
      .set(h.headers())
      .type('form')
      .send(
        qs.stringify({
          domain: 'taken-moving.com',
          regperiod: '1',
          eppcode: 'secret-code',
          nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
          contacts: { registrant: REGISTRANT },
        }),
      );
    expect(res.status).toBe(200);
    expect(await spent()).toBe('9.00');
    expect(await domainRow('taken-moving.com')).toMatchObject({ status: 'Pending Transfer' });
    const sync = await h.http
      .post('/domains/taken-moving.com/transfersync')
      .set(h.headers())
      .type('form')
      .send({ domain: 'taken-moving.com' });
    expect(sync.status).toBe(200);
    expect(sync.body).toMatchObject({ completed: true, failed: false });
    // Transfer sync settles the open order itself: completed, the reservation kept as the charge.
    expect(await domainRow('taken-moving.com')).toMatchObject({ status: 'Active', expiry_date: '2027-11-21' });
    expect(await order('taken-moving.com')).toMatchObject({
      status: 'completed',
      note: 'transfer sync: the transfer completed',
    });
    await reconcileLater();
    expect(await order('taken-moving.com')).toMatchObject({
      status: 'completed',
      note: 'transfer sync: the transfer completed',
    });
    expect(await spent()).toBe('9.00');
  });

  it('never lets two concurrent registers of one name both charge', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => register('one-winner.com')));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 200).every((r) => [400, 409].includes(r.status))).toBe(true);
    expect(await spent()).toBe('10.00');
  });
});
