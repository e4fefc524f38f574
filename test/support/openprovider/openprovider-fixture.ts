import { randomUUID } from 'node:crypto';
import openproviderPlugin from '../../../plugins/openprovider';
import { fixedClock } from '../../../src/core/common/clock';
import type { CallContext, PluginHost, RegistrarPlugin } from '../../../src/core/registrar/plugin';
import { MemoryPluginStore } from '../../../src/testing/memory-plugin-store';
import { startFakeOpenprovider, type FakeOpenprovider, type FakeOpenproviderOptions } from './fake-openprovider';

export const OPENPROVIDER_NOW = '2026-11-21T10:30:00Z';

export interface OpenproviderFixture {
  readonly server: FakeOpenprovider;
  readonly clock: ReturnType<typeof fixedClock>;
  readonly logs: Array<{ level: string; obj: object; msg?: string }>;
  readonly store: MemoryPluginStore;
  /** The plugin's options for this server; spread and override in tests. */
  readonly pluginOptions: Record<string, unknown>;
  /** A plugin made through the plugin's own definition, as the loader makes it. */
  plugin(overrides?: Record<string, unknown>): RegistrarPlugin;
  ctx(overrides?: Partial<CallContext>): CallContext;
  close(): Promise<void>;
}

/** The fake Openprovider, and plugins pointed at it sharing one store and one clock. */
export async function startOpenproviderFixture(
  serverOptions: FakeOpenproviderOptions = {},
): Promise<OpenproviderFixture> {
  const clock = fixedClock(OPENPROVIDER_NOW);
  const server = await startFakeOpenprovider({ now: () => clock.now(), ...serverOptions });
  const logs: OpenproviderFixture['logs'] = [];
  const logger: PluginHost['logger'] = {
    info: (obj, msg) => logs.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => logs.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => logs.push({ level: 'error', obj, msg }),
    debug: (obj, msg) => logs.push({ level: 'debug', obj, msg }),
    child: () => logger,
  };
  const store = new MemoryPluginStore();
  const pluginOptions = {
    baseUrl: server.url,
    username: 'reseller-api',
    password: 'op-secret-password',
    requestTimeoutMs: 5_000,
    maxRetryAfterMs: 2_000,
  };
  return {
    server,
    clock,
    logs,
    store,
    pluginOptions,
    plugin(overrides = {}) {
      const parsed = openproviderPlugin.parseOptions({ ...pluginOptions, ...overrides });
      return openproviderPlugin.create(parsed, { logger, clock, store }) as RegistrarPlugin;
    },
    ctx: (overrides = {}) => ({ signal: new AbortController().signal, transactionId: randomUUID(), ...overrides }),
    close: () => server.close(),
  };
}

/** A registrant as the platform hands it over (the field names of docs/api.md#contacts-field). */
export const REGISTRANT = {
  firstname: 'Ada',
  lastname: 'Lovelace',
  companyname: 'Analytical Engines Ltd',
  email: 'ada@example.net',
  address1: '12 Byron Street',
  city: 'London',
  postcode: 'W1 2AB',
  country: 'GB',
  phonenumber: '+44.2071234567',
};
