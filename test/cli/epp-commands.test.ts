import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli, migratedTestDatabase } from '../support/cli';
import { startEppFixture, type EppFixture } from '../support/epp/epp-fixture';
import { TEST_MASTER_KEY } from '../support/harness';
import type { TestDatabase } from '../support/test-database';

describe('reseller-admin epp change-password', () => {
  let db: TestDatabase;
  let f: EppFixture;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    db = await migratedTestDatabase();
  });
  afterAll(() => db.drop());
  beforeEach(async () => {
    f = await startEppFixture();
    dir = mkdtempSync(path.join(tmpdir(), 'epp-cli-'));
    const configFile = path.join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ plugins: { epp: f.pluginOptions } }));
    env = { DATABASE_URL: db.url, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent', CONFIG_FILE: configFile };
  });
  afterEach(async () => {
    await f.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sets the new password at the registry with one login and says what to configure', async () => {
    const run = await cli(
      { ...env, NEW_EPP_PASSWORD: 'brand-new-pw' },
      'epp',
      'change-password',
      '--new-password-env',
      'NEW_EPP_PASSWORD',
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({
      message:
        'the registry accepted the new password: set plugins.epp.password (or the variable named by passwordEnv) ' +
        'to it now; the old one no longer logs in',
    });
    expect(f.server.received.map((r) => r.command)).toEqual(['login', 'logout']);
    const plugin = await f.plugin({ password: 'brand-new-pw' });
    await expect(plugin.checkAvailability(['a.test'], f.ctx())).resolves.toHaveLength(1);
  });

  it('refuses an empty variable as a usage error and contacts no registry', async () => {
    const run = await cli(env, 'epp', 'change-password', '--new-password-env', 'NOT_SET');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('error: the environment variable NOT_SET (--new-password-env) is empty');
    expect(f.server.stats.connections).toBe(0);
  });

  it('fails with the registry refusal when the configured password is wrong', async () => {
    writeFileSync(env.CONFIG_FILE!, JSON.stringify({ plugins: { epp: { ...f.pluginOptions, password: 'wrong-pw' } } }));
    const run = await cli(
      { ...env, NEW_EPP_PASSWORD: 'brand-new-pw' },
      'epp',
      'change-password',
      '--new-password-env',
      'NEW_EPP_PASSWORD',
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error: the registry refused the password change: Authentication error (EPP 2200); keep the configured password\n',
    );
  });
});
