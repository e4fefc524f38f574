import path from 'node:path';
import qs from 'qs';
import { cli } from '../support/cli';
import { startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';
import { registerForm } from '../support/wire';

const PLUGINS_DIR = path.join(__dirname, '..', 'fixtures', 'plugins');

const accept = (price: string) => ({ premiumEnabled: '1', premiumCost: price });

/**
 * Premium names (docs/orders.md#premium-names). The scripted registrar (.com/.net) reports
 * `premium-…` names premium at a cost of 500.00 to register, 450.00 to renew, 400.00 to transfer;
 * the group sells them at cost + 20 %. On .org it cannot tell premium names (its answers carry no `isPremium`).
 */
describe('premium names at order time', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ pluginsDir: PLUGINS_DIR, registrar: 'scripted', settings: { registrarTimeoutMs: 200 } });
  });
  afterAll(async () => {
    await h.close();
  });

  const post = (route: string, body: string) => h.http.post(route).set(h.headers()).type('form').send(body);
  const credits = async () => (await h.http.get('/billing/credits').set(h.headers())).body as string;
  const ordersFor = (domain: string) => h.module.services.orders.list({ domain });
  const topUpTo = async (amount: number) => {
    const id = (await h.module.services.resellers.byEmail(h.reseller.email)).id;
    const balance = await h.module.services.credit.balance(id);
    if (balance !== amount) await h.module.services.credit.adjust(id, amount - balance, 'test');
  };

  beforeEach(async () => {
    await h.module.services.catalogue.setPremiumRule('default', { kind: 'markup', basisPoints: 2000 });
    await topUpTo(2000_00);
  });

  describe('POST /order/domains/register', () => {
    it('refuses a premium name sent without premium parameters, naming the price, and charges nothing', async () => {
      const res = await post('/order/domains/register', registerForm('premium-shop.com'));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error:
          'premium-shop.com is a premium name: the registration for 1 year(s) costs 600.00; ' +
          'send premiumEnabled=1 and premiumCost=600.00 to accept it; nothing was charged',
      });
      expect(await credits()).toBe('2000.00');
      expect(await ordersFor('premium-shop.com')).toEqual([]);
    });

    it('refuses a premiumCost below the premium price, and premiumCost without premiumEnabled', async () => {
      const low = await post('/order/domains/register', registerForm('premium-low.com', accept('599.99')));
      expect(low.status).toBe(400);
      expect(low.body.error).toBe(
        'premium-low.com is a premium name: the registration for 1 year(s) costs 600.00, more than the premiumCost ' +
          '599.99 sent; send premiumEnabled=1 and premiumCost=600.00 to accept it; nothing was charged',
      );
      const notEnabled = await post(
        '/order/domains/register',
        registerForm('premium-low.com', { premiumEnabled: '0', premiumCost: '600.00' }),
      );
      expect(notEnabled.status).toBe(400);
      expect(notEnabled.body.error).toMatch(/^premium-low.com is a premium name: the registration .* costs 600.00;/);
      expect(await credits()).toBe('2000.00');
    });

    it('charges the premium price when the request accepts it with premiumEnabled=1 and premiumCost', async () => {
      const res = await post('/order/domains/register', registerForm('premium-yes.com', accept('600.00')));
      expect(res.status).toBe(200);
      expect(res.body).toBe('success');
      expect(await credits()).toBe('1400.00');
      expect(await ordersFor('premium-yes.com')).toEqual([
        expect.objectContaining({ action: 'register', status: 'completed', price: 600_00 }),
      ]);
    });

    it('charges a standard name the catalogue price whatever premium parameters it carries', async () => {
      const res = await post('/order/domains/register', registerForm('ordinary.com', accept('600.00')));
      expect(res.status).toBe(200);
      expect(await credits()).toBe('1990.00');
    });

    it('refuses a price that moved up between the lookup and the order, naming the new price', async () => {
      const lookup = await h.http
        .post('/domains/lookup')
        .set(h.headers())
        .type('form')
        .send('searchTerm=premiumrising-cars.com&premiumEnabled=1');
      expect(lookup.body[0]).toMatchObject({ isPremium: true, premiumCostPricing: { register: '600.00' } });
      // The module sends back the price it was quoted; the registry has since raised its cost to 600.00.
      const stale = await post('/order/domains/register', registerForm('premiumrising-cars.com', accept('600.00')));
      expect(stale.status).toBe(400);
      expect(stale.body.error).toBe(
        'premiumrising-cars.com is a premium name: the registration for 1 year(s) costs 720.00, more than the ' +
          'premiumCost 600.00 sent; send premiumEnabled=1 and premiumCost=720.00 to accept it; nothing was charged',
      );
      expect(await credits()).toBe('2000.00');
      // Accepting up to 1000.00 charges the price of the moment (cost 700.00 + 20 %), not the ceiling sent.
      const ok = await post('/order/domains/register', registerForm('premiumrising-cars.com', accept('1000.00')));
      expect(ok.status).toBe(200);
      expect(await credits()).toBe('1160.00');
    });

    it("asks the registrar about a premium price only once the order's own input is valid", async () => {
      // The scripted registry raises a premiumrising- name's cost by 100.00 each time it is asked.
      const badPeriod = await post(
        '/order/domains/register',
        registerForm('premiumrising-asked.com', { ...accept('6000.00'), regperiod: '3' }),
      );
      expect(badPeriod.status).toBe(400);
      expect(badPeriod.body.error).toBe('regperiod must be one of 1, 2, 5 for register of .com');
      const noRegistrant = await post(
        '/order/domains/register',
        registerForm('premiumrising-asked.com', {
          ...accept('600.00'),
          contacts: { registrant: { firstname: 'Ada' } },
        }),
      );
      expect(noRegistrant.status).toBe(400);
      expect(noRegistrant.body.error).toMatch(/^contacts\.registrant is missing /);
      const badAddon = await post(
        '/order/domains/register',
        registerForm('premiumrising-asked.com', { ...accept('600.00'), addons: { teleport: '1' } }),
      );
      expect(badAddon.status).toBe(400);
      expect(badAddon.body.error).toMatch(/^addons: unknown addon "teleport"/);
      // Asked for the first time now: cost 500.00 + 20 %.
      const ok = await post('/order/domains/register', registerForm('premiumrising-asked.com', accept('600.00')));
      expect(ok.status).toBe(200);
      expect(await credits()).toBe('1400.00');
    });

    it('refuses premium names, even accepted, to a group without a premium rule', async () => {
      await h.module.services.catalogue.setPremiumRule('default', null);
      const res = await post('/order/domains/register', registerForm('premium-norule.com', accept('9999.00')));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'premium-norule.com is a premium name; premium names are not sold to your account; nothing was charged',
      });
      expect(await credits()).toBe('2000.00');
    });

    it('keeps the catalogue price on a registrar that cannot tell premium names (no isPremium in its answers)', async () => {
      const res = await post('/order/domains/register', registerForm('premium-unknown.org'));
      expect(res.status).toBe(200);
      expect(await credits()).toBe('1990.00');
      expect(await ordersFor('premium-unknown.org')).toEqual([expect.objectContaining({ price: 10_00 })]);
    });
  });

  describe('a malformed premium answer is a fault, never a default (issue 26 items 2, 3)', () => {
    it.each([
      ['premiumstring-shop.com', 'isPremium "true", a string'],
      ['premiumone-shop.com', 'isPremium 1, a number'],
      ['premiumzero-shop.com', 'a premium cost of 0.00'],
      ['premiumtwice-shop.com', 'the name listed twice, standard then premium'],
    ])('refuses to sell %s (%s) at any price, and charges nothing', async (domain) => {
      const res = await post('/order/domains/register', registerForm(domain, accept('5000.00')));
      expect(res.status).toBe(502);
      expect(res.body.error).toBe(
        `Could not learn from the registrar whether ${domain} is a premium name ` +
          `(the registrar gave no usable availability answer for ${domain}); nothing was charged`,
      );
      expect(await credits()).toBe('2000.00');
      expect(await ordersFor(domain)).toEqual([]);
    });
  });

  describe('POST /order/domains/renew', () => {
    it("refuses a premium renewal without acceptance, then charges the registry's renewal cost with the rule", async () => {
      expect((await post('/order/domains/register', registerForm('premium-keep.com', accept('600.00')))).status).toBe(
        200,
      );
      await topUpTo(2000_00);
      const refused = await post('/order/domains/renew', qs.stringify({ domain: 'premium-keep.com', regperiod: '2' }));
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe(
        'premium-keep.com is a premium name: the renewal for 2 year(s) costs 1080.00; ' +
          'send premiumEnabled=1 and premiumCost=1080.00 to accept it; nothing was charged',
      );
      expect(await credits()).toBe('2000.00');
      const renewed = await post(
        '/order/domains/renew',
        qs.stringify({ domain: 'premium-keep.com', regperiod: '2', ...accept('1080.00') }),
      );
      expect(renewed.status).toBe(200);
      expect(renewed.body).toBe('success');
      expect(await credits()).toBe('920.00');
    });

    it('asks the registrar about a renewal price only once the renewal period is valid', async () => {
      // Registered at cost 500.00 (the name's first ask); each later ask costs 100.00 more.
      const registered = await post(
        '/order/domains/register',
        registerForm('premiumrising-renew.com', accept('600.00')),
      );
      expect(registered.status).toBe(200);
      await topUpTo(2000_00);
      const badPeriod = await post(
        '/order/domains/renew',
        qs.stringify({ domain: 'premiumrising-renew.com', regperiod: '3', ...accept('5000.00') }),
      );
      expect(badPeriod.status).toBe(400);
      expect(badPeriod.body.error).toBe('regperiod must be one of 1, 2 for renew of .com');
      // The second ask: cost 600.00 + 20 %.
      const renewed = await post(
        '/order/domains/renew',
        qs.stringify({ domain: 'premiumrising-renew.com', regperiod: '1', ...accept('720.00') }),
      );
      expect(renewed.status).toBe(200);
      expect(await credits()).toBe('1280.00');
    });
  });

  describe('a premium name the registrar only reports "registered" (issue 26 item 1)', () => {
    it("prices a renewal through the registrar's price question, not the catalogue", async () => {
      expect((await post('/order/domains/register', registerForm('premium-held.com', accept('600.00')))).status).toBe(
        200,
      );
      await topUpTo(2000_00);
      // What the registry answers for the name now: registered, no premium flag.
      const lookup = await h.http
        .post('/domains/lookup')
        .set(h.headers())
        .type('form')
        .send('searchTerm=premium-held.com&premiumEnabled=1');
      expect(lookup.body[0]).toMatchObject({ isPremium: false });
      const refused = await post('/order/domains/renew', qs.stringify({ domain: 'premium-held.com', regperiod: '1' }));
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(
        /^premium-held.com is a premium name: the renewal for 1 year\(s\) costs 540.00;/,
      );
      const renewed = await post(
        '/order/domains/renew',
        qs.stringify({ domain: 'premium-held.com', regperiod: '1', ...accept('540.00') }),
      );
      expect(renewed.status).toBe(200);
      expect(await credits()).toBe('1460.00');
      expect(
        JSON.parse((await h.module.knex('domains').where({ name: 'premium-held.com' }).first()).premium_costs),
      ).toEqual({ register: 500_00, renew: 450_00, transfer: 400_00 });
      // Premium names are no longer sold to the group: not renewed either, never at the catalogue price.
      await h.module.services.catalogue.setPremiumRule('default', null);
      const noRule = await post(
        '/order/domains/renew',
        qs.stringify({ domain: 'premium-held.com', regperiod: '1', ...accept('540.00') }),
      );
      expect(noRule.status).toBe(400);
      expect(noRule.body.error).toBe(
        'premium-held.com is a premium name; premium names are not sold to your account; nothing was charged',
      );
      expect(await credits()).toBe('1460.00');
    });

    it('prices a transfer in of a premium name registered elsewhere', async () => {
      const form = (extra: Record<string, string> = {}) =>
        registerForm('heldpremium-move.com', { eppcode: 'EPP-1234', ...extra });
      const refused = await post('/order/domains/transfer', form());
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe(
        'heldpremium-move.com is a premium name: the transfer for 1 year(s) costs 480.00; ' +
          'send premiumEnabled=1 and premiumCost=480.00 to accept it; nothing was charged',
      );
      expect(await credits()).toBe('2000.00');
      expect((await post('/order/domains/transfer', form(accept('480.00')))).status).toBe(200);
      expect(await credits()).toBe('1520.00');
      expect(
        JSON.parse((await h.module.knex('domains').where({ name: 'heldpremium-move.com' }).first()).premium_costs),
      ).toEqual({ transfer: 400_00 });
      // The operator sees what the name was sold at.
      const env = { DATABASE_URL: h.databaseUrl, MASTER_KEY: TEST_MASTER_KEY, PLUGINS_DIR, LOG_LEVEL: 'silent' };
      expect((await cli(env, 'domain', 'show', 'heldpremium-move.com')).json()).toMatchObject({
        premiumCosts: { transfer: '400.00' },
      });
    });
  });

  describe('a quote from search honoured without premiumCost (issue 26 item 6)', () => {
    const lookup = (name: string, who = h.reseller) =>
      h.http.post('/domains/lookup').set(h.headers(who)).type('form').send(`searchTerm=${name}&premiumEnabled=1`);
    // The deployed WHMCS module sends premiumEnabled and premiumCost on lookups only, never on RegisterDomain.
    const registerAsWhmcs = (name: string, who = h.reseller) =>
      h.http.post('/order/domains/register').set(h.headers(who)).type('form').send(registerForm(name));

    it('registers a premium name quoted to this reseller, at the current price', async () => {
      expect((await lookup('premium-quoted.com')).body[0]).toMatchObject({
        premiumCostPricing: { register: '600.00' },
      });
      const res = await registerAsWhmcs('premium-quoted.com');
      expect(res.status).toBe(200);
      expect(await credits()).toBe('1400.00');
    });

    it('charges the current price when the registry lowered it, never more than the quote', async () => {
      expect((await lookup('premiumfalling-q.com')).body[0]).toMatchObject({
        premiumCostPricing: { register: '600.00' },
      });
      expect((await registerAsWhmcs('premiumfalling-q.com')).status).toBe(200);
      // Cost 400.00 at order time + 20 %.
      expect(await credits()).toBe('1520.00');
      expect((await lookup('premiumrising-q.com')).body[0]).toMatchObject({
        premiumCostPricing: { register: '600.00' },
      });
      const risen = await registerAsWhmcs('premiumrising-q.com');
      expect(risen.status).toBe(400);
      expect(risen.body.error).toBe(
        'premiumrising-q.com is a premium name: the registration for 1 year(s) costs 720.00, more than the ' +
          '600.00 quoted to you; send premiumEnabled=1 and premiumCost=720.00 to accept it; nothing was charged',
      );
      expect(await credits()).toBe('1520.00');
    });

    it("honours no other reseller's quote, no quote past its lifetime, and keeps the explicit fields", async () => {
      const other = await h.module.services.resellers.create('other-premium@example.com', 'default', 2000_00);
      const otherWho = { email: 'other-premium@example.com', apiKey: other.apiKey };
      await lookup('premium-mine.com');
      expect((await registerAsWhmcs('premium-mine.com', otherWho)).status).toBe(400);
      await lookup('premium-late.com');
      h.clock.advance(24 * 3_600_000);
      try {
        const late = await registerAsWhmcs('premium-late.com');
        expect(late.status).toBe(400);
        expect(late.body.error).toMatch(/^premium-late.com is a premium name: the registration .* costs 600.00; send/);
        // An explicit premiumCost below the price is refused even with a quote.
        await lookup('premium-low2.com');
        const low = await post('/order/domains/register', registerForm('premium-low2.com', accept('500.00')));
        expect(low.status).toBe(400);
      } finally {
        h.clock.advance(-24 * 3_600_000);
      }
      expect(await credits()).toBe('2000.00');
    });
  });

  describe('POST /order/domains/transfer', () => {
    it("refuses a premium transfer without acceptance, then charges the registry's transfer cost with the rule", async () => {
      const form = (extra: Record<string, string> = {}) =>
        registerForm('premium-move.com', { eppcode: 'EPP-1234', ...extra });
      const refused = await post('/order/domains/transfer', form());
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe(
        'premium-move.com is a premium name: the transfer for 1 year(s) costs 480.00; ' +
          'send premiumEnabled=1 and premiumCost=480.00 to accept it; nothing was charged',
      );
      expect(await credits()).toBe('2000.00');
      const moved = await post('/order/domains/transfer', form(accept('480.00')));
      expect(moved.status).toBe(200);
      expect(await credits()).toBe('1520.00');
      expect(await ordersFor('premium-move.com')).toEqual([
        expect.objectContaining({ action: 'transfer', price: 480_00 }),
      ]);
    });
  });
});

