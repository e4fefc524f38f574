import path from 'node:path';
import qs from 'qs';
import { givenDomain } from '../support/domains';
import { startHarness, type Harness } from '../support/harness';
import { REGISTRANT } from '../support/wire';

const PLUGINS_DIR = path.join(__dirname, '..', 'fixtures', 'plugins');

const CONTACT_DISPLAY = {
  'First Name': 'Ada',
  'Last Name': 'Lovelace',
  'Email Address': 'Ada@Example.com',
  'Address 1': '1 Analytical Row',
  City: 'London',
  Country: 'gb',
  Postcode: 'N1 1AA',
  'Phone Number': '+44.2070000000',
};

/** A register body as a billing platform's PHP module builds it (http_build_query). */
function registerForm(domain: string, extra: Record<string, unknown> = {}): string {
  return qs.stringify({
    domain,
    regperiod: '1',
    nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net', ns3: '' },
    contacts: { Registrant: CONTACT_DISPLAY },
    ...extra,
  });
}

/** base64 of a PHP serialize()d value written by hand. */
const phpFields = (serialized: string) => Buffer.from(serialized, 'utf8').toString('base64');

describe('order endpoints', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ pluginsDir: PLUGINS_DIR, registrar: 'scripted', settings: { registrarTimeoutMs: 100 } });
  });
  afterAll(async () => {
    await h.close();
  });

  const post = (route: string, body: string | object, headers: Record<string, string> = {}) => {
    const req = h.http.post(route).set({ ...h.headers(), ...headers });
    return typeof body === 'string' ? req.type('form').send(body) : req.send(body);
  };
  const credits = async () => (await h.http.get('/billing/credits').set(h.headers())).body as string;
  const orderOf = async (domain: string) => (await h.module.services.orders.list({ domain }))[0];
  const domainOf = (domain: string) => h.module.knex('domains').where({ name: domain }).first();
  const topUpTo = async (amount: number) => {
    const balance = await h.module.services.credit.balance(
      (await h.module.services.resellers.byEmail(h.reseller.email)).id,
    );
    if (balance !== amount)
      await h.module.services.credit.adjust(
        (await h.module.services.resellers.byEmail(h.reseller.email)).id,
        amount - balance,
        'test',
      );
  };
  const reconcileLater = async () => {
    h.clock.advance(100 + 60_000 + 1);
    return h.module.reconcile();
  };

  beforeEach(async () => {
    await topUpTo(100_00);
  });

  describe('POST /order/domains/register', () => {
    it('registers from a PHP-bracket form with keyed nameservers and display-name contacts', async () => {
      const res = await post('/order/domains/register', registerForm('first.com'));
      expect(res.status).toBe(200);
      expect(res.body).toBe('success');
      expect(await credits()).toBe('90.00');
      expect(await domainOf('first.com')).toMatchObject({
        status: 'Active',
        expiry_date: '2027-11-21',
        registrar: 'scripted',
      });
      const order = await orderOf('first.com');
      expect(order).toMatchObject({ status: 'completed', price: 10_00 });
      expect(order.request).toMatchObject({
        nameservers: ['ns1.example.net', 'ns2.example.net'],
        contacts: { registrant: REGISTRANT },
      });
    });

    it('names a nameserver sent as a list by its own key (ns4), not by its place among those given', async () => {
      const res = await post(
        '/order/domains/register',
        registerForm('ns-list.com', {
          nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net', ns4: ['a', 'b'] },
        }),
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'nameservers: ns4 must be a single host name' });
    });

    it('accepts positional nameservers, lower-case contact roles and fields, and JSON bodies', async () => {
      const form = qs.stringify({
        domain: 'POSITIONAL.com',
        regperiod: '2',
        nameservers: ['NS1.example.net', 'ns2.example.net', 'ns3.example.net'],
        contacts: { registrant: REGISTRANT, tech: { firstname: 'T' } },
      });
      expect((await post('/order/domains/register', form)).status).toBe(200);
      expect((await orderOf('positional.com')).request).toMatchObject({
        nameservers: ['ns1.example.net', 'ns2.example.net', 'ns3.example.net'],
        contacts: { tech: { firstname: 'T' } },
      });
      const json = {
        domain: 'viajson.com',
        regperiod: 1,
        nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
        contacts: { Registrant: REGISTRANT },
      };
      expect((await post('/order/domains/register', json)).status).toBe(200);
      expect(await credits()).toBe('70.50');
    });

    it("falls back to the group's default registrant contact when none is sent", async () => {
      const noContacts = qs.stringify({
        domain: 'defaulted.com',
        regperiod: '1',
        nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
      });
      const refused = await post('/order/domains/register', noContacts);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(/registrant is required/);
      await h.module.services.resellers.setDefaultContact('default', CONTACT_DISPLAY);
      try {
        expect((await post('/order/domains/register', noContacts)).status).toBe(200);
        expect((await orderOf('defaulted.com')).request.contacts?.registrant).toEqual(REGISTRANT);
      } finally {
        await h.module.services.resellers.setDefaultContact('default', null);
      }
    });

    it('names every missing registrant field', async () => {
      const res = await post(
        '/order/domains/register',
        registerForm('incomplete.com', { contacts: { Registrant: { 'First Name': 'Ada', Country: 'XX' } } }),
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(
        'contacts.registrant is missing firstname and lastname (or fullname), email, address1, city, postcode, phonenumber',
      );
    });

    it('decodes domainfields and keeps originalvars and idnLanguage as received', async () => {
      const domainfields = phpFields('a:2:{s:10:"Legal Type";s:10:"Individual";i:0;a:1:{s:4:"für";b:1;}}');
      const originalvars = { sld: 'fields', tld: 'com', userid: '7', extra: { note: 'kept' } };
      const res = await post(
        '/order/domains/register',
        registerForm('fields.com', { domainfields, originalvars, idnLanguage: 'de' }),
      );
      expect(res.status).toBe(200);
      const order = await orderOf('fields.com');
      expect(order.request.fields).toEqual({ 'Legal Type': 'Individual', 0: { für: true } });
      expect(order.request.idnLanguage).toBe('de');
      expect(JSON.parse(order.originalVars!)).toEqual(originalvars);
    });

    it.each([
      ['not base64', '%%%'],
      ['a PHP object', phpFields('O:8:"stdClass":0:{}')],
      ['an object inside the array', phpFields('a:1:{i:0;O:8:"stdClass":0:{}}')],
      ['a reference', phpFields('a:2:{i:0;s:1:"a";i:1;R:2;}')],
      ['a wrong string length', phpFields('a:1:{i:0;s:5:"ab";}')],
      ['trailing garbage', phpFields('a:0:{}junk')],
      ['a scalar at the top', phpFields('s:3:"abc";')],
    ])('refuses domainfields holding %s with 400 and charges nothing', async (_label, domainfields) => {
      const res = await post('/order/domains/register', registerForm('garbage.com', { domainfields }));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^domainfields/);
      expect(await credits()).toBe('100.00');
    });

    it('refuses originalvars over 16 KiB with 400', async () => {
      const res = await post(
        '/order/domains/register',
        registerForm('bigvars.com', { originalvars: { blob: 'x'.repeat(17 * 1024) } }),
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/originalvars is larger than 16 KiB/);
    });

    it.each([
      ['3', 'regperiod must be one of 1, 2, 5 for register of .com'],
      ['0', 'regperiod must be a whole number of years from 1 to 10'],
      ['11', 'regperiod must be a whole number of years from 1 to 10'],
      ['two', 'regperiod must be a whole number of years from 1 to 10'],
    ])('refuses regperiod %s with 400: %s', async (regperiod, message) => {
      const res = await post('/order/domains/register', registerForm('period.com', { regperiod }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: message });
    });

    it.each([
      ['one nameserver', { nameservers: { ns1: 'ns1.example.net' } }, 'nameservers: ns1 and ns2 are required'],
      [
        'a bad host name',
        { nameservers: { ns1: 'ns1.example.net', ns2: 'bad_host' } },
        'nameservers: ns2 "bad_host" is not a valid host name',
      ],
      [
        'an unknown nameserver key',
        { nameservers: { ns1: 'a.example.net', ns9: 'b.example.net' } },
        'nameservers: "ns9" is not a nameserver key; use ns1 to ns5',
      ],
      [
        'an unknown contact type',
        { contacts: { Owner: REGISTRANT } },
        'contacts: "Owner" is not a contact type; use Registrant, Admin, Tech or Billing',
      ],
      [
        'an unknown addon',
        { addons: { parking: '1' } },
        'addons: unknown addon "parking"; addons are dnsmanagement, emailforwarding, idprotection',
      ],
      ['a bad addon flag', { addons: { idprotection: 'maybe' } }, 'addons.idprotection must be true or false'],
      ['a bad idnLanguage', { idnLanguage: '<script>' }, 'idnLanguage must be a language code like de or zh-Hans'],
    ])('refuses %s with 400', async (_label, extra, message) => {
      const res = await post('/order/domains/register', registerForm('invalid.com', extra));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: message });
    });

    it('charges priced addons per year (set by the operator), accepting 1/0 and on/off flags', async () => {
      await h.module.services.catalogue.setAddonPrices('default', { idprotection: 200, emailforwarding: 100 });
      try {
        const res = await post(
          '/order/domains/register',
          registerForm('addons.com', {
            regperiod: '2',
            addons: { idprotection: '1', emailforwarding: 'off', dnsmanagement: 'on' },
          }),
        );
        expect(res.status).toBe(200);
        expect(await credits()).toBe('76.50');
      } finally {
        await h.module.services.catalogue.setAddonPrices('default', { idprotection: 0, emailforwarding: 0 });
      }
    });

    it('answers 400 when the registrar says the name is taken, 502 with its error when it refuses, and refunds both', async () => {
      const taken = await post('/order/domains/register', registerForm('taken-name.com'));
      expect(taken.status).toBe(400);
      expect(taken.body.error).toBe('taken-name.com is not available: taken-name.com is already registered');
      const refused = await post('/order/domains/register', registerForm('refuse-name.com'));
      expect(refused.status).toBe(502);
      expect(refused.body.error).toBe(
        'The registrar refused the registration of refuse-name.com: registry policy: name refused',
      );
      expect(await credits()).toBe('100.00');
    });

    it('answers success for a request the registrar never answers, keeps 10.00 reserved, and reconciliation refunds it', async () => {
      const res = await post('/order/domains/register', registerForm('lost-name.com'));
      expect(res.status).toBe(200);
      expect(res.body).toBe('success');
      expect(await credits()).toBe('90.00');
      expect(await domainOf('lost-name.com')).toMatchObject({ status: 'Pending Registration' });
      const again = await post('/order/domains/register', registerForm('lost-name.com'));
      expect(again.status).toBe(409);
      expect(again.body.error).toBe('An order for lost-name.com is already in progress');
      await reconcileLater();
      expect(await credits()).toBe('100.00');
      // Kept for the reseller as Cancelled, so that sync can tell its billing platform (issue 13 item 3).
      expect(await domainOf('lost-name.com')).toMatchObject({ status: 'Cancelled' });
    });

    it('completes through reconciliation what the registrar did after the deadline or reported pending', async () => {
      expect((await post('/order/domains/register', registerForm('late-name.com'))).status).toBe(200);
      expect((await post('/order/domains/register', registerForm('pending-name.com'))).status).toBe(200);
      expect((await post('/order/domains/register', registerForm('fault-name.com'))).status).toBe(200);
      expect(await credits()).toBe('70.00');
      await reconcileLater();
      expect(await domainOf('late-name.com')).toMatchObject({ status: 'Active' });
      expect(await domainOf('pending-name.com')).toMatchObject({ status: 'Active' });
      expect(await domainOf('fault-name.com')).toMatchObject({ status: 'Cancelled' });
      expect(await credits()).toBe('80.00');
    });

    it('answers the order\'s id and status in Order-Id and Order-Status headers, the body still "success"', async () => {
      const done = await post('/order/domains/register', registerForm('headers-done.com'));
      const pending = await post('/order/domains/register', registerForm('pending-headers.com'));
      expect([done.body, pending.body]).toEqual(['success', 'success']);
      expect(done.headers).toMatchObject({
        'order-id': (await orderOf('headers-done.com')).id,
        'order-status': 'completed',
      });
      expect(pending.headers).toMatchObject({
        'order-id': (await orderOf('pending-headers.com')).id,
        'order-status': 'pending',
      });
    });

    it('sends no order headers with a refusal', async () => {
      const res = await post('/order/domains/register', registerForm('refuse-headers.com'));
      expect(res.status).toBe(502);
      expect(res.headers['order-id']).toBeUndefined();
      expect(res.headers['order-status']).toBeUndefined();
    });

    it('refuses insufficient credit with 400 and the price', async () => {
      await topUpTo(5_00);
      const res = await post('/order/domains/register', registerForm('tooexpensive.com'));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(
        'Insufficient credit: the registration of tooexpensive.com costs 10.00 and the balance is 5.00',
      );
    });
  });

  describe('POST /order/domains/renew', () => {
    it('renews an active domain of the reseller by the period', async () => {
      await post('/order/domains/register', registerForm('renewable.com'));
      const res = await post('/order/domains/renew', qs.stringify({ domain: 'renewable.com', regperiod: '2' }));
      expect(res.status).toBe(200);
      expect(res.body).toBe('success');
      const renewal = (await h.module.services.orders.list({ domain: 'renewable.com' })).find(
        (o) => o.action === 'renew',
      );
      expect(res.headers).toMatchObject({ 'order-id': renewal!.id, 'order-status': 'completed' });
      expect(await domainOf('renewable.com')).toMatchObject({ status: 'Active', expiry_date: '2029-11-21' });
      expect(await credits()).toBe('67.00');
    });

    it('answers 409 for a domain that is not in the account and 400 for one not renewable', async () => {
      const missing = await post('/order/domains/renew', { domain: 'someone-elses.com', regperiod: '1' });
      expect(missing.status).toBe(409);
      expect(missing.body).toEqual({ error: 'The domain someone-elses.com is not in your account' });
      await post('/order/domains/register', registerForm('cancelled.com'));
      await h.module.knex('domains').where({ name: 'cancelled.com' }).update({ status: 'Cancelled' });
      const cancelled = await post('/order/domains/renew', { domain: 'cancelled.com', regperiod: '1' });
      expect(cancelled.status).toBe(400);
    });

    it('refunds a refused renewal with 502', async () => {
      await post('/order/domains/register', registerForm('norenew-x.com'));
      const res = await post('/order/domains/renew', { domain: 'norenew-x.com', regperiod: '1' });
      expect(res.status).toBe(502);
      expect(await credits()).toBe('90.00');
    });
  });

  describe('POST /order/domains/transfer', () => {
    it('requires the eppcode', async () => {
      const res = await post('/order/domains/transfer', registerForm('moving.com'));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'eppcode is required' });
    });

    it('transfers in immediately when the registrar completes at once', async () => {
      const res = await post('/order/domains/transfer', registerForm('movedin.com', { eppcode: 'S3cr3t!' }));
      expect(res.status).toBe(200);
      expect(res.headers).toMatchObject({ 'order-id': (await orderOf('movedin.com')).id, 'order-status': 'completed' });
      expect(await domainOf('movedin.com')).toMatchObject({ status: 'Active' });
      expect(await credits()).toBe('91.00');
    });

    it('keeps an accepted transfer pending until the registry completes or fails it', async () => {
      expect((await post('/order/domains/transfer', registerForm('xferok-a.com', { eppcode: 'code' }))).status).toBe(
        200,
      );
      expect((await post('/order/domains/transfer', registerForm('xferfail-b.com', { eppcode: 'code' }))).status).toBe(
        200,
      );
      expect(await domainOf('xferok-a.com')).toMatchObject({ status: 'Pending Transfer' });
      expect(await credits()).toBe('82.00');
      await reconcileLater();
      expect(await domainOf('xferok-a.com')).toMatchObject({ status: 'Active' });
      expect(await domainOf('xferfail-b.com')).toMatchObject({ status: 'Cancelled' });
      expect((await orderOf('xferfail-b.com')).note).toMatch(/losing registrar rejected/);
      expect(await credits()).toBe('91.00');
    });
  });

  describe('POST /domains/{domain}/transfersync with a transfer order open', () => {
    const transferSync = (domain: string) => post(`/domains/${domain}/transfersync`, { domain });
    /** The events the module publishes about `domain` (or its order's credit) while `during` runs. */
    const eventsDuring = async (domain: string, during: () => Promise<void>) => {
      const orderId = (await orderOf(domain))?.id;
      const seen: string[] = [];
      const off = [
        h.module.on('order.completed', (e) => {
          if (e.domain === domain) seen.push('order.completed');
        }),
        h.module.on('order.refunded', (e) => {
          if (e.domain === domain) seen.push('order.refunded');
        }),
        h.module.on('domain.status_changed', (e) => {
          if (e.domain === domain) seen.push(`domain.status_changed ${e.from}->${e.to} (${e.cause})`);
        }),
        h.module.on('credit.changed', (e) => {
          if (orderId !== undefined && e.orderId === orderId) seen.push(`credit.changed ${e.kind}`);
        }),
      ];
      try {
        await during();
      } finally {
        for (const unsubscribe of off) unsubscribe();
      }
      return seen;
    };

    it('completes the order when the registrar reports the transfer completed: charged once, domain Active with the expiry, events once', async () => {
      expect((await post('/order/domains/transfer', registerForm('xferok-sync.com', { eppcode: 'code' }))).status).toBe(
        200,
      );
      expect(await orderOf('xferok-sync.com')).toMatchObject({ status: 'pending' });
      expect(await credits()).toBe('91.00');
      const events = await eventsDuring('xferok-sync.com', async () => {
        const res = await transferSync('xferok-sync.com');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ completed: true, failed: false, reason: '', expirydate: '2027-11-21' });
      });
      expect(events).toEqual(['order.completed', 'domain.status_changed Pending Transfer->Active (order)']);
      expect(await orderOf('xferok-sync.com')).toMatchObject({
        status: 'completed',
        expiryDate: '2027-11-21',
        note: 'transfer sync: the transfer completed',
        leaseOwner: null,
      });
      expect(await domainOf('xferok-sync.com')).toMatchObject({ status: 'Active', expiry_date: '2027-11-21' });
      expect(await credits()).toBe('91.00');
      // Reconciliation and another transfer sync find nothing left to settle: no second charge, no second event.
      const later = await eventsDuring('xferok-sync.com', async () => {
        const report = await reconcileLater();
        expect(report.orders.filter((o) => o.domain === 'xferok-sync.com')).toEqual([]);
        expect((await transferSync('xferok-sync.com')).body).toMatchObject({ completed: true });
      });
      expect(later).toEqual([]);
      expect(await credits()).toBe('91.00');
    });

    it('fails the order and refunds it exactly once when the registrar reports the transfer failed, once the request has let go of it', async () => {
      expect(
        (await post('/order/domains/transfer', registerForm('xferfail-sync.com', { eppcode: 'code' }))).status,
      ).toBe(200);
      expect(await credits()).toBe('91.00');
      // Within the request path's lease a failure is not refunded yet: the registrar call may still have been in flight.
      const early = await transferSync('xferfail-sync.com');
      expect(early.body).toEqual({
        completed: false,
        failed: true,
        reason: 'the losing registrar rejected the transfer',
      });
      expect(await orderOf('xferfail-sync.com')).toMatchObject({
        status: 'pending',
        note: expect.stringMatching(
          /transfer sync: the transfer failed: the losing registrar rejected the transfer; refunded once the order's lease runs out/,
        ),
      });
      expect(await domainOf('xferfail-sync.com')).toMatchObject({ status: 'Pending Transfer' });
      expect(await credits()).toBe('91.00');

      h.clock.advance(100 + 60_000 + 1);
      const events = await eventsDuring('xferfail-sync.com', async () => {
        const res = await transferSync('xferfail-sync.com');
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ completed: false, failed: true });
      });
      // The row the order created stays, Cancelled, for the reseller (the request had answered success).
      // Refunded after the request had answered: order.refunded, not order.failed.
      expect(events).toEqual([
        'order.refunded',
        'credit.changed order_refund',
        'domain.status_changed Pending Transfer->Cancelled (order)',
      ]);
      expect(await orderOf('xferfail-sync.com')).toMatchObject({
        status: 'failed',
        note: 'transfer sync: the transfer failed: the losing registrar rejected the transfer',
      });
      expect(await domainOf('xferfail-sync.com')).toMatchObject({ status: 'Cancelled' });
      expect(await credits()).toBe('100.00');
      const refunds = await h.module
        .knex('credit_entries')
        .where({ order_id: (await orderOf('xferfail-sync.com')).id, kind: 'order_refund' });
      expect(refunds).toHaveLength(1);
      // Nothing left for reconciliation; another transfer sync answers "failed" from our record, asking no registrar.
      const report = await reconcileLater();
      expect(report.orders.filter((o) => o.domain === 'xferfail-sync.com')).toEqual([]);
      const after = await transferSync('xferfail-sync.com');
      expect(after.status).toBe(200);
      expect(after.body).toEqual({
        completed: false,
        failed: true,
        reason: 'xferfail-sync.com is Cancelled on this platform; the transfer did not take effect here',
      });
      expect(await credits()).toBe('100.00');
    });

    it('settles once when transfer sync and reconciliation run at the same moment', async () => {
      expect((await post('/order/domains/transfer', registerForm('xferok-race.com', { eppcode: 'code' }))).status).toBe(
        200,
      );
      expect(
        (await post('/order/domains/transfer', registerForm('xferfail-race.com', { eppcode: 'code' }))).status,
      ).toBe(200);
      expect(await credits()).toBe('82.00');
      h.clock.advance(100 + 60_000 + 1);
      const settled: string[] = [];
      const offCompleted = h.module.on('order.completed', (e) => {
        if (e.domain.endsWith('-race.com')) settled.push(`completed ${e.domain}`);
      });
      const offFailed = h.module.on('order.refunded', (e) => {
        if (e.domain.endsWith('-race.com')) settled.push(`failed ${e.domain}`);
      });
      try {
        const [ok, fail, reports] = await Promise.all([
          transferSync('xferok-race.com'),
          transferSync('xferfail-race.com'),
          Promise.all([h.module.reconcile(), h.module.reconcile()]),
        ]);
        expect(ok.body).toMatchObject({ completed: true });
        // Reconciliation may have refunded it (and removed the row) before transfer sync looked the domain up.
        expect(fail.status === 409 ? fail.body : fail.body.failed).toEqual(
          fail.status === 409 ? { error: 'The domain xferfail-race.com is not in your account' } : true,
        );
        const reconciled = reports
          .flatMap((r) => r.orders)
          .filter((o) => o.domain.endsWith('-race.com'))
          .map((o) => o.result);
        expect(reconciled.every((result) => result === 'completed' || result === 'refunded')).toBe(true);
      } finally {
        offCompleted();
        offFailed();
      }
      expect(settled.sort()).toEqual(['completed xferok-race.com', 'failed xferfail-race.com']);
      expect(await orderOf('xferok-race.com')).toMatchObject({ status: 'completed' });
      expect(await orderOf('xferfail-race.com')).toMatchObject({ status: 'failed' });
      expect(await credits()).toBe('91.00');
    });

    it('records the outcome on the domain alone when it has no open order, as before', async () => {
      const scripted = h.module.registrars.get('scripted');
      const ctx = { signal: new AbortController().signal, transactionId: 't' };
      const input = { period: 1, nameservers: [], contacts: {}, addons: {}, fields: {}, eppCode: 'code' };
      await scripted.transfer!.transfer({ ...input, domain: 'xferok-noorder.com' }, ctx);
      await scripted.transfer!.transfer({ ...input, domain: 'xferfail-noorder.com' }, ctx);
      await givenDomain(h.module, 'xferok-noorder.com', {
        registrar: 'scripted',
        atRegistrar: false,
        status: 'Pending Transfer',
      });
      await givenDomain(h.module, 'xferfail-noorder.com', {
        registrar: 'scripted',
        atRegistrar: false,
        status: 'Pending Transfer',
      });
      const events = await eventsDuring('xferok-noorder.com', async () => {
        expect((await transferSync('xferok-noorder.com')).body).toMatchObject({
          completed: true,
          expirydate: '2027-11-21',
        });
      });
      expect(events).toEqual(['domain.status_changed Pending Transfer->Active (transfer_sync)']);
      expect(await domainOf('xferok-noorder.com')).toMatchObject({ status: 'Active', expiry_date: '2027-11-21' });
      expect((await transferSync('xferfail-noorder.com')).body).toMatchObject({ failed: true });
      expect(await domainOf('xferfail-noorder.com')).toMatchObject({ status: 'Pending Transfer' });
      expect(await h.module.services.orders.list({ domain: 'xferok-noorder.com' })).toEqual([]);
      expect(await credits()).toBe('100.00');
    });
  });

  describe('Idempotency-Key header', () => {
    it('replays the first answer without a second charge; another body with the key is a 422', async () => {
      const key = { 'Idempotency-Key': 'a1b2c3d4-0000-4000-8000-000000000001' };
      const first = await post('/order/domains/register', registerForm('idem-http.com'), key);
      const second = await post('/order/domains/register', registerForm('idem-http.com'), key);
      expect([first.status, first.body, second.status, second.body]).toEqual([200, 'success', 200, 'success']);
      expect(await credits()).toBe('90.00');
      expect(first.headers['order-id']).toBe((await orderOf('idem-http.com')).id);
      expect([second.headers['order-id'], second.headers['order-status']]).toEqual([
        first.headers['order-id'],
        'completed',
      ]);
      const other = await post('/order/domains/register', registerForm('idem-other.com'), key);
      expect(other.status).toBe(422);
      expect(other.body.error).toMatch(/already used for a different request/);
    });

    it('replays a refusal with its status', async () => {
      const key = { 'Idempotency-Key': 'refusal-key' };
      const first = await post('/order/domains/register', registerForm('refuse-idem.com'), key);
      const second = await post('/order/domains/register', registerForm('refuse-idem.com'), key);
      expect(first.status).toBe(502);
      expect([second.status, second.body]).toEqual([first.status, first.body]);
      expect(second.headers['order-id']).toBeUndefined();
    });

    it('treats keyed and positional nameservers as the same request', async () => {
      const key = { 'Idempotency-Key': 'same-request' };
      const keyed = registerForm('encodings.com');
      const positional = registerForm('encodings.com', { nameservers: ['ns1.example.net', 'ns2.example.net'] });
      expect((await post('/order/domains/register', keyed, key)).status).toBe(200);
      expect((await post('/order/domains/register', positional, key)).status).toBe(200);
      expect(await credits()).toBe('90.00');
    });
  });

  describe('under concurrency', () => {
    it('lets exactly 9 of 30 concurrent 10.00 registrations through on 90.00', async () => {
      await topUpTo(90_00);
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, i) => post('/order/domains/register', registerForm(`crowd-${i}.com`))),
      );
      expect(responses.filter((r) => r.status === 200)).toHaveLength(9);
      expect(responses.filter((r) => r.status === 400).every((r) => /^Insufficient credit/.test(r.body.error))).toBe(
        true,
      );
      expect(responses.filter((r) => r.status === 400)).toHaveLength(21);
      expect(await credits()).toBe('0.00');
    });

    it('places one order and one charge for 10 concurrent registrations of one name', async () => {
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => post('/order/domains/register', registerForm('one-name.com'))),
      );
      expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
      expect(responses.every((r) => [200, 400, 409].includes(r.status))).toBe(true);
      expect(await h.module.services.orders.list({ domain: 'one-name.com' })).toHaveLength(1);
      expect(await credits()).toBe('90.00');
    });
  });
});
