import { cli } from '../support/cli';
import { TEST_MASTER_KEY } from '../support/harness';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';

// The sandbox plugin prices .com at 8.00 to register, 9.00 to renew and 8.00 to transfer, for one year.
describe('reseller-admin tld import-costs', () => {
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;
  const comPrices = async () =>
    (await cli(env, 'tld', 'set', '.com', '--group', 'retail', '--registrar', 'sandbox')).json().prices;

  beforeAll(async () => {
    db = await createTestDatabase();
    env = { DATABASE_URL: db.url, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent' };
    await cli(env, 'migrate');
    await cli(env, 'group', 'create', 'retail');
    await cli(env, 'tld', 'set', '.com', '--group', 'retail', '--registrar', 'sandbox', '--register', '1=10.00');
  });
  afterAll(async () => {
    await db.drop();
  });

  const importCosts = (...flags: string[]) =>
    cli(env, 'tld', 'import-costs', 'sandbox', '--group', 'retail', '--tlds', '.com', ...flags);

  it('shows the diff with --dry-run and changes nothing', async () => {
    const run = await importCosts('--percent', '20', '--fixed', '1.00', '--round', 'x.99', '--dry-run');
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({
      registrar: 'sandbox',
      group: 'retail',
      dryRun: true,
      applied: false,
      newTlds: [],
      changes: [
        { tld: '.com', action: 'register', period: 1, cost: '8.00', from: '10.00', to: '10.99' },
        { tld: '.com', action: 'renew', period: 1, cost: '9.00', from: null, to: '11.99' },
        { tld: '.com', action: 'transfer', period: 1, cost: '8.00', from: null, to: '10.99' },
      ],
      unchanged: 0,
      skipped: [],
    });
    expect(run.stderr).toBe(
      '~ .com register 1y: 10.00 -> 10.99 (cost 8.00)\n' +
        '+ .com renew 1y: 11.99 (cost 9.00)\n' +
        '+ .com transfer 1y: 10.99 (cost 8.00)\n' +
        '3 prices would change (dry run: nothing written), 0 unchanged, group retail\n',
    );
    expect(await comPrices()).toEqual({ register: { 1: '10.00' } });
  });

  it('writes the prices it showed, and then finds nothing to change', async () => {
    const run = await importCosts('--percent', '20', '--fixed', '1.00', '--round', 'x.99');
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ dryRun: false, applied: true, unchanged: 0 });
    expect(run.json().changes).toHaveLength(3);
    // Said as done, not as a plan (issue 31, item 11: applying printed "price(s) to change").
    expect(run.stderr).toMatch(/\n3 prices changed, 0 unchanged, group retail\n$/);
    expect(await comPrices()).toEqual({
      register: { 1: '10.99' },
      renew: { 1: '11.99' },
      transfer: { 1: '10.99' },
    });
    const again = await importCosts('--percent', '20', '--fixed', '1.00', '--round', 'x.99');
    expect(again.json()).toMatchObject({ applied: false, changes: [], unchanged: 3 });
  });

  it('rounds to a multiple', async () => {
    const run = await importCosts('--percent', '12.5', '--round', '0.50', '--dry-run');
    expect(run.json().changes.map((c: { action: string; to: string }) => [c.action, c.to])).toEqual([
      ['register', '9.00'],
      ['renew', '10.50'],
      ['transfer', '9.00'],
    ]);
  });

  it('refuses a command line without a margin or with a rule it cannot read, as usage errors', async () => {
    const noMargin = await importCosts('--dry-run');
    expect(noMargin.code).toBe(2);
    expect(noMargin.stderr).toMatch(/^error: give the margin: --percent, --fixed or both/);
    expect(noMargin.stderr).toMatch(/Usage: reseller-admin tld import-costs \[options\] <registrar>/);
    const badRound = await importCosts('--percent', '10', '--round', 'up');
    expect(badRound.code).toBe(2);
    expect(badRound.stderr).toMatch(/--round must be none, a price ending like x.99, or a multiple like 0.50/);
    const badPercent = await importCosts('--percent', '-5');
    expect(badPercent.code).toBe(2);
  });

  it('fails on a registrar that is not installed', async () => {
    const run = await cli(env, 'tld', 'import-costs', 'nosuch', '--group', 'retail', '--percent', '10');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/nosuch is not installed/);
  });

  it('says a database refusal without SQL, having written nothing (all TLDs or none)', async () => {
    // A trigger refuses .net's prices, written after .com's.
    const direct = connectDatabase(parseDatabaseUrl(db.url));
    try {
      await direct.raw(
        TEST_ENGINE === 'sqlite'
          ? "CREATE TRIGGER refuse_net BEFORE INSERT ON tld_prices WHEN NEW.tld = '.net' BEGIN SELECT RAISE(ABORT, 'refused'); END"
          : "CREATE TRIGGER refuse_net BEFORE INSERT ON tld_prices FOR EACH ROW BEGIN IF NEW.tld = '.net' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused'; END IF; END",
      );
      const before = await comPrices();
      const run = await cli(
        env,
        'tld',
        'import-costs',
        'sandbox',
        '--group',
        'retail',
        '--tlds',
        '.com,.net',
        '--percent',
        '50',
      );
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      const code = TEST_ENGINE === 'sqlite' ? 'SQLITE_CONSTRAINT_TRIGGER' : 'ER_SIGNAL_EXCEPTION';
      expect(run.stderr).toBe(`error: the database refused the import (${code}); nothing was written\n`);
      expect(await comPrices()).toEqual(before);
      const tlds = (await cli(env, 'tld', 'list')).json().map((t: { tld: string }) => t.tld);
      expect(tlds).not.toContain('.net');
    } finally {
      await direct.raw('DROP TRIGGER refuse_net');
      await direct.destroy();
    }
  });

  it('refuses with --dry-run what the real run refuses, and takes --allow-zero-cost', async () => {
    const help = await cli(env, 'tld', 'import-costs', '--help');
    expect(help.stdout).toMatch(/--allow-zero-cost/);
    const dry = await cli(env, 'tld', 'import-costs', 'sandbox', '--group', 'nosuch', '--percent', '10', '--dry-run');
    const real = await cli(env, 'tld', 'import-costs', 'sandbox', '--group', 'nosuch', '--percent', '10');
    expect([dry.code, dry.stderr]).toEqual([1, 'error: group "nosuch" does not exist\n']);
    expect([real.code, real.stderr]).toEqual([dry.code, dry.stderr]);
  });
});
