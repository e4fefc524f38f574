import { changeRegistryPassword } from '../../../plugins/epp/src/change-password';
import { authCodeBits, newAuthCode } from '../../../plugins/epp/src/contacts';
import { parseOptions, type EppOptions } from '../../../plugins/epp/src/options';
import { NS } from '../../../plugins/epp/src/xml';
import { makeTestCertificates, type TestCertificates } from '../../support/epp/certificates';
import { REGISTRANT, startEppFixture, type EppFixture } from '../../support/epp/epp-fixture';
import type { EppTestServerOptions } from '../../support/epp/epp-test-server';

/**
 * What registries enforce and our own test server once let through (issue 12): password lengths
 * and loginSec, one-time password changes, clTRIDs never reused, auth info policies, one bad name
 * in a batched check, subordinate hosts left out of info, idle sessions dropped.
 */

async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const order = (domain: string) => ({
  domain,
  period: 1,
  nameservers: ['ns1.host.net', 'ns2.host.net'],
  contacts: { registrant: REGISTRANT },
  addons: {},
  fields: {},
});

const LONG_PASSWORD = 'correct-horse-battery-staple-42';

describe('the EPP plugin against registry rules', () => {
  let f: EppFixture;
  let certificates: TestCertificates;
  beforeAll(() => {
    certificates = makeTestCertificates();
  });
  afterAll(() => certificates.remove());
  const start = async (options: Partial<EppTestServerOptions> = {}) => {
    f = await startEppFixture({ certificates, ...options });
  };
  afterEach(async () => {
    const errors = f.server.protocolErrors;
    await f.close();
    expect(errors).toEqual([]);
  });

  describe('login password (RFC 5730 pwType, RFC 8807 loginSec)', () => {
    it('sends a password over 16 characters through loginSec when the greeting offers it', async () => {
      await start({
        registrars: { 'registrar-a': LONG_PASSWORD },
        extensions: [NS.secDNS, NS.rgp, NS.loginSec],
      });
      const plugin = await f.plugin({ password: LONG_PASSWORD });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).resolves.toEqual([
        { domain: 'a.test', status: 'available' },
      ]);
      expect(f.server.registry.logins).toEqual([
        {
          clientId: 'registrar-a',
          objects: [NS.domain, NS.host, NS.contact],
          extensions: [NS.secDNS, NS.rgp, NS.loginSec],
        },
      ]);
    });

    it('logs in with a long password at a registry that reads only unprefixed loginSec children', async () => {
      await start({
        registrars: { 'registrar-a': LONG_PASSWORD },
        extensions: [NS.secDNS, NS.rgp, NS.loginSec],
        loginSecUnprefixedOnly: true,
      });
      const plugin = await f.plugin({ password: LONG_PASSWORD });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).resolves.toEqual([
        { domain: 'a.test', status: 'available' },
      ]);
    });

    it('changes to a long password at such a registry, never leaving it the [LOGIN-SECURITY] placeholder', async () => {
      await start({ extensions: [NS.secDNS, NS.rgp, NS.loginSec], loginSecUnprefixedOnly: true });
      const options = (parseOptions(f.pluginOptions) as { options: EppOptions }).options;
      await changeRegistryPassword(options, LONG_PASSWORD);
      expect(f.server.registry.passwordOf('registrar-a')).toBe(LONG_PASSWORD);
      const plugin = await f.plugin({ password: LONG_PASSWORD });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).resolves.toHaveLength(1);
    });

    it('keeps a password of 6 to 16 characters in <pw> and leaves loginSec out', async () => {
      await start({ registrars: { 'registrar-a': 'sixchr' }, extensions: [NS.secDNS, NS.rgp, NS.loginSec] });
      const plugin = await f.plugin({ password: 'sixchr' });
      await plugin.checkAvailability(['a.test'], f.ctx());
      expect(f.server.registry.logins[0]!.extensions).toEqual([NS.secDNS, NS.rgp]);
    });

    it('sends nothing and names the option when a long password meets a registry without loginSec', async () => {
      await start({ registrars: { 'registrar-a': LONG_PASSWORD } });
      const plugin = await f.plugin({ password: LONG_PASSWORD });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).rejects.toThrow(
        'the configured password (plugins.epp.password or passwordEnv) has 31 characters; this registry takes ' +
          '6 to 16 (RFC 5730) and its greeting does not offer the loginSec extension (RFC 8807) that carries ' +
          'longer ones: configure a password of 6 to 16 characters',
      );
      expect(f.server.received).toEqual([]);
      expect(f.logs.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual([
        'epp plugin configuration does not fit the registry',
      ]);
    });

    it('refuses a password shorter than 6 characters when the options are read', async () => {
      await start();
      expect(() => parseOptions({ ...f.pluginOptions, password: 'short' })).toThrow(
        'password must have at least 6 characters (RFC 5730)',
      );
    });
  });

  describe('changing the registry password', () => {
    it('is not an option of normal logins any more: newPassword is refused with the way to do it', async () => {
      await start();
      expect(() => parseOptions({ ...f.pluginOptions, newPassword: 'new-password' })).toThrow(
        /newPassword is not an option: change the registry password once with `reseller-admin epp change-password`/,
      );
    });

    it('logs in once with the old password and <newPW>, logs out, and later logins use the new one', async () => {
      await start();
      const options = (parseOptions(f.pluginOptions) as { options: EppOptions }).options;
      await expect(changeRegistryPassword(options, 'brand-new-pw')).resolves.toEqual({
        message:
          'the registry accepted the new password: set plugins.epp.password (or the variable named by passwordEnv) ' +
          'to it now; the old one no longer logs in',
      });
      expect(f.server.stats).toMatchObject({ logins: 1, logouts: 1 });
      expect(f.server.received.map((r) => [r.command, r.code])).toEqual([
        ['login', 1000],
        ['logout', 1500],
      ]);
      const plugin = await f.plugin({ password: 'brand-new-pw' });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).resolves.toHaveLength(1);
      const stale = await f.plugin();
      await expect(stale.checkAvailability(['a.test'], f.ctx())).rejects.toThrow(/Authentication error \(EPP 2200\)/);
    });

    it('sends a long new password through loginSec when the registry offers it', async () => {
      await start({ extensions: [NS.secDNS, NS.rgp, NS.loginSec] });
      const options = (parseOptions(f.pluginOptions) as { options: EppOptions }).options;
      await changeRegistryPassword(options, LONG_PASSWORD);
      const plugin = await f.plugin({ password: LONG_PASSWORD });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).resolves.toHaveLength(1);
    });

    it('refuses a long new password before connecting when the registry has no loginSec', async () => {
      await start();
      const options = (parseOptions(f.pluginOptions) as { options: EppOptions }).options;
      await expect(changeRegistryPassword(options, LONG_PASSWORD)).rejects.toThrow(
        /the new password has 31 characters; this registry takes 6 to 16/,
      );
      expect(f.server.stats.logins).toBe(0);
    });

    it("reports the registry's refusal and leaves the configured password as it was", async () => {
      await start();
      const options = (parseOptions({ ...f.pluginOptions, password: 'not-the-password' }) as { options: EppOptions })
        .options;
      await expect(changeRegistryPassword(options, 'brand-new-pw')).rejects.toThrow(
        /the registry refused the password change: Authentication error \(EPP 2200\); keep the configured password/,
      );
      const plugin = await f.plugin();
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).resolves.toHaveLength(1);
    });
  });

  describe('client transaction ids', () => {
    it('gives a read-only command resent after a 2400 a new clTRID', async () => {
      await start();
      const plugin = await f.plugin();
      f.server.inject({ command: 'domain:check', action: 2400 });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).resolves.toEqual([
        { domain: 'a.test', status: 'available' },
      ]);
      const [first, second] = f.server.commands('domain:check');
      expect(first!.clTRID).not.toBe(second!.clTRID);
    });

    it('never repeats a clTRID when calls share a transaction id, and each starts with it', async () => {
      await start();
      const plugin = await f.plugin();
      const ctx = f.ctx({ transactionId: 'order-0042' });
      await plugin.register(order('again.test'), ctx);
      await plugin.renew({ domain: 'again.test', period: 1, currentExpiryDate: null }, ctx);
      await plugin.renew({ domain: 'again.test', period: 1, currentExpiryDate: null }, ctx);
      const trids = f.server.received.filter((r) => r.clTRID?.startsWith('order-0042')).map((r) => r.clTRID!);
      expect(trids.length).toBeGreaterThan(6);
      expect(new Set(trids).size).toBe(trids.length);
      expect(trids.every((t) => t.length >= 3 && t.length <= 64)).toBe(true);
    });

    it('keeps clTRIDs unique across two plugin instances of one registrar', async () => {
      await start();
      const one = await f.plugin();
      const two = await f.plugin();
      const ctx = f.ctx({ transactionId: 'same-id' });
      await one.checkAvailability(['a.test'], ctx);
      await two.checkAvailability(['a.test'], ctx);
      const [a, b] = f.server.commands('domain:check');
      expect(a!.clTRID).not.toBe(b!.clTRID);
    });
  });

  describe('auth info codes', () => {
    it('creates contacts and domains with codes a secure-authinfo registry (20 to 64 characters) accepts', async () => {
      await start();
      const plugin = await f.plugin();
      await expect(plugin.register(order('secure.test'), f.ctx())).resolves.toMatchObject({ ok: true });
      const domain = f.server.registry.domains.get('secure.test')!;
      expect(domain.authInfo).toHaveLength(24);
      const contact = f.server.registry.contacts.get(domain.registrant!)!;
      expect(contact.authInfo).toHaveLength(24);
    });

    it('sets a fresh EPP code of the policy when the registry does not show the current one', async () => {
      await start();
      f.server.registry.seedDomain('hidden.test', { sponsor: 'registrar-a', authInfo: '' });
      const plugin = await f.plugin();
      const answer = await plugin.eppCode.get({ domain: 'hidden.test' }, f.ctx());
      expect(answer).toEqual({ ok: true, eppCode: f.server.registry.domains.get('hidden.test')!.authInfo });
      expect((answer as { eppCode: string }).eppCode).toHaveLength(24);
    });

    it('follows a configured length and set of characters', async () => {
      await start({ authInfoLength: { min: 32, max: 40 } });
      const plugin = await f.plugin({ authInfoLength: 32, authInfoCharacters: ['lower', 'digit'] });
      await plugin.register(order('policy32.test'), f.ctx());
      expect(f.server.registry.domains.get('policy32.test')!.authInfo).toMatch(/^[a-z2-9]{32}$/);
    });

    it('has at least 128 bits of randomness and every class asked for by default', async () => {
      await start();
      const policy = { length: 24, characters: ['lower', 'upper', 'digit', 'symbol'] } as const;
      expect(authCodeBits(policy)).toBeGreaterThanOrEqual(128);
      const code = newAuthCode(policy);
      expect(code).toHaveLength(24);
      for (const set of [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/]) expect(code).toMatch(set);
    });

    it('refuses a policy of fewer than 128 bits when the options are read', async () => {
      await start();
      expect(() => parseOptions({ ...f.pluginOptions, authInfoLength: 16, authInfoCharacters: ['digit'] })).toThrow(
        /authInfoLength and authInfoCharacters give 4[0-9] bits of randomness; at least 128 are needed/,
      );
    });
  });

  describe('a batched check with one name the registry cannot parse', () => {
    it('answers the valid names, leaves only the bad one unknown, and logs the registry message', async () => {
      await start();
      const plugin = await f.plugin({ checkBatchSize: 5 });
      f.server.registry.seedDomain('taken.test', { sponsor: 'registrar-b' });
      await expect(
        plugin.checkAvailability(['free.test', 'ab--cd.test', 'taken.test', 'other.example'], f.ctx()),
      ).resolves.toEqual([
        { domain: 'free.test', status: 'available' },
        { domain: 'ab--cd.test', status: 'unknown' },
        { domain: 'taken.test', status: 'registered' },
        { domain: 'other.example', status: 'available' },
      ]);
      expect(f.logs).toContainEqual({
        level: 'warn',
        obj: expect.objectContaining({
          domains: ['ab--cd.test'],
          registry: 'Parameter value syntax error: Invalid domain name syntax: ab--cd.test (EPP 2005)',
        }),
        msg: 'epp check refused',
      });
      // The name the registry pointed at was checked alone, the rest together: three checks in all.
      expect(f.server.commands('domain:check')).toHaveLength(3);
    });

    it('splits a batch the registry refuses without naming the culprit until each name is answered', async () => {
      await start({ maxCheckNames: 2 });
      const plugin = await f.plugin({ checkBatchSize: 5 });
      const names = ['a.test', 'b.test', 'c.test', 'd.test', 'e.test'];
      const answers = await plugin.checkAvailability(names, f.ctx());
      expect(answers.map((a) => a.status)).toEqual(names.map(() => 'available'));
    });
  });

  describe('registries that leave subordinate hosts out of <domain:infData>', () => {
    it('lists the child nameservers the plugin created under the domain', async () => {
      await start({ omitsSubordinateHosts: true });
      const plugin = await f.plugin();
      await plugin.register(order('parent.test'), f.ctx());
      await plugin.childHosts.register(
        { domain: 'parent.test', host: 'ns1.parent.test', ipAddress: '192.0.2.1' },
        f.ctx(),
      );
      await plugin.childHosts.register(
        { domain: 'parent.test', host: 'ns2.parent.test', ipAddress: '192.0.2.2' },
        f.ctx(),
      );
      await plugin.childHosts.delete({ domain: 'parent.test', host: 'ns2.parent.test' }, f.ctx());
      const info = await plugin.domainInformation.get({ domain: 'parent.test' }, f.ctx());
      expect(info).toMatchObject({ ok: true, extra: { childNameservers: ['ns1.parent.test'] } });
    });
  });

  describe('idle sessions', () => {
    it('sends <hello> before the common idle limits by default', async () => {
      await start();
      const { options } = parseOptions(f.pluginOptions) as { options: EppOptions };
      expect(options.keepAliveMs).toBeLessThan(120_000);
    });

    it('keeps a session the registry would drop when idle alive with <hello>', async () => {
      await start({ idleTimeoutMs: 400 });
      const plugin = await f.plugin({ keepAliveMs: 100, sessions: 1 });
      await plugin.checkAvailability(['a.test'], f.ctx());
      await eventually(() => f.server.stats.hellos >= 5, 'five hellos');
      await plugin.checkAvailability(['b.test'], f.ctx());
      expect(f.server.stats).toMatchObject({ connections: 1, idleDrops: 0 });
    });

    it('reconnects when the registry dropped an idle session anyway', async () => {
      await start({ idleTimeoutMs: 1_000 });
      const plugin = await f.plugin({ keepAliveMs: 60_000, sessions: 1 });
      await plugin.checkAvailability(['a.test'], f.ctx());
      await eventually(() => f.server.stats.idleDrops === 1, 'the idle drop');
      await expect(plugin.register(order('after-idle.test'), f.ctx())).resolves.toMatchObject({ ok: true });
      expect(f.server.stats.logins).toBe(2);
    });
  });
});
