import { MemoryPluginStore } from '../../../src/testing/memory-plugin-store';
import eppPlugin from '../../../plugins/epp';
import { EppTimeoutError } from '../../../plugins/epp/src/connection';
import { EppTemporaryError, EppUnavailableError } from '../../../plugins/epp/src/session-pool';
import { NS } from '../../../plugins/epp/src/xml';
import { fixedClock } from '../../../src/core/common/clock';
import { isPluginNotConfigured } from '../../../src/core/registrar/plugin';
import { makeTestCertificates, type TestCertificates } from '../../support/epp/certificates';
import { clTRIDFor, REGISTRANT, startEppFixture, type EppFixture } from '../../support/epp/epp-fixture';

/** Waits for something the server will see soon (never asserts how long it took). */
async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
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

describe('EPP sessions (RFC 5730, 5734)', () => {
  let f: EppFixture;
  let certificates: TestCertificates;
  beforeAll(() => {
    certificates = makeTestCertificates();
  });
  afterAll(() => certificates.remove());
  beforeEach(async () => {
    f = await startEppFixture({ certificates });
  });
  afterEach(async () => {
    const errors = f.server.protocolErrors;
    await f.close();
    expect(errors).toEqual([]);
  });

  describe('TLS', () => {
    it('refuses a server whose certificate the configured CA did not sign', async () => {
      const plugin = await f.plugin({ ca: f.certificates.otherCa });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).rejects.toThrow(EppUnavailableError);
      expect(f.server.stats.logins).toBe(0);
    });

    it('checks the server certificate against the system roots when no CA is configured', async () => {
      const plugin = await f.plugin({ ca: undefined });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).rejects.toThrow(/certificate/);
    });

    it('connects to a test bed with verification explicitly off', async () => {
      const plugin = await f.plugin({ ca: undefined, verifyServerCertificate: false });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).resolves.toEqual([
        { domain: 'a.test', status: 'available' },
      ]);
    });

    it('is refused by the server with a client certificate from another CA', async () => {
      const plugin = await f.plugin({ cert: f.certificates.strangerCert, key: f.certificates.strangerKey });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).rejects.toThrow(EppUnavailableError);
      expect(f.server.stats.logins).toBe(0);
    });
  });

  describe('greeting and login', () => {
    it('logs in with the objects and extensions the greeting offers', async () => {
      const plugin = await f.plugin();
      await plugin.checkAvailability(['a.test'], f.ctx());
      expect(f.server.registry.logins).toEqual([
        { clientId: 'registrar-a', objects: [NS.domain, NS.host, NS.contact], extensions: [NS.secDNS, NS.rgp] },
      ]);
    });

    it('leaves out what the server does not offer or the operator turned off', async () => {
      await f.close();
      f = await startEppFixture({ certificates, contacts: false, extensions: [NS.rgp] });
      const plugin = await f.plugin({ extensions: ['rgp', 'secDNS'] });
      await plugin.checkAvailability(['a.test'], f.ctx());
      const plugin2 = await f.plugin({ hostMode: 'attributes', extensions: [] });
      await plugin2.checkAvailability(['a.test'], f.ctx());
      expect(f.server.registry.logins).toEqual([
        { clientId: 'registrar-a', objects: [NS.domain, NS.host], extensions: [NS.rgp] },
        { clientId: 'registrar-a', objects: [NS.domain], extensions: [] },
      ]);
    });

    it("reports a refused login with the server's words, and backs off", async () => {
      const plugin = await f.plugin({ password: 'wrong-password' });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).rejects.toThrow(
        /login refused: Authentication error \(EPP 2200\)/,
      );
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).rejects.toThrow(/next connection attempt in/);
      expect(f.server.stats.connections).toBe(1);
    });
  });

  describe('keep-alive and shutdown', () => {
    it('sends <hello> on an idle session and keeps using it', async () => {
      const plugin = await f.plugin({ keepAliveMs: 30, sessions: 1 });
      await plugin.checkAvailability(['a.test'], f.ctx());
      await eventually(() => f.server.stats.hellos >= 2, 'two hellos');
      await plugin.checkAvailability(['b.test'], f.ctx());
      expect(f.server.stats.connections).toBe(1);
    });

    it('logs every session out on close', async () => {
      const plugin = await f.plugin({ sessions: 3 });
      await Promise.all(['a', 'b', 'c'].map((n) => plugin.checkAvailability([`${n}.test`], f.ctx())));
      expect(f.server.stats.logins).toBe(3);
      await plugin.close();
      expect(f.server.stats.logouts).toBe(3);
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).rejects.toThrow(/shut down/);
    });
  });

  describe('the session pool', () => {
    it('runs concurrent commands on at most the configured number of sessions', async () => {
      const plugin = await f.plugin({ sessions: 2 });
      const names = Array.from({ length: 8 }, (_, i) => `n${i}.test`);
      const results = await Promise.all(names.map((n) => plugin.checkAvailability([n], f.ctx())));
      expect(results.flat().every((r) => r.status === 'available')).toBe(true);
      expect(f.server.stats.logins).toBe(2);
    });

    it('gives every command a unique clTRID that starts with the call transaction id', async () => {
      const plugin = await f.plugin();
      const ctx = f.ctx();
      await expect(plugin.register(order('trid.test'), ctx)).resolves.toMatchObject({ ok: true });
      const trids = f.server.received.map((r) => r.clTRID);
      expect(new Set(trids).size).toBe(trids.length);
      expect(f.server.commands('domain:create')[0]!.clTRID).toMatch(clTRIDFor(ctx.transactionId));
      expect(f.server.commands('contact:create')[0]!.clTRID).toMatch(clTRIDFor(ctx.transactionId));
    });

    it('keeps a transaction id that does not fit a clTRID recognisable and within 64 characters', async () => {
      const plugin = await f.plugin();
      await plugin.checkAvailability(['a.test'], f.ctx({ transactionId: `order 42/${'x'.repeat(80)}` }));
      const trid = f.server.commands('domain:check')[0]!.clTRID!;
      expect(trid.length).toBeLessThanOrEqual(64);
      expect(trid).toMatch(/^order-42-x+-[0-9a-f]{12}-[0-9a-f]{6}-[0-9a-z]+$/);
    });
  });

  describe('reconnecting', () => {
    it('reconnects after the server dropped the connection', async () => {
      const plugin = await f.plugin();
      await plugin.checkAvailability(['a.test'], f.ctx());
      f.server.dropAllConnections();
      await eventually(() => f.server.stats.connections === 1, 'the drop');
      await expect(plugin.checkAvailability(['b.test'], f.ctx())).resolves.toHaveLength(1);
      expect(f.server.stats.logins).toBe(2);
    });

    it('backs off while the registry is down and comes back when it is up', async () => {
      const plugin = await f.plugin();
      await f.server.stop();
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).rejects.toThrow(/cannot open an EPP session/);
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).rejects.toThrow(/next connection attempt in/);
      await f.server.start();
      let result: unknown;
      await eventually(async () => {
        result = await plugin.checkAvailability(['a.test'], f.ctx()).catch(() => undefined);
        return result !== undefined;
      }, 'a reconnect after the backoff');
      expect(result).toEqual([{ domain: 'a.test', status: 'available' }]);
    });

    it('resends a read-only command once on a new session when the connection drops', async () => {
      const plugin = await f.plugin();
      f.server.inject({ command: 'domain:check', action: 'drop' });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).resolves.toEqual([
        { domain: 'a.test', status: 'available' },
      ]);
      expect(f.server.commands('domain:check')).toHaveLength(2);
      expect(f.server.stats.logins).toBe(2);
    });

    it('never resends a command that changes something once it may have arrived', async () => {
      const plugin = await f.plugin();
      f.server.inject({ command: 'domain:create', action: 'drop' });
      await expect(plugin.register(order('dropped.test'), f.ctx())).rejects.toThrow(
        /may or may not have been carried out/,
      );
      expect(f.server.commands('domain:create')).toHaveLength(1);
    });

    it('leaves a lost answer for reconciliation: the registry did it, and sync says so', async () => {
      const plugin = await f.plugin();
      f.server.inject({ command: 'domain:create', action: 'drop-after' });
      await expect(plugin.register(order('lost.test'), f.ctx())).rejects.toThrow(EppTemporaryError);
      expect(f.server.registry.domains.has('lost.test')).toBe(true);
      await expect(plugin.domainSync.sync({ domain: 'lost.test' }, f.ctx())).resolves.toMatchObject({
        ok: true,
        active: true,
        expiryDate: '2027-11-21',
      });
    });

    it.each([2400, 2500] as const)(
      'throws a temporary failure on %i, drops the session and carries on with a new one',
      async (code) => {
        const plugin = await f.plugin();
        await plugin.checkAvailability(['warm.test'], f.ctx());
        f.server.inject({ command: 'domain:create', action: code });
        const error = await plugin.register(order('fails.test'), f.ctx()).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(EppTemporaryError);
        expect((error as EppTemporaryError).code).toBe(code);
        expect(f.server.registry.domains.has('fails.test')).toBe(false);
        await expect(plugin.register(order('fails.test'), f.ctx())).resolves.toMatchObject({ ok: true });
        expect(f.server.stats.logins).toBe(2);
      },
    );

    it('retries a read-only command once after 2500', async () => {
      const plugin = await f.plugin();
      f.server.inject({ command: 'domain:check', action: 2500 });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).resolves.toEqual([
        { domain: 'a.test', status: 'available' },
      ]);
    });

    it('gives up on a login that does not answer within the connect timeout', async () => {
      f.server.inject({ command: 'login', action: 'slow', delayMs: 1_500 });
      const plugin = await f.plugin({ connectTimeoutMs: 200 });
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).rejects.toThrow(EppTimeoutError);
    });

    it('treats 2502 at login (session limit) as a failed connection', async () => {
      f.server.inject({ command: 'login', action: 2502 });
      const plugin = await f.plugin();
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).rejects.toThrow(/Session limit exceeded/);
    });
  });

  describe('deadlines', () => {
    it('gives up on a slow answer at the command deadline and uses a fresh session next', async () => {
      const plugin = await f.plugin({ commandTimeoutMs: 1_000 });
      f.server.inject({ command: 'domain:info', action: 'slow', delayMs: 4_000 });
      await expect(plugin.nameservers.get({ domain: 'slow.test' }, f.ctx())).rejects.toThrow(EppTimeoutError);
      await expect(plugin.checkAvailability(['a.test'], f.ctx())).resolves.toHaveLength(1);
      expect(f.server.stats.logins).toBe(2);
    });

    it('stops when the call context signal fires', async () => {
      const plugin = await f.plugin();
      f.server.inject({ command: 'domain:create', action: 'slow', delayMs: 1_500 });
      const controller = new AbortController();
      const pending = plugin.register(order('cut.test'), f.ctx({ signal: controller.signal }));
      await eventually(() => f.server.commands('domain:create').length === 1, 'the create');
      controller.abort(new Error('registrar deadline'));
      await expect(pending).rejects.toThrow(/cut off before the registry answered/);
    });
  });

  it('is created as not configured, with a reason naming what to set', async () => {
    const created = await eppPlugin.create(eppPlugin.parseOptions({}), {
      logger: {
        info() {},
        warn() {},
        error() {},
        debug() {},
        child() {
          return this;
        },
      },
      clock: fixedClock('2026-11-21T00:00:00Z'),
      store: new MemoryPluginStore(),
    });
    expect(isPluginNotConfigured(created) && created.reason).toMatch(/^set plugins\.epp \(host, clientId/);
  });
});
