import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import Koa from 'koa';
import { DEFAULT_DATABASE_URL } from '../../src/config/settings';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';

const mode = (file: string) => statSync(file).mode & 0o777;

describe('the embedded SQLite database on disk', () => {
  let dir: string;
  let umask: number;
  let cwd: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'file-modes-'));
    // The most permissive umask there is: the modes must not depend on it.
    umask = process.umask(0);
    cwd = process.cwd();
    process.chdir(dir);
  });
  afterEach(() => {
    process.chdir(cwd);
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates its folder 0700 and the database, its WAL files and the master key 0600 whatever the umask', async () => {
    const data = path.join(dir, 'data');
    const module = await createResellerModule({
      database: DEFAULT_DATABASE_URL,
      settings: { logLevel: 'silent' },
    });
    try {
      await module.migrate();
      await module.services.resellers.createGroup('default');
      expect(mode(data)).toBe(0o700);
      for (const file of ['reseller.sqlite', 'reseller.sqlite-wal', 'reseller.sqlite-shm', 'master.key'])
        expect(`${file} ${mode(path.join(data, file)).toString(8)}`).toBe(`${file} 600`);
    } finally {
      await module.close();
    }
  });

  it("creates the embedded default's folder for another file in it too (docs/plugins.md's sqlite:./data/minimal.sqlite)", async () => {
    const module = await createResellerModule({
      database: 'sqlite:./data/minimal.sqlite',
      settings: { logLevel: 'silent' },
    });
    try {
      expect(mode(path.join(dir, 'data'))).toBe(0o700);
      expect(existsSync(path.join(dir, 'data', 'minimal.sqlite'))).toBe(true);
    } finally {
      await module.close();
    }
  });

  it('refuses any other SQLite path whose folder is missing, naming it, and creates nothing', async () => {
    const missing = path.join(dir, 'typo', 'deeper');
    await expect(
      createResellerModule({
        database: `sqlite:${path.join(missing, 'reseller.sqlite')}`,
        settings: { logLevel: 'silent' },
      }),
    ).rejects.toThrow(
      `DATABASE_URL: the folder ${missing} does not exist: create it (mkdir -p ${missing}, owned by the user the server runs as, mode 0700) or correct the path`,
    );
    expect(existsSync(path.join(dir, 'typo'))).toBe(false);
  });

  it('refuses a MASTER_KEY_FILE whose folder is missing, and creates nothing', async () => {
    const keyFile = path.join(dir, 'keys', 'master.key');
    await expect(
      createResellerModule({
        database: `sqlite:${path.join(dir, 'reseller.sqlite')}`,
        settings: { logLevel: 'silent', masterKeyFile: keyFile },
      }),
    ).rejects.toThrow(`the folder ${path.dirname(keyFile)} of the master key file ${keyFile} does not exist`);
    expect(existsSync(path.join(dir, 'keys'))).toBe(false);
  });
});

describe('a TLD whose registrar plugin is not installed', () => {
  let module: ResellerModule | undefined;
  let h: Harness | undefined;
  afterEach(async () => {
    await module?.close();
    await h?.close();
  });

  it('makes /readyz answer 503 naming the plugin and its TLDs', async () => {
    // TLDs set on a plugin whose folder was later removed.
    h = await startHarness();
    await h.module.knex('tlds').update({ registrar: 'gone' });
    module = await createResellerModule({
      database: h.databaseUrl,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
    });
    const app = new Koa();
    app.use(module.middleware({ ownAllPaths: true }));
    const reply = await request(app.callback()).get('/readyz');
    const problem = 'plugin "gone" is not installed, but TLDs use it: .com, .net, .org';
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual({
      error: `not ready: plugins: ${problem}`,
      checks: { database: 'ok', plugins: problem },
    });
  });
});
