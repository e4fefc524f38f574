import type { MemoryUnitOfWork } from '../../../../src/infra/repositories/memory/memory-unit-of-work';
import { type OrderCore, refusal, registration, startMemoryOrderBench } from '../../../support/order-bench';
import { REGISTRANT } from '../../../support/wire';

/**
 * Planning an order (src/core/order/order-plan.ts): prices, periods, addons, premium names and
 * contacts, worked out before any money moves. On the memory twin of the unit of work, so these
 * rules run without a database; test/integration/order-money-flow.test.ts proves the same order
 * path on SQLite and MariaDB, and test/integration/unit-of-work-contract.test.ts that the twin
 * refuses what the database refuses.
 */
describe('planning an order', () => {
  let b: OrderCore<MemoryUnitOfWork>;
  beforeEach(async () => {
    b = await startMemoryOrderBench();
  });
  afterEach(async () => {
    await b.close();
  });

  const orderFor = async (name: string) => (await b.orders.list({ domain: name }))[0];

  describe('catalogue prices', () => {
    it('charges enabled addons per year at the group price, and addons without a price are free', async () => {
      const r = await b.newReseller(10_000);
      await b.catalogue.setAddonPrices('default', { idprotection: 150 });
      await b.orders.register(
        r,
        registration('addons.com', {
          period: 2,
          addons: { idprotection: true, dnsmanagement: true, emailforwarding: false },
        }),
      );
      expect(await orderFor('addons.com')).toMatchObject({
        price: 1_950 + 2 * 150,
        request: expect.objectContaining({ addons: ['dnsmanagement', 'idprotection'] }),
      });
      expect(await b.balance(r)).toBe(10_000 - 2_250);
    });

    it('refuses an unknown addon before anything is asked or charged', async () => {
      const r = await b.newReseller(10_000);
      const error = await refusal(
        b.orders.register(r, registration('unknown-addon.com', { addons: { parking: true } })),
      );
      expect(error).toMatchObject({
        code: 'validation_failed',
        message: expect.stringMatching(/unknown addon "parking"/),
      });
      expect(b.fake.callsFor('unknown-addon.com')).toBe(0);
      expect(await b.balance(r)).toBe(10_000);
    });

    it('refuses an unpriced period with the allowed ones, and an action the TLD does not offer', async () => {
      const r = await b.newReseller(10_000);
      const error = await refusal(b.orders.register(r, registration('period.com', { period: 3 })));
      expect(error).toMatchObject({
        code: 'validation_failed',
        message: 'regperiod must be one of 1, 2 for register of .com',
      });
      const transfer = await refusal(b.orders.transfer(r, { ...registration('moving.net'), eppCode: 'x' }));
      expect(transfer).toMatchObject({ code: 'not_offered', message: 'transfer is not offered for .net' });
    });

    it('refuses, without charging, a TLD whose registrar plugin is no longer installed', async () => {
      const r = await b.newReseller(10_000);
      const group = await b.resellers.group('default');
      await b.uow.run(async ({ catalogue }) => {
        await catalogue.upsertTld({
          tld: '.gone',
          registrar: 'removed-plugin',
          minLength: 1,
          maxLength: 63,
          graceDays: 0,
          redemptionDays: 0,
        });
        await catalogue.replacePrices(group.id, '.gone', 'register', new Map([[1, 500]]));
      });
      const error = await refusal(b.orders.register(r, registration('orphan.gone')));
      expect(error).toMatchObject({
        code: 'registrar_failed',
        message: 'The registrar for orphan.gone is not available at the moment; nothing was charged',
      });
      expect(await b.balance(r)).toBe(10_000);
      expect(await b.orders.list({ domain: 'orphan.gone' })).toEqual([]);
    });
  });

  describe('contacts', () => {
    it('uses the group default registrant when the order carries none, and refuses without one', async () => {
      const r = await b.newReseller(10_000);
      expect((await refusal(b.orders.register(r, registration('nocontact.com', { contacts: {} })))).message).toMatch(
        /registrant is required/,
      );
      await b.resellers.setDefaultContact('default', { ...REGISTRANT, firstname: 'Grace', country: 'us' });
      await b.orders.register(r, registration('defaultcontact.com', { contacts: {} }));
      expect((await orderFor('defaultcontact.com')).request.contacts?.registrant).toMatchObject({
        firstname: 'Grace',
        country: 'US',
        email: REGISTRANT.email,
      });
    });
  });

  describe('renewals', () => {
    it('answers not_owned for a domain not in the account, whoever holds it, and refuses one not renewable', async () => {
      const owner = await b.newReseller(10_000);
      const other = await b.newReseller(10_000);
      await b.orders.register(owner, registration('mine.com'));
      const renew = (who: typeof owner, domain: string) =>
        refusal(b.orders.renew(who, { domain, period: 1, addons: {} }));
      expect((await renew(other, 'mine.com')).code).toBe('not_owned');
      expect((await renew(other, 'nobodys.com')).code).toBe('not_owned');
      const mine = (await b.uow.read.domains.findByName('mine.com'))!;
      await b.uow.run(({ domains }) => domains.update(mine.id, { status: 'Redemption' }, b.clock.now()));
      expect(await renew(owner, 'mine.com')).toMatchObject({
        code: 'validation_failed',
        message: 'mine.com is Redemption; only Active, Expired or Grace domains can be renewed',
      });
      expect(await b.balance(other)).toBe(10_000);
    });
  });

  describe('premium names (docs/orders.md#premium-names)', () => {
    beforeEach(() => {
      b.fake.premiumNames.set('gold.com', { register: 333, renew: 300, transfer: 250 });
    });

    it('prices a premium registration by the group markup, rounded up to the minor unit, for each year', async () => {
      const r = await b.newReseller(10_000);
      await b.catalogue.setPremiumRule('default', { kind: 'markup', basisPoints: 1_500 });
      await b.catalogue.setAddonPrices('default', { idprotection: 150 });
      b.fake.premiumNames.set('gold.com', { register: 334, renew: 300, transfer: 250 });
      // 334 plus 15 % is 384.10: 385 a year, never a fraction of a minor unit, never rounded down.
      const total = 2 * 385 + 2 * 150;
      await b.orders.register(
        r,
        registration('gold.com', { period: 2, premiumCost: total, addons: { idprotection: true } }),
      );
      expect(await orderFor('gold.com')).toMatchObject({ price: total, status: 'completed' });
      expect(await b.balance(r)).toBe(10_000 - total);
      expect((await b.uow.read.domains.findByName('gold.com'))?.premiumCosts).toEqual({
        register: 334,
        renew: 300,
        transfer: 250,
      });
    });

    it('sells a premium name at the price of its cost band, and not at all above the last band', async () => {
      const r = await b.newReseller(10_000);
      await b.catalogue.setPremiumRule('default', { kind: 'table', bands: [{ upTo: 400, price: 900 }] });
      await b.orders.register(r, registration('gold.com', { premiumCost: 900 }));
      expect(await orderFor('gold.com')).toMatchObject({ price: 900 });
      b.fake.premiumNames.set('platinum.com', { register: 401 });
      expect(await refusal(b.orders.register(r, registration('platinum.com', { premiumCost: 10_000 })))).toMatchObject({
        code: 'not_offered',
        message: expect.stringMatching(/has no premium registration price for your account/),
      });
      expect(await b.balance(r)).toBe(10_000 - 900);
    });

    it('holds a reseller to the price quoted to it, charging the current one when it is not higher', async () => {
      const r = await b.newReseller(10_000);
      const other = await b.newReseller(10_000);
      await b.catalogue.setPremiumRule('default', { kind: 'markup', basisPoints: 0 });
      const quote = (resellerId: string, price: number) => ({
        resellerId,
        domain: 'gold.com',
        action: 'register' as const,
        price,
        quotedAt: b.clock.now(),
        expiresAt: new Date(b.clock.now().getTime() + 3_600_000),
      });
      await b.uow.run(({ catalogue }) => catalogue.savePremiumQuotes([quote(r.id, 350), quote(other.id, 300)]));
      // Quoted 3.00, the price is now 3.33: refused without premiumCost, naming both.
      expect(await refusal(b.orders.register(other, registration('gold.com')))).toMatchObject({
        code: 'validation_failed',
        message: expect.stringMatching(/costs 3\.33, more than the 3\.00 quoted to you/),
      });
      await b.orders.register(r, registration('gold.com'));
      expect(await orderFor('gold.com')).toMatchObject({ resellerId: r.id, price: 333 });
      expect(await b.balance(other)).toBe(10_000);
    });

    it('refuses to renew a name sold as premium when its registrar can no longer tell the price', async () => {
      const r = await b.newReseller(10_000);
      await b.catalogue.setPremiumRule('default', { kind: 'markup', basisPoints: 0 });
      await b.orders.register(r, registration('gold.com', { premiumCost: 333 }));
      b.fake.premiumNames.delete('gold.com');
      expect(await refusal(b.orders.renew(r, { domain: 'gold.com', period: 1, addons: {} }))).toMatchObject({
        code: 'not_offered',
        message: expect.stringMatching(
          /was sold as a premium name \(the registry charged 3\.00 a year to renew it then\)/,
        ),
      });
      expect(b.fake.calls.filter((c) => c.op === 'renew')).toEqual([]);
      expect(await b.balance(r)).toBe(10_000 - 333);
    });

    it('refuses premium names, accepted or not, to a group without a premium rule', async () => {
      const r = await b.newReseller(10_000);
      expect(await refusal(b.orders.register(r, registration('gold.com', { premiumCost: 10_000 })))).toMatchObject({
        code: 'not_offered',
        message: expect.stringMatching(/premium names are not sold to your account/),
      });
      expect(await b.uow.read.domains.findByName('gold.com')).toBeUndefined();
      expect(b.fake.callsFor('gold.com')).toBe(0);
    });
  });
});
