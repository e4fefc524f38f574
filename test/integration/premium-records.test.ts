import { startOrderBench, type OrderBench } from '../support/order-bench';

/**
 * Issue 26 items 1 and 6, the storage: a domain keeps the premium costs it was sold at, and the
 * premium prices quoted to a reseller are kept in the database (any process sees them) for their
 * lifetime. On SQLite and, with TEST_DB=mariadb, MariaDB.
 */
describe('premium costs on the domain record, and premium quotes', () => {
  let b: OrderBench;
  beforeAll(async () => {
    b = await startOrderBench();
  });
  afterAll(async () => {
    await b.close();
  });

  const at = new Date('2026-11-21T10:00:00Z');
  const newDomain = (name: string, premiumCosts?: { register?: number; renew?: number }) => ({
    id: `01JD${name
      .replace(/[^a-z]/g, '')
      .toUpperCase()
      .padEnd(22, '0')
      .slice(0, 22)}`,
    name,
    unicodeName: name,
    tld: '.com',
    resellerId: 'no-such-reseller-000000000',
    registrar: 'fake',
    status: 'Pending Registration' as const,
    expiryDate: null,
    createdAt: at,
    ...(premiumCosts && { premiumCosts }),
  });

  it('keeps the premium costs a domain was sold at, and none for a standard one', async () => {
    const r = await b.newReseller(0);
    await b.uow.run(async (repos) => {
      await repos.domains.insertForOrder({
        ...newDomain('rich.com', { register: 500_00, renew: 450_00 }),
        resellerId: r.id,
      });
      await repos.domains.insertForOrder({ ...newDomain('plain.com'), resellerId: r.id });
    });
    expect((await b.uow.read.domains.findByName('rich.com'))?.premiumCosts).toEqual({
      register: 500_00,
      renew: 450_00,
    });
    expect((await b.uow.read.domains.findByName('plain.com'))?.premiumCosts).toBeUndefined();
    const plain = (await b.uow.read.domains.findByName('plain.com'))!;
    await b.uow.run((repos) =>
      repos.domains.transitionForOrder(plain.id, ['Pending Registration'], {
        status: 'Active',
        premiumCosts: { transfer: 400_00 },
        at,
      }),
    );
    expect((await b.uow.read.domains.findByName('plain.com'))?.premiumCosts).toEqual({ transfer: 400_00 });
    await b.uow.run((repos) =>
      repos.domains.transitionForOrder(plain.id, ['Active'], { status: 'Active', premiumCosts: null, at }),
    );
    expect((await b.uow.read.domains.findByName('plain.com'))?.premiumCosts).toBeUndefined();
  });

  it('keeps a quote until it expires, a newer one replacing it, per reseller, name and action', async () => {
    const r = await b.newReseller(0);
    const other = await b.newReseller(0);
    const quote = (resellerId: string, price: number, quotedAt: Date, action: 'register' | 'renew' = 'register') => ({
      resellerId,
      domain: 'quoted.com',
      action,
      price,
      quotedAt,
      expiresAt: new Date(quotedAt.getTime() + 3_600_000),
    });
    await b.uow.run((repos) =>
      repos.catalogue.savePremiumQuotes([quote(r.id, 600_00, at), quote(r.id, 540_00, at, 'renew')]),
    );
    const later = new Date(at.getTime() + 1_800_000);
    expect(await b.uow.read.catalogue.premiumQuote(r.id, 'quoted.com', 'register', later)).toEqual(
      quote(r.id, 600_00, at),
    );
    expect(await b.uow.read.catalogue.premiumQuote(other.id, 'quoted.com', 'register', later)).toBeUndefined();
    expect(await b.uow.read.catalogue.premiumQuote(r.id, 'quoted.com', 'transfer', later)).toBeUndefined();
    await b.uow.run((repos) => repos.catalogue.savePremiumQuotes([quote(r.id, 720_00, later)]));
    expect((await b.uow.read.catalogue.premiumQuote(r.id, 'quoted.com', 'register', later))?.price).toBe(720_00);
    const expired = new Date(at.getTime() + 3_600_000);
    expect(await b.uow.read.catalogue.premiumQuote(r.id, 'quoted.com', 'renew', expired)).toBeUndefined();
    // The reseller's next quotes forget its expired ones.
    await b.uow.run((repos) => repos.catalogue.savePremiumQuotes([quote(r.id, 1_00, expired)]));
    expect(await b.knex('premium_quotes').where({ reseller_id: r.id, action: 'renew' })).toEqual([]);
  });
});
