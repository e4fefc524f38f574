import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { version } from '../../package.json';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';
import { createResellerModule } from '../../src/module';
import { cli } from '../support/cli';
import { givenDomain, givenGroupSellingCom } from '../support/domains';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';

describe('reseller-admin command line', () => {
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    db = await createTestDatabase();
    env = { DATABASE_URL: db.url, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent' };
    expect((await cli(env, 'migrate')).code).toBe(0);
  });
  afterAll(async () => {
    await db.drop();
  });

  describe('help and usage', () => {
    it('answers a misspelt required option with a suggestion, not "required option not specified" (issue 31, item 11)', async () => {
      const run = await cli(env, 'reseller', 'create', 'x@example.com', '--grup', 'retail');
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^error: unknown option '--grup'\n\(Did you mean --group\?\)/);
      expect(run.stderr).not.toMatch(/not specified/);
    });

    it('exits 2 for flags that cannot be used together, like any usage error', async () => {
      expect((await cli(env, 'group', 'create', 'premium-usage')).code).toBe(0);
      const run = await cli(
        env,
        'group',
        'set-premium-rule',
        'premium-usage',
        '--markup',
        '20',
        '--table',
        '100.00=150.00',
      );
      expect(run.stderr).toMatch(/give exactly one of --markup, --table or --none/);
      expect(run.code).toBe(2);
      const prices = await cli(
        env,
        'tld',
        'set',
        '.com',
        '--group',
        'premium-usage',
        '--registrar',
        'sandbox',
        '--register',
        '1=ten',
      );
      expect(prices.code).toBe(2);
    });

    it("shows --round's default as a word in the help", async () => {
      const run = await cli(env, 'tld', 'import-costs', '--help');
      expect(run.stdout.replace(/\s+/g, ' ')).toContain('(default: none)');
      expect(run.stdout).not.toContain('{"kind"');
    });

    it('prints the version of the package with --version', async () => {
      const run = await cli(env, '--version');
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${version}\n`);
    });

    it("prints one command's usage with --help, and succeeds", async () => {
      const run = await cli(env, 'tld', 'set', '--help');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Usage: reseller-admin tld set \[options\] <tld>\n/);
      expect(run.stdout).toMatch(/--register <prices>/);
      expect(run.stdout).not.toMatch(/rotate-key/);
      expect(run.stderr).toBe('');
    });

    it('lists the commands with --help', async () => {
      const run = await cli(env, '--help');
      expect(run.code).toBe(0);
      for (const command of ['migrate', 'group', 'tld', 'reseller', 'credit', 'domain', 'order', 'sync', 'log'])
        expect(run.stdout).toMatch(new RegExp(`\\n  ${command}\\b`));
    });

    it("lists a command group's subcommands when run without one, as a usage error", async () => {
      const run = await cli(env, 'reseller');
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^Usage: reseller-admin reseller \[options\] \[command\]/);
      expect(run.stderr).toMatch(/rotate-key <email>/);
    });

    it('refuses an unknown flag with that command’s usage, not the whole list', async () => {
      const run = await cli(env, 'group', 'list', '--verbose');
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^error: unknown option '--verbose'\n/);
      expect(run.stderr).toMatch(/Usage: reseller-admin group list \[options\]/);
      expect(run.stderr).not.toMatch(/tld set/);
    });

    it('suggests the command meant by a typo', async () => {
      const noun = await cli(env, 'resellr', 'list');
      expect(noun.code).toBe(2);
      expect(noun.stderr).toMatch(/unknown command 'resellr'\n\(Did you mean reseller\?\)/);
      const verb = await cli(env, 'reseller', 'rotate-kye', 'a@example.com');
      expect(verb.code).toBe(2);
      expect(verb.stderr).toMatch(/unknown command 'rotate-kye'\n\(Did you mean rotate-key\?\)/);
    });

    it('suggests the flag meant by a typo', async () => {
      const run = await cli(env, 'domain', 'list', '--resseller', 'a@example.com');
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/unknown option '--resseller'\n\(Did you mean --reseller\?\)/);
    });

    it('refuses arguments a command does not take', async () => {
      const run = await cli(env, 'reconcile', 'now');
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/too many arguments for 'reconcile'/);
    });

    it('refuses a flag value it cannot read before touching the database, naming the flag', async () => {
      const run = await cli(
        { ...env, DATABASE_URL: 'sqlite:/nonexistent/never.sqlite' },
        'log',
        'a@b.co',
        '--since',
        'soon',
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--since must be a date like 2026-11-21/);
    });
  });

  describe('the database', () => {
    it('refuses a SQLite database that does not exist, and creates nothing', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-missing-'));
      try {
        const file = path.join(dir, 'typo', 'reseler.sqlite');
        const run = await cli({ ...env, DATABASE_URL: `sqlite:${file}`, MASTER_KEY: undefined }, 'group', 'list');
        expect(run.code).toBe(1);
        expect(run.stdout).toBe('');
        expect(run.stderr).toBe(
          `error: there is no database at ${file} (DATABASE_URL); run \`reseller-admin migrate\` first to create it\n`,
        );
        expect(existsSync(path.join(dir, 'typo'))).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('creates and migrates a new SQLite database with migrate', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-new-'));
      try {
        const fresh = { ...env, DATABASE_URL: `sqlite:${path.join(dir, 'new.sqlite')}` };
        expect((await cli(fresh, 'migrate')).json().applied.length).toBeGreaterThan(0);
        const list = await cli(fresh, 'group', 'list');
        expect(list.code).toBe(0);
        expect(list.json()).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('refuses to migrate a new SQLite database in a folder that does not exist, and creates nothing', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-folder-'));
      try {
        const folder = path.join(dir, 'typo');
        const run = await cli({ ...env, DATABASE_URL: `sqlite:${path.join(folder, 'new.sqlite')}` }, 'migrate');
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(
          `DATABASE_URL: the folder ${folder} does not exist: create it (mkdir -p ${folder}`,
        );
        expect(existsSync(folder)).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('refuses a database whose schema is behind, and leaves it behind', async () => {
      const behind = await createTestDatabase();
      const behindEnv = { ...env, DATABASE_URL: behind.url };
      try {
        const applied: string[] = (await cli(behindEnv, 'migrate')).json().applied;
        const last = applied[applied.length - 1];
        const direct = connectDatabase(parseDatabaseUrl(behind.url));
        try {
          await direct('knex_migrations').where({ name: last }).del();
          const run = await cli(behindEnv, 'tld', 'list');
          expect(run.code).toBe(1);
          expect(run.stderr).toBe(
            `error: the database schema is behind this version (1 migration not applied, from ${last}); ` +
              'run `reseller-admin migrate` first\n',
          );
          expect(await direct('knex_migrations').where({ name: last }).first()).toBeUndefined();
        } finally {
          await direct.destroy();
        }
      } finally {
        await behind.drop();
      }
    });

    (TEST_ENGINE === 'mariadb' ? it : it.skip)(
      'says how to create a MariaDB database that does not exist',
      async () => {
        const url = db.url.replace(/\/[^/]+$/, '/reseller_cli_no_such_database');
        const run = await cli({ ...env, DATABASE_URL: url }, 'group', 'list');
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(
          /the database "reseller_cli_no_such_database" does not exist on the MariaDB\/MySQL server \(DATABASE_URL\): create it/,
        );
      },
    );
  });

  it('shows each domain with its owner’s email', async () => {
    const module = await createResellerModule({
      database: db.url,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
    });
    try {
      await givenGroupSellingCom(module, 'default');
      await module.services.resellers.create('reseller@example.com', 'default', 0);
      await module.services.resellers.create('other@example.com', 'default', 0);
      await givenDomain(module, 'owned-one.com');
      await givenDomain(module, 'owned-two.com', { owner: 'other@example.com' });
    } finally {
      await module.close();
    }
    const list = await cli(env, 'domain', 'list');
    expect(list.json().map((d: { domain: string; reseller: string }) => [d.domain, d.reseller])).toEqual([
      ['owned-one.com', 'reseller@example.com'],
      ['owned-two.com', 'other@example.com'],
    ]);
    expect((await cli(env, 'domain', 'list', '--reseller', 'other@example.com')).json()).toEqual([
      expect.objectContaining({ domain: 'owned-two.com', reseller: 'other@example.com' }),
    ]);
    expect((await cli(env, 'domain', 'show', 'owned-two.com')).json()).toMatchObject({
      domain: 'owned-two.com',
      reseller: 'other@example.com',
      registrar: 'sandbox',
    });
  });
});
