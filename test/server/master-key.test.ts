import { existsSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { computeToken } from '../../src/core/auth/api-token';
import { TOKENS } from '../../src/core/tokens';
import { createResellerModule } from '../../src/module';
import { cli } from '../support/cli';

/**
 * Issue 31, item 1: a master key is created only for a database that holds no sealed API keys
 * (the embedded default's first start, or `migrate` on an empty database). Moving the database
 * without its key, or pointing at one with another key, refuses to start and says how to recover.
 */
describe('the master key of an embedded SQLite database', () => {
  let dir: string;
  let databaseUrl: string;
  let keyFile: string;
  const env = () => ({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'master-key-'));
    databaseUrl = `sqlite:${path.join(dir, 'reseller.sqlite')}`;
    keyFile = path.join(dir, 'master.key');
    const module = await createResellerModule({ database: databaseUrl, settings: { logLevel: 'silent' } });
    try {
      await module.migrate();
      await module.services.resellers.createGroup('default');
      await module.services.resellers.create('kept@example.com', 'default');
    } finally {
      await module.close();
    }
    expect(existsSync(keyFile)).toBe(true);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses to start without its key file, naming where it was expected and how to recover, and creates none', async () => {
    unlinkSync(keyFile);
    const started = createResellerModule({ database: databaseUrl, settings: { logLevel: 'silent' } });
    await expect(started).rejects.toThrow(keyFile);
    await expect(started).rejects.toThrow(/Restore it/);
    await expect(started).rejects.toThrow(/reseller-admin master-key replace-lost/);
    expect(existsSync(keyFile)).toBe(false);
  });

  it('lets no CLI command write a key file for it, a read-only one included', async () => {
    unlinkSync(keyFile);
    const listed = await cli(env(), 'reseller', 'list');
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain(keyFile);
    expect((await cli(env(), 'migrate')).code).toBe(1);
    expect(existsSync(keyFile)).toBe(false);
  });

  it('refuses a configured key that does not open the stored API keys, before a rotate-key could seal under it', async () => {
    const otherKey = Buffer.alloc(32, 9).toString('base64');
    const rotated = await cli({ ...env(), MASTER_KEY: otherKey }, 'reseller', 'rotate-key', 'kept@example.com');
    expect(rotated.code).toBe(1);
    expect(rotated.stderr).toMatch(/differs from the one that sealed/);
    await expect(
      createResellerModule({ database: databaseUrl, settings: { logLevel: 'silent', masterKey: otherKey } }),
    ).rejects.toThrow(/differs from the one that sealed/);
  });

  it('recovers a lost key with `master-key replace-lost --confirm`: a new key, and a new API key for every reseller', async () => {
    unlinkSync(keyFile);
    const refused = await cli(env(), 'master-key', 'replace-lost');
    expect(refused.code).toBe(2);
    const replaced = await cli(env(), 'master-key', 'replace-lost', '--confirm');
    expect(replaced.stderr).toContain('created a new master key; back it up');
    expect(replaced.code).toBe(0);
    const { keyFile: written, resellers } = replaced.json();
    expect(written).toBe(keyFile);
    expect(resellers).toEqual([{ email: 'kept@example.com', apiKey: expect.any(String) }]);
    expect(existsSync(keyFile)).toBe(true);

    const module = await createResellerModule({ database: databaseUrl, settings: { logLevel: 'silent' } });
    try {
      const auth = module.container.get(TOKENS.authenticator);
      const now = new Date();
      const token = computeToken('kept@example.com', resellers[0].apiKey, now);
      await expect(
        auth.authenticate({ username: 'kept@example.com', token, timestamp: undefined, clientAddress: '127.0.0.1' }),
      ).resolves.toMatchObject({ email: 'kept@example.com' });
    } finally {
      await module.close();
    }
    // Nothing is lost any more: a second run is refused.
    const again = await cli(env(), 'master-key', 'replace-lost', '--confirm');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/opens the stored API keys/);
  });

  it('is still created by `migrate` on an empty database', async () => {
    const fresh = mkdtempSync(path.join(os.tmpdir(), 'master-key-fresh-'));
    try {
      const migrated = await cli({ DATABASE_URL: `sqlite:${path.join(fresh, 'db.sqlite')}` }, 'migrate');
      expect(migrated.code).toBe(0);
      expect(existsSync(path.join(fresh, 'master.key'))).toBe(true);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});
