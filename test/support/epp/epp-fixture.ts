import { MemoryPluginStore } from '../../../src/testing/memory-plugin-store';
import { randomUUID } from 'node:crypto';
import eppPlugin from '../../../plugins/epp';
import type { EppRegistrar } from '../../../plugins/epp/src/epp-registrar';
import { fixedClock } from '../../../src/core/common/clock';
import type { CallContext, PluginHost } from '../../../src/core/registrar/plugin';
import { makeTestCertificates, type TestCertificates } from './certificates';
import { startEppTestServer, type EppTestServer, type EppTestServerOptions } from './epp-test-server';

export const REGISTRY_NOW = '2026-11-21T10:30:00Z';

export interface EppFixture {
  readonly server: EppTestServer;
  readonly certificates: TestCertificates;
  readonly clock: ReturnType<typeof fixedClock>;
  readonly logs: Array<{ level: string; obj: object; msg?: string }>;
  /** The plugin's options for this server (client certificate, CA, fast timings); spread and override in tests. */
  readonly pluginOptions: Record<string, unknown>;
  /** A plugin made through the plugin's own definition, as the loader makes it. */
  plugin(overrides?: Record<string, unknown>): Promise<EppRegistrar>;
  ctx(overrides?: Partial<CallContext>): CallContext;
  close(): Promise<void>;
}

/** A TLS EPP test server with fresh certificates, and a factory for plugins pointed at it. */
export async function startEppFixture(serverOptions: Partial<EppTestServerOptions> = {}): Promise<EppFixture> {
  // Certificates given by the caller are shared (made once per test file) and left for it to remove.
  const ownsCertificates = serverOptions.certificates === undefined;
  const certificates = serverOptions.certificates ?? makeTestCertificates();
  const clock = fixedClock(REGISTRY_NOW);
  const server = await startEppTestServer({ certificates, now: () => clock.now(), ...serverOptions });
  const logs: EppFixture['logs'] = [];
  const logger: PluginHost['logger'] = {
    info: (obj, msg) => logs.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => logs.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => logs.push({ level: 'error', obj, msg }),
    debug: (obj, msg) => logs.push({ level: 'debug', obj, msg }),
    child: () => logger,
  };
  const plugins: EppRegistrar[] = [];
  const pluginOptions = {
    host: 'localhost',
    port: server.port,
    clientId: 'registrar-a',
    password: 'password-a',
    cert: certificates.clientCert,
    key: certificates.clientKey,
    ca: certificates.ca,
    commandTimeoutMs: 5_000,
    connectTimeoutMs: 5_000,
    reconnectInitialMs: 50,
    reconnectMaxMs: 400,
    logoutTimeoutMs: 2_000,
  };
  return {
    server,
    certificates,
    clock,
    logs,
    pluginOptions,
    async plugin(overrides = {}) {
      const parsed = eppPlugin.parseOptions({ ...pluginOptions, ...overrides });
      const plugin = (await eppPlugin.create(parsed, {
        logger,
        clock,
        store: new MemoryPluginStore(),
      })) as EppRegistrar;
      plugins.push(plugin);
      return plugin;
    },
    ctx: (overrides = {}) => ({ signal: new AbortController().signal, transactionId: randomUUID(), ...overrides }),
    async close() {
      await Promise.allSettled(plugins.map((p) => p.close()));
      await server.close();
      if (ownsCertificates) certificates.remove();
    },
  };
}

/** A registrant as the platform hands it over (the field names of docs/api.md#contacts-field). */
export const REGISTRANT = {
  firstname: 'Ada',
  lastname: 'Lovelace',
  companyname: 'Analytical Engines Ltd',
  email: 'ada@example.com',
  address1: '1 Analytical Way',
  address2: 'Floor 2',
  city: 'London',
  state: 'Greater London',
  postcode: 'N1 1AA',
  country: 'GB',
  phonenumber: '+44 20 7123 4567',
};

/** A clTRID the plugin made for a call with this transaction id: the id, the plugin instance, a serial. */
export function clTRIDFor(transactionId: string): RegExp {
  return new RegExp(`^${transactionId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-[0-9a-f]{6}-[0-9a-z]+$`);
}
