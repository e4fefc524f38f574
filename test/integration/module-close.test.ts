import { createResellerModule, type ResellerModule } from '../../src/module';
import { TOKENS } from '../../src/core/tokens';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';

/**
 * `close()` as createResellerModule registers it (src/module.ts, src/startup/): every part stops,
 * newest first, once, even when one of them fails, and the failure reaches the caller.
 */
describe(`closing the module (${TEST_ENGINE})`, () => {
  let db: TestDatabase;
  let module: ResellerModule;
  const stopped: string[] = [];
  const failure = new Error('the webhook sender would not close');

  beforeEach(async () => {
    db = await createTestDatabase();
    stopped.length = 0;
    module = await createResellerModule({
      database: db.url,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent', backgroundJobs: false },
      configureContainer: (container) => {
        container.rebindSync(TOKENS.webhookSender).toConstantValue({
          send: async () => ({ kind: 'error', error: 'not sent in this test' }),
          close: () => {
            stopped.push('webhook sender');
            throw failure;
          },
        });
      },
    });
    await module.migrate();
    const closePlugins = module.registrars.close.bind(module.registrars);
    jest.spyOn(module.registrars, 'close').mockImplementation(async () => {
      // The database, opened first, is still open when the plugins close.
      const database = await module.knex.raw('select 1').then(
        () => 'open',
        () => 'closed',
      );
      stopped.push(`plugins (database ${database})`);
      await closePlugins();
    });
  });
  afterEach(async () => {
    await module.close().catch(() => undefined);
    await db.drop();
  });

  it('stops every part newest first when one fails, and rejects with that failure', async () => {
    await expect(module.close()).rejects.toBe(failure);
    expect(stopped).toEqual(['webhook sender', 'plugins (database open)']);
    await expect(module.knex.raw('select 1')).rejects.toThrow();
    expect((await module.readiness()).checks).toMatchObject({ process: 'shutting down', plugins: 'closed' });
  });

  it('stops each part once however often it is closed', async () => {
    await expect(module.close()).rejects.toBe(failure);
    await expect(module.close()).rejects.toBe(failure);
    expect(stopped).toEqual(['webhook sender', 'plugins (database open)']);
  });
});
