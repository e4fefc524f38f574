import Koa from 'koa';
import request from 'supertest';
import type { Server } from 'node:http';
import { computeToken } from '../../src/core/auth/api-token';
import { fixedClock } from '../../src/core/common/clock';
import { createResellerModule, type ResellerModule, type ResellerModuleOptions } from '../../src/module';
import { createTestDatabase, type TestDatabase } from './test-database';
import { openLedgers } from './ledger-invariant';

export const TEST_MASTER_KEY = Buffer.alloc(32, 7).toString('base64');
export const NOW = '2026-11-21T10:30:00Z';

export interface Harness {
  readonly module: ResellerModule;
  readonly clock: ReturnType<typeof fixedClock>;
  readonly server: Server;
  readonly http: ReturnType<typeof request>;
  /** The default reseller: group "default", 100.00 credit, .com/.net/.org on the sandbox (or `options.registrar`). */
  readonly reseller: { email: string; apiKey: string };
  /** The test database's URL (the CLI or a child process may open it too). */
  readonly databaseUrl: string;
  headers(who?: { email: string; apiKey: string }): Record<string, string>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly settings?: Record<string, unknown>;
  readonly pluginsDir?: string;
  readonly mount?: { prefix?: string; ownAllPaths?: boolean };
  /** The registrar plugin serving the default .com/.net/.org (default: sandbox). */
  readonly registrar?: string;
  readonly logger?: ResellerModuleOptions['logger'];
  readonly ports?: ResellerModuleOptions['ports'];
  /** The module's clock (default: fixed at NOW). */
  readonly clock?: ReturnType<typeof fixedClock>;
  /** Middleware mounted before the API's (the console, the portal: test/support/web.ts). */
  readonly before?: (module: ResellerModule) => Koa.Middleware[];
}

/** A migrated module on a fresh database, served by a real Koa app, with a reseller ready to call it. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const db: TestDatabase = await createTestDatabase();
  const clock = options.clock ?? fixedClock(NOW);
  const module = await createResellerModule({
    database: db.url,
    clock,
    pluginsDir: options.pluginsDir,
    logger: options.logger,
    ports: options.ports,
    settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent', ...options.settings },
  });
  await module.migrate();
  openLedgers.add(module.knex);
  const { resellers, catalogue } = module.services;
  await resellers.createGroup('default');
  for (const tld of ['.com', '.net', '.org']) {
    await catalogue.setTld({
      tld,
      group: 'default',
      registrar: options.registrar ?? 'sandbox',
      prices: { register: { 1: 1000, 2: 1950, 5: 4500 }, renew: { 1: 1200, 2: 2300 }, transfer: { 1: 900 } },
    });
  }
  const { apiKey } = await resellers.create('reseller@example.com', 'default', 10_000);
  const app = new Koa();
  for (const middleware of options.before?.(module) ?? []) app.use(middleware);
  // Every 200 reply of every HTTP test is checked against its route's output schema (the OpenAPI document's).
  // The harness is a host that keeps its mount private, so /metrics is served beside the API here.
  app.use(module.middleware({ ...(options.mount ?? { ownAllPaths: true }), checkReplies: true, metrics: true }));
  const server = app.listen(0, '127.0.0.1');
  const reseller = { email: 'reseller@example.com', apiKey };
  return {
    module,
    clock,
    server,
    http: request(server),
    reseller,
    databaseUrl: db.url,
    headers: (who = reseller) => ({ username: who.email, token: computeToken(who.email, who.apiKey, clock.now()) }),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      openLedgers.delete(module.knex);
      await module.close();
      await db.drop();
    },
  };
}
