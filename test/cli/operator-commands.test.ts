import { createResellerModule } from '../../src/module';
import { cli } from '../support/cli';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('reseller-admin operator', () => {
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    db = await createTestDatabase();
    env = {
      DATABASE_URL: db.url,
      MASTER_KEY: TEST_MASTER_KEY,
      LOG_LEVEL: 'silent',
      USER: 'ops',
      PUBLIC_URL: 'https://resellers.example.com',
    };
    expect((await cli(env, 'migrate')).code).toBe(0);
  });
  afterAll(() => db.drop());

  const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

  it('creates an operator and prints a one-time set-password link under PUBLIC_URL and the console path', async () => {
    const created = await cli(env, 'operator', 'create', 'Boss@Example.com', '--role', 'admin');
    expect(created.code).toBe(0);
    const out = created.json();
    expect(out).toMatchObject({
      email: 'boss@example.com',
      role: 'admin',
      hasPassword: false,
      hasSecondFactor: false,
      disabled: false,
    });
    expect(out.setPasswordLink).toMatch(/^https:\/\/resellers\.example\.com\/admin\/set-password\?token=[\w-]{43}$/);
    const again = await cli(env, 'operator', 'create', 'boss@example.com', '--role', 'viewer');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
  });

  it('refuses a role other than admin or viewer', async () => {
    const bad = await cli(env, 'operator', 'create', 'x@example.com', '--role', 'root');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('role must be admin or viewer');
  });

  it('lets the link set a password once, and lists, disables, enables and resets the second factor, each audited', async () => {
    const created = (await cli(env, 'operator', 'create', 'staff@example.com', '--role', 'viewer')).json();
    const module = await createResellerModule({
      database: db.url,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
    });
    try {
      const operators = module.services.operators;
      await expect(operators.setPassword(tokenOf(created.setPasswordLink), 'short', 'short')).rejects.toThrow(
        'at least 12',
      );
      await operators.setPassword(tokenOf(created.setPasswordLink), 'a long enough secret', 'a long enough secret');
      await expect(
        operators.setPassword(tokenOf(created.setPasswordLink), 'another long secret', 'another long secret'),
      ).rejects.toThrow('expired or was used');
      expect(await operators.checkPassword('staff@example.com', 'a long enough secret')).toMatchObject({
        email: 'staff@example.com',
      });

      const listed = (await cli(env, 'operator', 'list')).json();
      expect(listed.find((o: { email: string }) => o.email === 'staff@example.com')).toMatchObject({
        hasPassword: true,
      });
      expect((await cli(env, 'operator', 'disable', 'staff@example.com')).json()).toMatchObject({ disabled: true });
      expect(await operators.checkPassword('staff@example.com', 'a long enough secret')).toBeUndefined();
      expect((await cli(env, 'operator', 'enable', 'staff@example.com')).json()).toMatchObject({ disabled: false });
      expect((await cli(env, 'operator', 'reset-2fa', 'staff@example.com')).json()).toMatchObject({
        hasSecondFactor: false,
      });
      const missing = await cli(env, 'operator', 'disable', 'nobody@example.com');
      expect(missing.code).toBe(1);

      const audit = await module.services.audit.find({ actionPrefix: 'operator.', limit: 100 });
      const byCli = audit.filter((e) => e.actor.label === 'cli:ops').map((e) => e.action);
      expect(byCli).toEqual(
        expect.arrayContaining([
          'operator.create',
          'operator.disable',
          'operator.enable',
          'operator.second_factor.reset',
        ]),
      );
      expect(JSON.stringify(audit)).not.toContain(tokenOf(created.setPasswordLink));
    } finally {
      await module.close();
    }
  });

  it('makes an expired link useless (24 hours)', async () => {
    const created = (await cli(env, 'operator', 'create', 'late@example.com', '--role', 'viewer')).json();
    const later = new Date(Date.now() + 25 * 3_600_000);
    const module = await createResellerModule({
      database: db.url,
      clock: { now: () => later },
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
    });
    try {
      await expect(
        module.services.operators.setPassword(
          tokenOf(created.setPasswordLink),
          'a long enough secret',
          'a long enough secret',
        ),
      ).rejects.toThrow('expired or was used');
    } finally {
      await module.close();
    }
  });
});
