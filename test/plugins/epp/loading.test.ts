import path from 'node:path';
import manifest from '../../../plugins/epp/package.json';
import { guardRegistrar } from '../../../src/core/registrar/guarded-registrar';
import { CAPABILITY_NAMES, supports } from '../../../src/core/registrar/plugin';
import { fixedClock } from '../../../src/core/common/clock';
import { MemoryPluginStore } from '../../../src/testing/memory-plugin-store';
import { loadPlugins } from '../../../src/infra/plugins/plugin-loader';
import { EppConnection } from '../../../plugins/epp/src/connection';
import { REGISTRY_NOW, startEppFixture, type EppFixture } from '../../support/epp/epp-fixture';
import { startHarness } from '../../support/harness';

const PLUGINS_DIR = path.resolve(__dirname, '..', '..', '..', 'plugins');
const silent = {
  info() {},
  warn() {},
  error() {},
  debug() {},
  child() {
    return silent;
  },
};
const host = () => ({ logger: silent, clock: fixedClock(REGISTRY_NOW), store: new MemoryPluginStore() });

describe('the epp plugin in the platform', () => {
  let f: EppFixture;
  beforeAll(async () => {
    f = await startEppFixture();
  });
  afterAll(async () => {
    await f.close();
  });

  it('loads through the plugin loader with its options, and declares exactly the capabilities it implements', async () => {
    const registry = await loadPlugins(PLUGINS_DIR, { epp: f.pluginOptions }, host);
    try {
      const plugin = registry.get('epp');
      const implemented = CAPABILITY_NAMES.filter((c) => supports(plugin, c));
      expect(implemented).toEqual(manifest.resellerPlugin.capabilities);
      await expect(
        plugin.checkAvailability(['loaded.test'], {
          signal: new AbortController().signal,
          transactionId: 'loader-test-1',
        }),
      ).resolves.toEqual([{ domain: 'loaded.test', status: 'available' }]);
    } finally {
      await registry.close();
    }
    expect(f.server.stats.logouts).toBe(1);
  });

  it('loads unconfigured beside the other plugins, so the platform starts without it', async () => {
    const registry = await loadPlugins(PLUGINS_DIR, {}, host);
    expect(registry.ids()).toContain('epp');
    const epp = guardRegistrar(registry.installed('epp'), { timeoutMs: 1_000, logger: silent });
    await expect(
      epp.register({ domain: 'a.test', period: 1, nameservers: [], contacts: {}, addons: {}, fields: {} }),
    ).rejects.toThrow(/not configured/);
    await registry.close();
  });

  it('is disabled at boot, naming every bad option', async () => {
    const registry = await loadPlugins(
      PLUGINS_DIR,
      { epp: { host: 'epp.example', certFile: '/nonexistent/cert.pem' } },
      host,
    );
    expect(registry.has('epp')).toBe(false);
    expect(registry.failures()).toEqual([
      {
        id: 'epp',
        problem: expect.stringMatching(
          /^epp: bad options: .*clientId is required.*certFile \/nonexistent\/cert.pem cannot be read: ENOENT.*key \(or keyFile\) is required/,
        ),
      },
    ]);
    await registry.close();
  });

  it('has a test server that refuses, and records, a frame that breaks the schema', async () => {
    const { connection } = await EppConnection.open(
      {
        host: '127.0.0.1',
        port: f.server.port,
        cert: f.certificates.clientCert,
        key: f.certificates.clientKey,
        ca: f.certificates.ca,
        serverName: 'localhost',
        verifyServerCertificate: true,
        connectTimeoutMs: 5000,
      },
      new AbortController().signal,
    );
    const answer = await connection.request(
      '<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><renew><bogus/></renew></command></epp>',
      AbortSignal.timeout(5000),
    );
    connection.destroy();
    expect(answer).toMatchObject({ kind: 'response', response: { code: 2001 } });
    expect(f.server.protocolErrors).toEqual([expect.stringMatching(/client sent an invalid frame/)]);
    f.server.protocolErrors.length = 0;
  });
});

describe('the epp plugin inside the platform module', () => {
  it('serves a TLD through the module and logs out when the module closes', async () => {
    const epp = await startEppFixture();
    const h = await startHarness({ settings: { plugins: { epp: epp.pluginOptions } } });
    try {
      await h.module.services.catalogue.setTld({
        tld: '.test',
        group: 'default',
        registrar: 'epp',
        prices: { register: { 1: 1000 } },
      });
      const tlds = await h.http.get('/tlds').set(h.headers());
      expect(tlds.body).toContain('.test');
      const plugin = h.module.registrars.get('epp');
      await expect(
        plugin.checkAvailability(['wired.test'], { signal: new AbortController().signal, transactionId: 'wired-1' }),
      ).resolves.toEqual([{ domain: 'wired.test', status: 'available' }]);
    } finally {
      await h.close();
      await epp.close();
    }
    expect(epp.server.stats.logouts).toBe(1);
    expect(epp.server.protocolErrors).toEqual([]);
  });
});
