import { startHarness, type Harness } from '../support/harness';
import { form, registerForm } from '../support/wire';

const DEADLINE_MS = 250;

/**
 * Issue 16 and issue 13 item 3, as a WHMCS module sends them (PHP-style form bodies): a domain
 * whose order is still pending cannot be changed or handed away, transfers the registrar never
 * received end in a refund, and a refunded order's domain stays in the reseller's account as
 * Cancelled so that sync can say so.
 */
describe('domains whose order is still pending, and orders that never took effect', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ settings: { registrarTimeoutMs: DEADLINE_MS } });
  });
  afterAll(async () => {
    await h.close();
  });

  const post = (path: string, body: Record<string, unknown>) =>
    h.http.post(path).set(h.headers()).type('form').send(form(body));
  const order = (path: string, domain: string, extra: Record<string, unknown> = {}) =>
    h.http.post(path).set(h.headers()).type('form').send(registerForm(domain, extra));
  const register = (domain: string) => order('/order/domains/register', domain);
  const transfer = (domain: string) => order('/order/domains/transfer', domain, { eppcode: 'secret-code' });
  const credits = async () => (await h.http.get('/billing/credits').set(h.headers())).body as string;
  const domainRow = (domain: string) => h.module.knex('domains').where({ name: domain }).first();
  const orderOf = async (domain: string) => (await h.module.services.orders.list({ domain }))[0];
  const reconcileLater = () => {
    h.clock.advance(DEADLINE_MS + 60_000 + 1);
    return h.module.reconcile();
  };
  /** Every route that changes the domain or hands it away, as a module calls it. */
  const actions = (domain: string) => ({
    eppcode: () => h.http.get(`/domains/${domain}/eppcode`).set(h.headers()),
    release: () => post(`/domains/${domain}/release`, { transfertag: 'NEW-TAG' }),
    delete: () => post(`/domains/${domain}/delete`, {}),
    lock: () => post(`/domains/${domain}/lock`, { lockstatus: 'unlocked' }),
    nameservers: () => post(`/domains/${domain}/nameservers`, { ns1: 'ns3.example.net', ns2: 'ns4.example.net' }),
    contact: () => post(`/domains/${domain}/contact`, { contactdetails: { Registrant: { 'First Name': 'Eve' } } }),
    protectid: () => post(`/domains/${domain}/protectid`, { status: '1' }),
    renew: () => post('/order/domains/renew', { domain, regperiod: '1' }),
  });

  describe('while a registration is pending', () => {
    it('answers 409 to every action that changes the domain or hands it away, and the order then completes', async () => {
      const before = await credits();
      expect((await register('slow-pending.com')).status).toBe(200);
      expect(await orderOf('slow-pending.com')).toMatchObject({ status: 'pending' });
      for (const [name, act] of Object.entries(actions('slow-pending.com'))) {
        const res = await act();
        expect({ name, status: res.status, body: res.body }).toEqual({
          name,
          status: 409,
          body: { error: 'An order for slow-pending.com is already in progress' },
        });
      }
      const report = await reconcileLater();
      expect(report.orders.filter((o) => o.domain === 'slow-pending.com').map((o) => o.result)).toEqual(['completed']);
      expect(await domainRow('slow-pending.com')).toMatchObject({ status: 'Active' });
      expect(Number(before) - Number(await credits())).toBe(10);
    });

    it('lets the domain be acted on once its order has completed', async () => {
      expect((await register('slow-settled.com')).status).toBe(200);
      expect((await actions('slow-settled.com').lock()).status).toBe(409);
      await reconcileLater();
      expect(await orderOf('slow-settled.com')).toMatchObject({ status: 'completed' });
      expect((await actions('slow-settled.com').lock()).status).toBe(200);
      expect((await actions('slow-settled.com').eppcode()).status).toBe(200);
    });
  });

  describe('while a renewal is pending', () => {
    it('refuses release and delete, and the renewal then completes and is charged', async () => {
      expect((await register('slow-renewing.com')).status).toBe(200);
      await reconcileLater();
      expect(await domainRow('slow-renewing.com')).toMatchObject({ status: 'Active', expiry_date: '2027-11-21' });
      const before = await credits();
      expect((await actions('slow-renewing.com').renew()).status).toBe(200);
      expect(await orderOf('slow-renewing.com')).toMatchObject({ action: 'renew', status: 'pending' });
      for (const act of [actions('slow-renewing.com').release, actions('slow-renewing.com').delete]) {
        const res = await act();
        expect(res.status).toBe(409);
        expect(res.body).toEqual({ error: 'An order for slow-renewing.com is already in progress' });
      }
      await reconcileLater();
      expect(await orderOf('slow-renewing.com')).toMatchObject({ action: 'renew', status: 'completed' });
      expect(await domainRow('slow-renewing.com')).toMatchObject({ status: 'Active', expiry_date: '2028-11-21' });
      expect(Number(before) - Number(await credits())).toBe(12);
    });
  });

  describe('a registration that never took effect (issue 13 item 3)', () => {
    it('keeps the refunded domain as Cancelled, answers sync with cancelled, and refuses every other action', async () => {
      const before = await credits();
      expect((await register('lost-never.com')).status).toBe(200);
      const report = await reconcileLater();
      expect(report.orders.filter((o) => o.domain === 'lost-never.com').map((o) => o.result)).toEqual(['refunded']);
      expect(await credits()).toBe(before);
      expect(await domainRow('lost-never.com')).toMatchObject({ status: 'Cancelled' });

      const sync = await post('/domains/lost-never.com/sync', { domain: 'lost-never.com' });
      expect(sync.status).toBe(200);
      expect(sync.body).toEqual({ active: false, expired: false, transferredAway: false, cancelled: true });

      const information = await h.http.get('/domains/lost-never.com/information').set(h.headers());
      expect(information.status).toBe(200);
      expect(information.body).toMatchObject({
        domain: 'lost-never.com',
        status: 'Cancelled',
        registrationStatus: 'Cancelled',
      });

      for (const [name, act] of Object.entries(actions('lost-never.com'))) {
        const res = await act();
        // A renewal is refused as every renewal of a domain that is not Active, Expired or Grace.
        expect({ name, status: res.status }).toEqual({ name, status: name === 'renew' ? 400 : 409 });
        expect(res.body.error).toMatch(/lost-never\.com is Cancelled/);
      }
      expect(await credits()).toBe(before);
    });

    it('lets a new order for the name replace the cancelled record', async () => {
      const res = await register('lost-never.com');
      expect(res.status).toBe(200);
      expect(await domainRow('lost-never.com')).toMatchObject({ status: 'Pending Registration' });
      await reconcileLater();
      expect(await domainRow('lost-never.com')).toMatchObject({ status: 'Cancelled' });
    });
  });

  describe('a transfer the registrar never received (issue 16 part 2)', () => {
    it('refunds it once the lease has run out and the registrar says it has no transfer, and keeps it as Cancelled', async () => {
      const before = await credits();
      const res = await transfer('lost-transfer.com');
      expect(res.status).toBe(200);
      expect(res.body).toBe('success');
      expect(Number(before) - Number(await credits())).toBe(9);
      expect(await domainRow('lost-transfer.com')).toMatchObject({ status: 'Pending Transfer' });

      const report = await reconcileLater();
      expect(report.orders.filter((o) => o.domain === 'lost-transfer.com')).toEqual([
        expect.objectContaining({ result: 'refunded' }),
      ]);
      expect(await orderOf('lost-transfer.com')).toMatchObject({ status: 'failed' });
      expect(await credits()).toBe(before);
      expect(await domainRow('lost-transfer.com')).toMatchObject({ status: 'Cancelled' });
      // The billing module's TransferSync learns the transfer failed, from our record.
      const sync = await post('/domains/lost-transfer.com/transfersync', { domain: 'lost-transfer.com' });
      expect(sync.status).toBe(200);
      expect(sync.body).toEqual({
        completed: false,
        failed: true,
        reason: 'lost-transfer.com is Cancelled on this platform; the transfer did not take effect here',
      });

      // Nothing is pending any more: a later pass has nothing to ask about it.
      const again = await reconcileLater();
      expect(again.orders.filter((o) => o.domain === 'lost-transfer.com')).toEqual([]);
      expect(await credits()).toBe(before);
    });

    it('lets another order for the name go ahead afterwards', async () => {
      const res = await register('lost-transfer.com');
      expect(res.status).toBe(200);
      expect(await orderOf('lost-transfer.com')).toMatchObject({ action: 'register', status: 'pending' });
    });
  });
});