describe('premium renewals on a registrar without the price question (issue 26 item 1)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      pluginsDir: PLUGINS_DIR,
      registrar: 'scripted',
      settings: { registrarTimeoutMs: 200, plugins: { scripted: { disabledCapabilities: ['domainPricing'] } } },
    });
    await h.module.services.catalogue.setPremiumRule('default', { kind: 'markup', basisPoints: 2000 });
    const id = (await h.module.services.resellers.byEmail(h.reseller.email)).id;
    await h.module.services.credit.adjust(id, 1900_00, 'test');
  });
  afterAll(async () => {
    await h.close();
  });
  const post = (route: string, body: string) => h.http.post(route).set(h.headers()).type('form').send(body);
  const credits = async () => (await h.http.get('/billing/credits').set(h.headers())).body as string;

  it('refuses to renew a name sold as premium at the catalogue price, and renews a standard one', async () => {
    expect((await post('/order/domains/register', registerForm('premium-kept.com', accept('600.00')))).status).toBe(
      200,
    );
    expect((await post('/order/domains/register', registerForm('plain-kept.com'))).status).toBe(200);
    expect(await credits()).toBe('1390.00');
    const refused = await post(
      '/order/domains/renew',
      qs.stringify({ domain: 'premium-kept.com', regperiod: '1', ...accept('5000.00') }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error:
        'premium-kept.com was sold as a premium name (the registry charged 450.00 a year to renew it then) and ' +
        'its registrar cannot tell the renewal price now; it is not renewed at the catalogue price; nothing was charged',
    });
    expect(await credits()).toBe('1390.00');
    expect(
      (await post('/order/domains/renew', qs.stringify({ domain: 'plain-kept.com', regperiod: '1' }))).status,
    ).toBe(200);
    expect(await credits()).toBe('1378.00');
  });
});
