import qs from 'qs';
import { givenDomain, platformRecord } from '../support/domains';
import { startHarness, type Harness } from '../support/harness';

const NONE = { dnsManagement: false, emailForwarding: false, idProtection: false };
const ALL = { dnsManagement: true, emailForwarding: true, idProtection: true };

/**
 * Priced addons turned on later (docs/orders.md#addons-turned-on-later): a domain registered
 * without a priced addon cannot switch it on through its route; the request is refused naming the
 * price and nothing changes. Bodies are PHP forms, as billing modules send them.
 */
describe('priced addons on a domain registered without them', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.module.services.catalogue.setAddonPrices('default', {
      idprotection: 200,
      dnsmanagement: 100,
      emailforwarding: 50,
    });
    await givenDomain(h.module, 'bare.com', { addons: NONE });
    await givenDomain(h.module, 'bought.com', { addons: ALL, expiryDate: '2027-11-21' });
  });
  afterAll(async () => {
    await h.close();
  });

  const post = (route: string, body: object) =>
    h.http.post(route).set(h.headers()).type('form').send(qs.stringify(body));
  const credits = async () => (await h.http.get('/billing/credits').set(h.headers())).body as string;

  it.each([
    ['/domains/bare.com/protectid', { status: '1' }, 'idprotection', '2.00'],
    [
      '/domains/bare.com/dns',
      { dnsrecords: [{ hostname: 'www', type: 'A', address: '192.0.2.10' }] },
      'dnsmanagement',
      '1.00',
    ],
    ['/domains/bare.com/email', { prefix: ['info'], forwardto: ['me@example.net'] }, 'emailforwarding', '0.50'],
  ])(
    'refuses POST %s with 400 naming the yearly price, changing and charging nothing',
    async (route, body, addon, price) => {
      const before = await credits();
      const res = await post(route, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: `bare.com was not ordered with ${addon}, a paid addon (${price} a year); it is bought with a register or transfer order; nothing was changed`,
      });
      expect(await credits()).toBe(before);
      expect((await platformRecord(h.module, 'bare.com'))?.addons).toEqual(NONE);
    },
  );

  it('still lets a domain without ID protection turn it off', async () => {
    const res = await post('/domains/bare.com/protectid', { status: '0' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, idprotection: false });
  });

  it('serves all three routes for a domain ordered with the addons', async () => {
    expect((await post('/domains/bought.com/protectid', { status: '1' })).status).toBe(200);
    expect(
      (await post('/domains/bought.com/dns', { dnsrecords: [{ hostname: 'www', type: 'A', address: '192.0.2.10' }] }))
        .status,
    ).toBe(200);
    expect((await post('/domains/bought.com/email', { prefix: ['info'], forwardto: ['me@example.net'] })).status).toBe(
      200,
    );
  });

  it('lets any domain use an addon the group does not price', async () => {
    await h.module.services.catalogue.setAddonPrices('default', { idprotection: 0 });
    try {
      const res = await post('/domains/bare.com/protectid', { status: '1' });
      expect(res.status).toBe(200);
      expect((await platformRecord(h.module, 'bare.com'))?.addons.idProtection).toBe(true);
      await post('/domains/bare.com/protectid', { status: '0' });
    } finally {
      await h.module.services.catalogue.setAddonPrices('default', { idprotection: 200 });
    }
  });

  it('renews the addons the domain has, at their yearly prices', async () => {
    expect(await credits()).toBe('100.00');
    const res = await post('/order/domains/renew', { domain: 'bought.com', regperiod: '1' });
    expect(res.status).toBe(200);
    // The renewal price (12.00) plus ID protection 2.00, DNS management 1.00 and email forwarding 0.50.
    expect(await credits()).toBe('84.50');
    expect((await h.module.services.orders.list({ domain: 'bought.com' }))[0]).toMatchObject({
      action: 'renew',
      price: 15_50,
    });
  });

  it('charges a renewal only for the addons the domain has, whatever the request asks for', async () => {
    // A billing module sends the addon flags its own service record holds, which can differ from ours.
    await givenDomain(h.module, 'plain.com', { addons: NONE, expiryDate: '2027-11-21' });
    const before = await credits();
    const res = await post('/order/domains/renew', {
      domain: 'plain.com',
      regperiod: '1',
      addons: { idprotection: '1', dnsmanagement: '1', emailforwarding: '1' },
    });
    expect(res.status).toBe(200);
    expect(Number(before) - Number(await credits())).toBeCloseTo(12, 5);
    expect((await h.module.services.orders.list({ domain: 'plain.com' }))[0]).toMatchObject({
      action: 'renew',
      price: 12_00,
    });
    expect((await platformRecord(h.module, 'plain.com'))?.addons).toEqual(NONE);
  });
});
