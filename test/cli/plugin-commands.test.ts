import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createResellerModule } from '../../src/module';
import { cli, migratedTestDatabase } from '../support/cli';
import { TEST_MASTER_KEY } from '../support/harness';
import { TEST_ENGINE, type TestDatabase } from '../support/test-database';

const PLUGINS_DIR = path.join(__dirname, '..', 'fixtures', 'command-plugins');

/** A plugin adds operator commands through its definition's `commands` (docs/plugins.md#operator-commands). */
describe(`reseller-admin commands a plugin contributes (${TEST_ENGINE})`, () => {
  let db: TestDatabase;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    db = await migratedTestDatabase();
    dir = mkdtempSync(path.join(tmpdir(), 'plugin-commands-'));
    const configFile = path.join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ plugins: { greeter: { greeting: 'Good evening' } } }));
    env = {
      DATABASE_URL: db.url,
      MASTER_KEY: TEST_MASTER_KEY,
      LOG_LEVEL: 'silent',
      PLUGINS_DIR,
      CONFIG_FILE: configFile,
      RESELLER_ADMIN_ACTOR: 'ops',
    };
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  });

  /** The audit entries `run` wrote, oldest first. */
  async function auditedDuring(run: () => Promise<unknown>) {
    const module = await createResellerModule({
      database: db.url,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
      pluginsDir: PLUGINS_DIR,
    });
    try {
      const seen = new Set((await module.services.audit.find({ limit: 1000 })).map((e) => e.id));
      await run();
      return (await module.services.audit.find({ limit: 1000 })).filter((e) => !seen.has(e.id)).reverse();
    } finally {
      await module.close();
    }
  }

  it("runs a plugin's command with its configured options and flags, prints its result and audits the run", async () => {
    let run!: Awaited<ReturnType<typeof cli>>;
    const written = await auditedDuring(async () => {
      run = await cli(env, 'greeter', 'greet', '--who', 'Ann', '--times', '2');
    });
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.json()).toEqual({ said: ['Good evening, Ann!', 'Good evening, Ann!'] });
    // What was asked is on record before the plugin acts (a run cut off midway leaves it), then the outcome.
    expect(written).toEqual([
      expect.objectContaining({
        action: 'greeter.greet.requested',
        actor: expect.objectContaining({ kind: 'cli', label: 'cli:ops' }),
        subject: { kind: 'registrar', id: 'greeter' },
        after: { flags: { who: 'Ann', times: '2' } },
      }),
      expect.objectContaining({
        action: 'greeter.greet',
        actor: expect.objectContaining({ kind: 'cli', label: 'cli:ops' }),
        subject: { kind: 'registrar', id: 'greeter' },
      }),
    ]);
  });

  it("lists the plugin's commands in the help beside the built-in ones", async () => {
    const top = await cli(env, '--help');
    expect(top.stdout).toMatch(/greeter +operator commands of the greeter registrar/);
    expect(top.stdout).toMatch(/epp +operator commands of the epp registrar/);
    const greet = await cli(env, 'greeter', 'greet', '--help');
    expect(greet.code).toBe(0);
    expect(greet.stdout).toContain('--who <name>');
    expect(greet.stdout).toContain('The greeting comes from plugins.greeter.greeting.');
  });

  it('answers a usage error of the plugin with exit 2 and its message, and audits the refusal', async () => {
    const refused = await auditedDuring(async () => {
      const run = await cli(env, 'greeter', 'greet', '--who', 'Ann', '--times', '9');
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('error: --times must be 1, 2 or 3');
    });
    expect(refused.map((e) => [e.action, e.actor.label, e.after])).toEqual([
      ['greeter.greet.requested', 'cli:ops', { flags: { who: 'Ann', times: '9' } }],
      ['greeter.greet.refused', 'cli:ops', { reason: '--times must be 1, 2 or 3' }],
    ]);
    // Refused by the command line itself, before the plugin is given anything: nothing was asked of it.
    const notStarted = await auditedDuring(async () => {
      const missing = await cli(env, 'greeter', 'greet');
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("required option '--who <name>' not specified");
    });
    expect(notStarted).toEqual([]);
  });

  it("fails with exit 1 and the plugin's message when its command fails, and audits the failure", async () => {
    const written = await auditedDuring(async () => {
      const run = await cli(env, 'greeter', 'fail');
      expect(run.code).toBe(1);
      expect(run.stderr).toBe('error: the registry refused\n');
    });
    expect(written.map((e) => [e.action, e.actor.label, e.subject, e.after])).toEqual([
      ['greeter.fail.requested', 'cli:ops', { kind: 'registrar', id: 'greeter' }, { flags: {} }],
      ['greeter.fail.failed', 'cli:ops', { kind: 'registrar', id: 'greeter' }, { reason: 'the registry refused' }],
    ]);
  });

  it('has no command of a plugin that is not installed', async () => {
    const run = await cli({ ...env, PLUGINS_DIR: '' }, 'greeter', 'greet', '--who', 'Ann');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown command 'greeter'");
  });
});
