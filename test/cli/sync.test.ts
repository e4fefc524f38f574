import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/commands';
import { fixedClock } from '../../src/core/common/clock';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { givenDomain, platformRecord, givenGroupSellingCom } from '../support/domains';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const sink = () => {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
};

const ctx = () => ({ signal: new AbortController().signal, transactionId: 't' });

describe('reseller-admin sync', () => {
  let db: TestDatabase;
  let module: ResellerModule;
  const env = () => ({ DATABASE_URL: db.url, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent' });

  beforeAll(async () => {
    db = await createTestDatabase();
    module = await createResellerModule({
      database: db.url,
      clock: fixedClock('2026-11-21T10:00:00Z'),
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
    });
    await module.migrate();
    await givenGroupSellingCom(module, 'default');
    await module.services.resellers.create('reseller@example.com', 'default', 0);
    // Registered for ten years, so the CLI (on the real clock) finds them active for a long while yet.
    await givenDomain(module, 'cli-active.com', { period: 10, expiryDate: null });
    await givenDomain(module, 'cli-released.com', { period: 10 });
    await givenDomain(module, 'cli-deleted.com', { period: 10 });
    await givenDomain(module, 'cli-broken.com', { atRegistrar: false, expiryDate: '2030-01-01' });
    await givenDomain(module, 'cli-pending.com', {
      atRegistrar: false,
      status: 'Pending Registration',
      expiryDate: null,
    });
    await givenDomain(module, 'cli-transfer.com', { atRegistrar: false, status: 'Pending Transfer', expiryDate: null });
    const sandbox = module.registrars.get('sandbox');
    await sandbox.transfer!.transfer(
      {
        domain: 'cli-transfer.com',
        eppCode: 'EPP',
        period: 1,
        nameservers: [],
        contacts: {},
        addons: {},
        fields: {},
      } as never,
      ctx(),
    );
    await sandbox.release!.release({ domain: 'cli-released.com', transferTag: 'ELSEWHERE' }, ctx());
    await sandbox.delete!.delete({ domain: 'cli-deleted.com' }, ctx());
  });
  afterAll(async () => {
    await module.close();
    await db.drop();
  });

  it('syncs every domain sync owns and every pending transfer with its registrar, reporting changes and failures, with progress lines on stderr', async () => {
    const out = sink();
    const err = sink();
    const code = await runCli(['sync', '--concurrency', '2'], { stdout: out.stream, stderr: err.stream, env: env() });
    expect(code).toBe(0);
    expect(JSON.parse(out.text())).toEqual({
      reconciliation: expect.objectContaining({ checked: 0, refunded: 0, completed: 0 }),
      domains: {
        total: 4,
        synced: 3,
        changedCount: 3,
        failedCount: 1,
        changed: [
          { domain: 'cli-active.com', expiryDate: { from: null, to: '2036-11-21' } },
          { domain: 'cli-deleted.com', status: { from: 'Active', to: 'Cancelled' } },
          { domain: 'cli-released.com', status: { from: 'Active', to: 'Transferred Away' } },
        ],
        failed: [
          {
            domain: 'cli-broken.com',
            error: 'Registrar sandbox refused: cli-broken.com is not registered at the sandbox registry',
          },
        ],
      },
      transfers: {
        total: 1,
        synced: 1,
        changedCount: 1,
        failedCount: 0,
        changed: [{ domain: 'cli-transfer.com', status: { from: 'Pending Transfer', to: 'Active' } }],
        failed: [],
      },
    });
    expect(err.text()).toMatch(/sync: 4\/4 domains, 1 failed\ntransfer sync: 1\/1 domains\n$/);
    expect(await platformRecord(module, 'cli-active.com')).toMatchObject({
      status: 'Active',
      expiryDate: '2036-11-21',
    });
    expect(await platformRecord(module, 'cli-released.com')).toMatchObject({ status: 'Transferred Away' });
    expect(await platformRecord(module, 'cli-deleted.com')).toMatchObject({ status: 'Cancelled' });
    expect(await platformRecord(module, 'cli-pending.com')).toMatchObject({ status: 'Pending Registration' });
    expect(await platformRecord(module, 'cli-transfer.com')).toMatchObject({ status: 'Active' });
  });

  it('refuses a concurrency out of bounds as a usage error', async () => {
    const err = sink();
    expect(
      await runCli(['sync', '--concurrency', '0'], { stdout: sink().stream, stderr: err.stream, env: env() }),
    ).toBe(2);
    expect(err.text()).toMatch(/--concurrency must be from 1 to 50/);
  });
});
