import {
  CostPriceImport,
  type CostPriceSource,
  type MarginRule,
  type TldCost,
} from '../../src/core/catalogue/cost-price-import';
import { TOKENS } from '../../src/core/tokens';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const TWENTY_PERCENT_PLUS_ONE: MarginRule = {
  percentBasisPoints: 2000,
  fixed: 100,
  rounding: { kind: 'ending', cents: 99 },
};

describe('importing cost prices into a group', () => {
  let db: TestDatabase;
  let module: ResellerModule;
  let costs: Record<string, readonly TldCost[] | undefined>;
  const source: CostPriceSource = async (registrar) => costs[registrar];
  const importer = () =>
    new CostPriceImport(module.container.get(TOKENS.unitOfWork), module.container.get(TOKENS.catalogueService), source);
  /** The group's prices for a TLD as "action period" → minor units. */
  const groupPrices = async (tld: string) => {
    const group = await module.services.resellers.group('retail');
    const rows = await module.container.get(TOKENS.unitOfWork).read.catalogue.prices(group.id, tld);
    return Object.fromEntries(rows.map((p) => [`${p.action} ${p.period}`, p.price]));
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    module = await createResellerModule({
      database: db.url,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
    });
    await module.migrate();
    await module.services.resellers.createGroup('retail');
  });
  afterAll(async () => {
    await module.close();
    await db.drop();
  });

  beforeEach(async () => {
    costs = {
      sandbox: [
        { tld: '.com', period: 1, register: 800, renew: 900 },
        { tld: '.com', period: 2, register: 1600 },
        { tld: '.net', period: 1, renew: 1000 },
      ],
      epp: undefined,
    };
  });

  it('computes the diff without writing, then writes exactly that diff', async () => {
    await module.services.catalogue.setTld({
      tld: '.com',
      group: 'retail',
      registrar: 'sandbox',
      prices: { register: { 1: 1000, 5: 4000 }, transfer: { 1: 700 } },
    });
    const plan = await importer().plan({ registrar: 'sandbox', group: 'retail', margin: TWENTY_PERCENT_PLUS_ONE });
    expect(plan.changes).toEqual([
      { tld: '.com', action: 'register', period: 1, cost: 800, from: 1000, to: 1099 },
      { tld: '.com', action: 'register', period: 2, cost: 1600, from: null, to: 2099 },
      { tld: '.com', action: 'register', period: 5, cost: null, from: 4000, to: null },
      { tld: '.com', action: 'renew', period: 1, cost: 900, from: null, to: 1199 },
    ]);
    expect(plan.skipped).toEqual([
      { tld: '.net', reason: 'not on sale yet and sandbox does not price its registration' },
    ]);
    expect(plan.newTlds).toEqual([]);
    expect(await groupPrices('.com')).toEqual({ 'register 1': 1000, 'register 5': 4000, 'transfer 1': 700 });

    await importer().apply(plan);
    // The transfer price the registrar does not price is kept.
    expect(await groupPrices('.com')).toEqual({
      'register 1': 1099,
      'register 2': 2099,
      'renew 1': 1199,
      'transfer 1': 700,
    });
    const again = await importer().plan({ registrar: 'sandbox', group: 'retail', margin: TWENTY_PERCENT_PLUS_ONE });
    expect(again).toMatchObject({ changes: [], unchanged: 3, writes: [] });
  });

  it('adds a TLD that is not on sale yet, served by the registrar', async () => {
    costs.sandbox = [{ tld: '.org', period: 1, register: 900, renew: 1000, transfer: 900 }];
    const plan = await importer().plan({
      registrar: 'sandbox',
      group: 'retail',
      margin: { percentBasisPoints: 0, fixed: 0, rounding: { kind: 'multiple', of: 50 } },
    });
    expect(plan.newTlds).toEqual(['.org']);
    await importer().apply(plan);
    expect(await module.services.catalogue.listTlds()).toContainEqual(
      expect.objectContaining({ tld: '.org', registrar: 'sandbox' }),
    );
    expect(await groupPrices('.org')).toEqual({ 'register 1': 900, 'renew 1': 1000, 'transfer 1': 900 });
  });

  it('never moves a TLD served by another registrar', async () => {
    await module.services.catalogue.setTld({
      tld: '.io',
      group: 'retail',
      registrar: 'upstream',
      prices: { register: { 1: 4000 } },
    });
    costs.sandbox = [{ tld: '.io', period: 1, register: 100 }];
    const plan = await importer().plan({ registrar: 'sandbox', group: 'retail', margin: TWENTY_PERCENT_PLUS_ONE });
    expect(plan).toMatchObject({ changes: [], skipped: [{ tld: '.io', reason: 'served by registrar upstream' }] });
    await importer().apply(plan);
    expect(await groupPrices('.io')).toEqual({ 'register 1': 4000 });
  });

  it('imports only the TLDs asked for, naming those the registrar does not price', async () => {
    costs.sandbox = [
      { tld: '.com', period: 1, register: 850 },
      { tld: '.biz', period: 1, register: 850 },
    ];
    const plan = await importer().plan({
      registrar: 'sandbox',
      group: 'retail',
      margin: TWENTY_PERCENT_PLUS_ONE,
      tlds: ['.xyz', '.com'],
    });
    expect(plan.skipped).toEqual([{ tld: '.xyz', reason: 'sandbox does not price it' }]);
    expect(plan.changes.map((c) => [c.tld, c.action, c.period, c.to])).toEqual([
      ['.com', 'register', 1, 1199],
      ['.com', 'register', 2, null],
    ]);
    expect(plan.newTlds).toEqual([]);
  });

  it('refuses a registrar without TLD pricing, a group that does not exist and a bad margin', async () => {
    await expect(
      importer().plan({ registrar: 'epp', group: 'retail', margin: TWENTY_PERCENT_PLUS_ONE }),
    ).rejects.toMatchObject({ code: 'validation_failed', message: 'registrar epp does not offer TLD pricing' });
    await expect(
      importer().plan({ registrar: 'sandbox', group: 'nosuch', margin: TWENTY_PERCENT_PLUS_ONE }),
    ).rejects.toMatchObject({ code: 'not_found', message: 'group "nosuch" does not exist' });
    await expect(
      importer().plan({ registrar: 'sandbox', group: 'retail', margin: { ...TWENTY_PERCENT_PLUS_ONE, fixed: -1 } }),
    ).rejects.toMatchObject({ code: 'validation_failed', message: 'the fixed margin cannot be negative' });
  });
});
