import type { UnitOfWork } from '../../src/core/common/unit-of-work';
import {
  CostPriceImport,
  type CostPriceImportInput,
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

    // The real run does exactly what the dry run showed.
    const applied = await importer().run(
      { registrar: 'sandbox', group: 'retail', margin: TWENTY_PERCENT_PLUS_ONE },
      { dryRun: false },
    );
    expect(applied).toEqual({ ...plan, applied: true });
    expect(plan.applied).toBe(false);
    // The transfer price the registrar does not price is kept.
    expect(await groupPrices('.com')).toEqual({
      'register 1': 1099,
      'register 2': 2099,
      'renew 1': 1199,
      'transfer 1': 700,
    });
    const again = await importer().plan({ registrar: 'sandbox', group: 'retail', margin: TWENTY_PERCENT_PLUS_ONE });
    expect(again).toMatchObject({ changes: [], unchanged: 3, applied: false });
  });

  it('adds a TLD that is not on sale yet, served by the registrar', async () => {
    costs.sandbox = [{ tld: '.org', period: 1, register: 900, renew: 1000, transfer: 900 }];
    const plan = await importer().run(
      {
        registrar: 'sandbox',
        group: 'retail',
        margin: { percentBasisPoints: 0, fixed: 0, rounding: { kind: 'multiple', of: 50 } },
      },
      { dryRun: false },
    );
    expect(plan).toMatchObject({ newTlds: ['.org'], applied: true });
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
    const plan = await importer().run(
      { registrar: 'sandbox', group: 'retail', margin: TWENTY_PERCENT_PLUS_ONE },
      { dryRun: false },
    );
    expect(plan).toMatchObject({
      changes: [],
      skipped: [{ tld: '.io', reason: 'served by registrar upstream' }],
      applied: false,
    });
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

  describe('one check for a dry run and a real one', () => {
    const both = async (input: Partial<CostPriceImportInput> = {}) => {
      const full = { registrar: 'sandbox', group: 'retail', margin: TWENTY_PERCENT_PLUS_ONE, ...input };
      const outcome = (promise: Promise<unknown>) =>
        promise.then(
          () => 'imported',
          (error: { code?: string; message?: string }) => ({ code: error.code, message: error.message }),
        );
      const dry = await outcome(importer().run(full, { dryRun: true }));
      const real = await outcome(importer().run(full, { dryRun: false }));
      expect(real).toEqual(dry);
      return real;
    };
    const tldsOnSale = async () => (await module.services.catalogue.listTlds()).map((t) => t.tld);

    it('refuses a TLD and period listed twice, whichever cost comes last', async () => {
      costs.sandbox = [
        { tld: '.twice', period: 1, register: 800, renew: 900 },
        { tld: '.twice', period: 1, register: 80 },
      ];
      expect(await both()).toEqual({
        code: 'validation_failed',
        message: 'the costs from sandbox cannot be imported; nothing was written: .twice 1 year(s) is listed twice',
      });
      expect(await tldsOnSale()).not.toContain('.twice');
    });

    it('refuses a cost of 0.00 unless allowed, and imports it when allowed', async () => {
      costs.sandbox = [{ tld: '.gift', period: 1, register: 0, renew: 900 }];
      expect(await both()).toEqual({
        code: 'validation_failed',
        message:
          'the costs from sandbox cannot be imported; nothing was written: .gift 1 year(s) register costs 0.00 (allow it explicitly to sell from a cost of 0.00)',
      });
      expect(await tldsOnSale()).not.toContain('.gift');
      expect(await both({ allowZeroCost: true })).toBe('imported');
      expect(await groupPrices('.gift')).toEqual({ 'register 1': 199, 'renew 1': 1199 });
    });

    it('refuses malformed costs, naming each', async () => {
      costs.sandbox = [
        { tld: '.odd', period: 1, register: 799.5 },
        { tld: '.odd', period: 2, register: -1 },
        { tld: '.odd', period: 11, register: 800 },
        { tld: '.odd', period: 3 },
      ];
      expect(await both()).toEqual({
        code: 'validation_failed',
        message:
          'the costs from sandbox cannot be imported; nothing was written: ' +
          '.odd 1 year(s) register: a cost of 799.5 is not a whole number of minor units; ' +
          '.odd 2 year(s) register: a cost of -1 is not a whole number of minor units; ' +
          '.odd: a period of 11 years (periods are 1 to 10); ' +
          '.odd 3 year(s) has no cost',
      });
    });

    it('checks only the TLDs asked for', async () => {
      costs.sandbox = [
        { tld: '.asked', period: 1, register: 800 },
        { tld: '.other', period: 1, register: 0 },
        { tld: '.other', period: 1, register: 0 },
      ];
      expect(await both({ tlds: ['.asked'] })).toBe('imported');
      expect(await tldsOnSale()).toContain('.asked');
    });
  });

  it('writes nothing when a write fails part-way', async () => {
    await module.services.catalogue.setTld({
      tld: '.kept',
      group: 'retail',
      registrar: 'sandbox',
      prices: { register: { 1: 5000 } },
    });
    costs.sandbox = [
      { tld: '.kept', period: 1, register: 800 },
      { tld: '.late', period: 1, register: 800 },
    ];
    const real = module.container.get(TOKENS.unitOfWork);
    const failing: UnitOfWork = {
      read: real.read,
      run: (work) =>
        real.run((repos) =>
          work({
            ...repos,
            catalogue: Object.assign(Object.create(repos.catalogue), {
              replacePrices: async (...args: Parameters<typeof repos.catalogue.replacePrices>) => {
                if (args[1] === '.late') throw new Error('the disk is full');
                return repos.catalogue.replacePrices(...args);
              },
            }),
          }),
        ),
    };
    const failingImporter = new CostPriceImport(failing, module.container.get(TOKENS.catalogueService), source);
    await expect(
      failingImporter.run(
        { registrar: 'sandbox', group: 'retail', margin: TWENTY_PERCENT_PLUS_ONE },
        { dryRun: false },
      ),
    ).rejects.toThrow('the disk is full');
    expect(await groupPrices('.kept')).toEqual({ 'register 1': 5000 });
    expect((await module.services.catalogue.listTlds()).map((t) => t.tld)).not.toContain('.late');
  });

  it('gives a new TLD imported from two registrars at once to one of them, with its prices only', async () => {
    // A second process on the same database; the registrars answer at the same moment.
    const other = await createResellerModule({
      database: db.url,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
    });
    try {
      const names = ['.racea', '.raceb', '.racec', '.raced'];
      costs.sandbox = names.map((tld) => ({ tld, period: 1, register: 800, renew: 900, transfer: 700 }));
      costs.upstream = names.map((tld) => ({ tld, period: 1, register: 500 }));
      let called = 0;
      let release: () => void = () => undefined;
      const bothAsked = new Promise<void>((resolve) => (release = resolve));
      const together: CostPriceSource = async (registrar) => {
        if (++called === 2) release();
        await bothAsked;
        return costs[registrar];
      };
      const margin = { percentBasisPoints: 0, fixed: 0, rounding: { kind: 'none' } } as const;
      const [bySandbox, byUpstream] = await Promise.all([
        new CostPriceImport(
          module.container.get(TOKENS.unitOfWork),
          module.container.get(TOKENS.catalogueService),
          together,
        ).run({ registrar: 'sandbox', group: 'retail', margin }, { dryRun: false }),
        new CostPriceImport(
          other.container.get(TOKENS.unitOfWork),
          other.container.get(TOKENS.catalogueService),
          together,
        ).run({ registrar: 'upstream', group: 'retail', margin }, { dryRun: false }),
      ]);
      const servedBy = new Map((await module.services.catalogue.listTlds()).map((t) => [t.tld, t.registrar]));
      for (const tld of names) {
        const registrar = servedBy.get(tld);
        const [winner, loser] = registrar === 'sandbox' ? [bySandbox, byUpstream] : [byUpstream, bySandbox];
        expect(winner.newTlds).toContain(tld);
        expect(loser.newTlds).not.toContain(tld);
        expect(loser.skipped).toContainEqual({ tld, reason: `served by registrar ${registrar}` });
        expect(await groupPrices(tld)).toEqual(
          registrar === 'sandbox' ? { 'register 1': 800, 'renew 1': 900, 'transfer 1': 700 } : { 'register 1': 500 },
        );
      }
    } finally {
      await other.close();
    }
  });
});
