import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { version } from '../../package.json';
import { CliRuntime } from '../../src/cli/cli-program';
import { COMMAND_AREAS } from '../../src/cli/commands';
import { type AuditEntry, actingAs, recordChange } from '../../src/core/audit/audit-log';
import { TOKENS } from '../../src/core/tokens';
import { cli } from '../support/cli';
import { startEppFixture } from '../support/epp/epp-fixture';
import { startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';
import { placeRegister, REGISTRANT } from '../support/wire';

const PLUGINS_DIR = path.join(__dirname, '..', 'fixtures', 'plugins');
const OTHER_MASTER_KEY = Buffer.alloc(32, 9).toString('base64');

/** Commands that change nothing: they read and print. */
const READ_ONLY = new Set([
  'group list',
  'group show',
  'tld list',
  'tld show',
  'reseller show',
  'reseller list',
  'reseller allowed-ips',
  'credit show',
  'domain show',
  'domain list',
  'order list',
  'order show',
  'webhook list',
  'webhook deliveries',
  'log',
  'operator list',
]);

/** Commands that change something but write no audit entry, each with the reason. */
const NOT_AUDITED: Record<string, string> = {
  migrate: 'changes the schema, not the business; it may run before the audit log exists',
};

/** Every leaf command of `reseller-admin`, like "reseller create" (a command with subcommands counts itself too: `log`). */
function leafCommands(): string[] {
  const runtime = new CliRuntime({ stdout: new PassThrough(), stderr: new PassThrough(), env: {} }, version);
  for (const add of COMMAND_AREAS) add(runtime);
  const names: string[] = [];
  const walk = (command: Command, prefix: string[]) => {
    for (const sub of command.commands) {
      const name = [...prefix, sub.name()];
      if (sub.commands.length === 0 || sub.registeredArguments.length > 0) names.push(name.join(' '));
      walk(sub, name);
    }
  };
  walk(runtime.program, []);
  return names;
}

describe('reseller-admin: every change is audited in its own transaction', () => {
  let h: Harness;
  let env: NodeJS.ProcessEnv;
  let dir: string;
  beforeAll(async () => {
    h = await startHarness({ pluginsDir: PLUGINS_DIR, registrar: 'scripted', settings: { registrarTimeoutMs: 100 } });
    env = {
      DATABASE_URL: h.databaseUrl,
      MASTER_KEY: TEST_MASTER_KEY,
      PLUGINS_DIR,
      LOG_LEVEL: 'silent',
      USER: 'ops',
      PUBLIC_URL: 'https://resellers.example.com',
    };
    dir = mkdtempSync(path.join(tmpdir(), 'audit-cli-'));
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const entries = () => h.module.services.audit.find({ limit: 1000 });
  const writtenSince = async (before: readonly AuditEntry[]) => {
    const known = new Set(before.map((e) => e.id));
    return (await entries()).filter((e) => !known.has(e.id));
  };

  async function pendingOrderId(domain: string): Promise<string> {
    const placed = await placeRegister(h, domain);
    expect(placed.body).toBe('success');
    const [order] = await h.module.services.orders.list({ domain, limit: 1 });
    expect(order?.status).toBe('pending');
    return order!.id;
  }

  it('names every command as read-only, not audited with a reason, or audited (a new command must be placed)', () => {
    const audited = new Set(Object.keys(CHANGES));
    const unplaced = leafCommands().filter((c) => !READ_ONLY.has(c) && !(c in NOT_AUDITED) && !audited.has(c));
    expect(unplaced).toEqual([]);
    const placedTwice = [...audited].filter((c) => READ_ONLY.has(c) || c in NOT_AUDITED);
    expect(placedTwice).toEqual([]);
    // And nothing listed that no longer exists.
    const all = new Set(leafCommands());
    expect([...audited, ...READ_ONLY, ...Object.keys(NOT_AUDITED)].filter((c) => !all.has(c))).toEqual([]);
  });

  /** Each audited command, run for real: its argv (after any setup), and the action its entry names. */
  const CHANGES: Record<string, (s: Setup) => Promise<{ argv: string[]; action: string; env?: NodeJS.ProcessEnv }>> = {
    'group create': async () => ({ argv: ['group', 'create', 'wholesale'], action: 'group.create' }),
    'group rename': async () => ({ argv: ['group', 'rename', 'wholesale', 'trade'], action: 'group.rename' }),
    'group set-default-contact': async () => {
      const file = path.join(dir, 'contact.json');
      writeFileSync(file, JSON.stringify(REGISTRANT));
      return { argv: ['group', 'set-default-contact', 'trade', file], action: 'group.default_contact.set' };
    },
    'group set-addon-prices': async () => ({
      argv: ['group', 'set-addon-prices', 'trade', '--addons', 'idprotection=2.00'],
      action: 'group.addon_prices.set',
    }),
    'group set-premium-rule': async () => ({
      argv: ['group', 'set-premium-rule', 'trade', '--markup', '20'],
      action: 'group.premium_rule.set',
    }),
    'tld set': async () => ({
      argv: ['tld', 'set', '.com', '--group', 'trade', '--registrar', 'scripted', '--register', '1=10.00,2=19.00'],
      action: 'tld.set',
    }),
    'tld remove-price': async () => ({
      argv: ['tld', 'remove-price', '.com', '--group', 'trade', '--action', 'register', '--period', '2'],
      action: 'tld.remove_price',
    }),
    'tld stop-selling': async () => ({
      argv: ['tld', 'stop-selling', '.com', '--group', 'trade'],
      action: 'tld.stop_selling',
    }),
    'tld import-costs': async () => ({
      argv: ['tld', 'import-costs', 'sandbox', '--group', 'trade', '--tlds', '.io', '--percent', '10'],
      action: 'tld.set',
    }),
    'group delete': async () => {
      await cli(env, 'group', 'create', 'doomed');
      return { argv: ['group', 'delete', 'doomed'], action: 'group.delete' };
    },
    'reseller create': async () => ({
      argv: ['reseller', 'create', 'shop@example.com', '--group', 'trade', '--credit', '20.00'],
      action: 'reseller.create',
    }),
    'reseller invite': async () => ({
      argv: ['reseller', 'invite', 'shop@example.com'],
      action: 'reseller.portal.invite',
    }),
    'reseller reset-portal-2fa': async () => ({
      argv: ['reseller', 'reset-portal-2fa', 'shop@example.com'],
      action: 'reseller.portal.second_factor.remove',
    }),
    'reseller rotate-key': async () => ({
      argv: ['reseller', 'rotate-key', 'shop@example.com'],
      action: 'reseller.key.rotate',
    }),
    'reseller suspend': async () => ({ argv: ['reseller', 'suspend', 'shop@example.com'], action: 'reseller.suspend' }),
    'reseller activate': async () => ({
      argv: ['reseller', 'activate', 'shop@example.com'],
      action: 'reseller.resume',
    }),
    'reseller change-email': async () => ({
      argv: ['reseller', 'change-email', 'shop@example.com', 'store@example.com'],
      action: 'reseller.email.change',
    }),
    'reseller move': async () => ({
      argv: ['reseller', 'move', 'store@example.com', '--group', 'default'],
      action: 'reseller.group.change',
    }),
    'reseller allow-ip': async () => ({
      argv: ['reseller', 'allow-ip', 'store@example.com', '192.0.2.0/24'],
      action: 'reseller.allow_list.add',
    }),
    'reseller disallow-ip': async () => ({
      argv: ['reseller', 'disallow-ip', 'store@example.com', '192.0.2.0/24'],
      action: 'reseller.allow_list.remove',
    }),
    'reseller set-low-credit': async () => ({
      argv: ['reseller', 'set-low-credit', 'store@example.com', '5.00'],
      action: 'reseller.low_credit.set',
    }),
    'credit add': async () => ({
      argv: ['credit', 'add', 'store@example.com', '-20.00', '--note', 'refund on closing'],
      action: 'reseller.credit.adjust',
    }),
    'reseller close': async () => ({ argv: ['reseller', 'close', 'store@example.com'], action: 'reseller.close' }),
    'order settle': async () => {
      const id = await pendingOrderId('lost-settle.com');
      return { argv: ['order', 'settle', id, '--refund', '--note', 'ticket 42'], action: 'order.settle.refund' };
    },
    reconcile: async () => ({ argv: ['reconcile'], action: 'reconcile.run' }),
    sync: async () => ({ argv: ['sync'], action: 'sync.run' }),
    'webhook add': async () => ({
      argv: ['webhook', 'add', '--operator', 'https://hooks.example.com/in'],
      action: 'webhook.add',
    }),
    'webhook rotate-secret': async (s) => ({
      argv: ['webhook', 'rotate-secret', await s.endpointId()],
      action: 'webhook.secret.rotate',
    }),
    'webhook enable': async (s) => ({ argv: ['webhook', 'enable', await s.endpointId()], action: 'webhook.enable' }),
    'webhook replay': async (s) => ({
      argv: ['webhook', 'replay', await s.deadDelivery()],
      action: 'webhook.delivery.replay',
    }),
    'webhook remove': async (s) => ({ argv: ['webhook', 'remove', await s.endpointId()], action: 'webhook.remove' }),
    'log purge': async () => ({ argv: ['log', 'purge', '--before', '1d'], action: 'api_log.purge' }),
    'operator create': async () => ({
      argv: ['operator', 'create', 'boss@example.com', '--role', 'admin'],
      action: 'operator.create',
    }),
    'operator password-link': async () => ({
      argv: ['operator', 'password-link', 'boss@example.com'],
      action: 'operator.password_link',
    }),
    'operator disable': async () => ({ argv: ['operator', 'disable', 'boss@example.com'], action: 'operator.disable' }),
    'operator enable': async () => ({ argv: ['operator', 'enable', 'boss@example.com'], action: 'operator.enable' }),
    'operator reset-2fa': async () => ({
      argv: ['operator', 'reset-2fa', 'boss@example.com'],
      action: 'operator.second_factor.reset',
    }),
    'epp change-password': async (s) => ({
      argv: ['epp', 'change-password', '--new-password-env', 'NEW_EPP_PASSWORD'],
      action: 'epp.password.change',
      env: await s.eppEnv(),
    }),
    // Last: the stored API keys are then sealed under another key (put back after the run).
    'master-key replace-lost': async () => ({
      argv: ['master-key', 'replace-lost', '--confirm'],
      action: 'reseller.key.reissue',
      env: { ...env, MASTER_KEY: OTHER_MASTER_KEY },
    }),
  };

  interface Setup {
    endpointId(): Promise<string>;
    deadDelivery(): Promise<string>;
    eppEnv(): Promise<NodeJS.ProcessEnv>;
  }

  it('writes an entry by the CLI actor for every audited command, in the order a business runs them', async () => {
    const cleanups: Array<() => Promise<void>> = [];
    const setup: Setup = {
      endpointId: async () => (await h.module.services.webhooks.list(null))[0]!.id,
      deadDelivery: async () => {
        const endpointId = (await h.module.services.webhooks.list(null))[0]!.id;
        const id = '01JDEADDELIVERY00000000000';
        await h.module.knex('webhook_deliveries').insert({
          id,
          event_id: 'evt_01JDEADEVENT0000000000000',
          endpoint_id: endpointId,
          event_type: 'credit.changed',
          status: 'dead',
          attempts: 8,
          next_attempt_at: 0,
          created_at: Date.now(),
        });
        return id;
      },
      eppEnv: async () => {
        const f = await startEppFixture();
        cleanups.push(() => f.close());
        const configFile = path.join(dir, 'epp.json');
        writeFileSync(configFile, JSON.stringify({ plugins: { epp: f.pluginOptions } }));
        return { ...env, CONFIG_FILE: configFile, NEW_EPP_PASSWORD: 'brand-new-pw' };
      },
    };
    try {
      for (const [command, prepare] of Object.entries(CHANGES)) {
        const { argv, action, env: own } = await prepare(setup);
        const before = await entries();
        const run = await cli(own ?? env, '--actor', 'dana', ...argv);
        expect([command, run.code]).toEqual([command, 0]);
        const written = await writtenSince(before);
        expect([command, written.map((e) => e.action)]).toEqual([command, expect.arrayContaining([action])]);
        for (const entry of written)
          expect([command, entry.actor]).toMatchObject([command, { kind: 'cli', label: 'cli:dana' }]);
      }
    } finally {
      for (const cleanup of cleanups) await cleanup();
      // The test's own key back, for the harness and the tests after this one.
      expect((await cli(env, 'master-key', 'replace-lost', '--confirm')).code).toBe(0);
    }
  });

  it('names the shell user, or RESELLER_ADMIN_ACTOR, when no --actor is given', async () => {
    const before = await entries();
    expect((await cli(env, 'group', 'create', 'by-shell-user')).code).toBe(0);
    expect((await cli({ ...env, RESELLER_ADMIN_ACTOR: 'erin' }, 'group', 'create', 'by-variable')).code).toBe(0);
    expect((await writtenSince(before)).map((e) => e.actor.label).sort()).toEqual(['cli:erin', 'cli:ops']);
  });

  it('leaves no entry when the change fails (the entry is in the change’s transaction)', async () => {
    await cli(env, 'reseller', 'create', 'poor@example.com', '--group', 'default', '--credit', '1.00');
    const before = await entries();
    const overdrawn = await cli(env, 'credit', 'add', 'poor@example.com', '-5.00', '--note', 'too much');
    expect(overdrawn.code).toBe(1);
    const taken = await cli(env, 'group', 'rename', 'default', 'default');
    expect(taken.code).toBe(0);
    const clash = await cli(env, 'reseller', 'create', 'poor@example.com', '--group', 'default');
    expect(clash.code).toBe(1);
    expect(await writtenSince(before)).toEqual([]);
  });

  it('rolls an entry back with the unit of work it was written in', async () => {
    const before = await entries();
    const uow = h.module.container.get(TOKENS.unitOfWork);
    const failing = actingAs({ kind: 'cli', id: null, label: 'cli:dana' }, () =>
      uow.run(async ({ audit, groups }) => {
        await recordChange(audit, h.clock, { action: 'group.create', subject: { kind: 'group', id: 'x' } });
        await groups.insert({ id: 'G1', name: 'half-made', defaultContact: null });
        throw new Error('the change fails after its entry was written');
      }),
    );
    await expect(failing).rejects.toThrow('fails after');
    expect(await writtenSince(before)).toEqual([]);
    expect(await h.module.services.resellers.group('half-made').catch(() => undefined)).toBeUndefined();
  });
});
