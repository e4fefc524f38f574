import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { CatalogueService } from '../../src/core/catalogue/catalogue-service';
import { GatewayOrderRegistrar } from '../../src/core/order/gateway-order-registrar';
import { guardRegistrars } from '../../src/core/registrar/guarded-registrar';
import { RegistrarGateway } from '../../src/core/registrar/registrar-gateway';
import type { OrderService } from '../../src/core/order/order-service';
import type { OrderingReseller } from '../../src/core/order/order-commands';
import type { TransactionScope, UnitOfWork } from '../../src/core/common/unit-of-work';
import { RecordedEvents } from '../../src/core/events/outbox';
import { createLogger } from '../../src/infra/logging';
import { knexRepositories } from '../../src/infra/repositories/knex-unit-of-work';
import { directoryOf } from '../support/canned-registrar';
import { FileRegistrar } from '../support/file-registrar';
import {
  AFTER_LEASE_MS,
  newOrderService,
  registration,
  startOrderBench,
  type OrderBench,
} from '../support/order-bench';
import { TEST_ENGINE } from '../support/test-database';

const ROOT = path.join(__dirname, '..', '..');
const CHILD = path.join(__dirname, '..', 'fixtures', 'crash', 'order-child.ts');
/** A child starts a TypeScript process (tsx) first: on a loaded machine that alone can take half a minute. */
const CHILD_TIMEOUT_MS = 120_000;

/**
 * Runs the child until it prints `marker` (its registrar call is in flight: phase 1 committed,
 * phase 3 not begun), then kills it with SIGKILL: no cleanup, no rollback handlers, nothing.
 */
function runChildAndKill(args: string[], marker: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // One node process with the tsx loader (not the tsx wrapper, whose own child would outlive SIGKILL).
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(marker)) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve();
      else reject(new Error(`the child ended by itself before "${marker}": ${out}\n${err}`));
    });
  });
}

describe('a crash between the phases of an order', () => {
  let b: OrderBench;
  let dir: string;
  let registryFile: string;
  let orders: OrderService;
  let reseller: OrderingReseller;

  beforeAll(async () => {
    b = await startOrderBench();
    dir = mkdtempSync(path.join(os.tmpdir(), 'reseller-crash-'));
    registryFile = path.join(dir, 'registry.json');
    const fileRegistrar = new FileRegistrar(registryFile, 'succeed');
    const directory = directoryOf(fileRegistrar);
    const logger = createLogger('silent');
    const registrars = guardRegistrars(directory, { timeoutMs: 1_000, logger });
    const catalogue = new CatalogueService(b.uow, directory, 'USD');
    await catalogue.setTld({
      tld: '.org',
      group: 'default',
      registrar: 'file',
      prices: { register: { 1: 1000 }, transfer: { 1: 1000 } },
    });
    orders = newOrderService(
      b.uow,
      new GatewayOrderRegistrar(registrars, new RegistrarGateway(registrars, logger), logger),
      catalogue,
      b.clock,
      logger,
    );
    reseller = await b.newReseller(10_000);
  });
  afterAll(async () => {
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const orderFor = async (domain: string) => (await b.orders.list({ domain }))[0];

  it(
    'refunds, through reconciliation, an order whose process died before the registrar acted',
    async () => {
      await runChildAndKill(
        [b.databaseUrl, registryFile, reseller.id, reseller.groupId, 'crash-before.org', 'hang'],
        'CALLED',
      );
      expect(await orderFor('crash-before.org')).toMatchObject({ status: 'pending' });
      expect(await b.balance(reseller)).toBe(9_000);
      b.clock.advance(AFTER_LEASE_MS);
      const report = await orders.reconcile();
      expect(report.orders.filter((o) => o.domain === 'crash-before.org').map((o) => o.result)).toEqual(['refunded']);
      expect(await b.balance(reseller)).toBe(10_000);
      expect(await b.uow.read.domains.findByName('crash-before.org')).toMatchObject({ status: 'Cancelled' });
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    'refunds, through reconciliation, a transfer whose process died before the registrar received it, and keeps its domain as Cancelled',
    async () => {
      await runChildAndKill(
        [b.databaseUrl, registryFile, reseller.id, reseller.groupId, 'crash-transfer.org', 'hang', 'transfer'],
        'CALLED',
      );
      expect(await orderFor('crash-transfer.org')).toMatchObject({ action: 'transfer', status: 'pending' });
      const before = await b.balance(reseller);
      b.clock.advance(AFTER_LEASE_MS);
      const report = await orders.reconcile();
      expect(report.orders.filter((o) => o.domain === 'crash-transfer.org').map((o) => o.result)).toEqual(['refunded']);
      expect(await orderFor('crash-transfer.org')).toMatchObject({ status: 'failed' });
      expect(await b.balance(reseller)).toBe(before + 1_000);
      expect(await b.uow.read.domains.findByName('crash-transfer.org')).toMatchObject({
        status: 'Cancelled',
        resellerId: reseller.id,
      });
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    'completes, through reconciliation, an order whose process died after the registrar registered it',
    async () => {
      await runChildAndKill(
        [b.databaseUrl, registryFile, reseller.id, reseller.groupId, 'crash-after.org', 'register-then-hang'],
        'REGISTERED',
      );
      expect(await orderFor('crash-after.org')).toMatchObject({ status: 'pending' });
      b.clock.advance(AFTER_LEASE_MS);
      const report = await orders.reconcile();
      expect(report.orders.filter((o) => o.domain === 'crash-after.org').map((o) => o.result)).toEqual(['completed']);
      expect(await b.uow.read.domains.findByName('crash-after.org')).toMatchObject({
        status: 'Active',
        expiryDate: '2027-11-21',
      });
      expect(await b.balance(reseller)).toBe(9_000);
    },
    CHILD_TIMEOUT_MS,
  );

  const mariadbOnly = TEST_ENGINE === 'mariadb' ? describe : describe.skip;

  mariadbOnly('when MariaDB kills the connection inside a transaction', () => {
    let admin: Knex;
    // biome-ignore lint/suspicious/noDuplicateTestHooks: mariadbOnly is a describe block; the linter cannot see through the alias
    beforeAll(() => {
      admin = knex({ client: 'mysql2', connection: process.env.TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306' });
    });
    // biome-ignore lint/suspicious/noDuplicateTestHooks: as above
    afterAll(async () => {
      await admin.destroy();
    });

    /** Transactions numbered in `doomed` have their connection KILLed just before COMMIT. */
    class KillingUnitOfWork implements UnitOfWork {
      readonly read = knexRepositories(b.knex);
      private count = 0;
      constructor(private readonly doomed: ReadonlySet<number>) {}
      run<T>(work: (repos: TransactionScope) => Promise<T>): Promise<T> {
        const doomed = this.doomed.has(this.count++);
        return b.knex.transaction(async (trx) => {
          const repos = knexRepositories(trx);
          const outbox = new RecordedEvents();
          const result = await work({ ...repos, outbox });
          if (outbox.events.length > 0) await repos.events.insert(outbox.events);
          if (doomed) {
            const [rows] = await trx.raw('SELECT CONNECTION_ID() AS id');
            await admin.raw(`KILL ${Number(rows[0].id)}`);
          }
          return result;
        });
      }
    }

    it('writes nothing when the connection dies in phase 1', async () => {
      const r = await b.newReseller(10_000);
      const dying = b.ordersWith(new KillingUnitOfWork(new Set([0])));
      await expect(dying.register(r, registration('killed1.com'))).rejects.toThrow();
      expect(await orderFor('killed1.com')).toBeUndefined();
      expect(await b.uow.read.domains.findByName('killed1.com')).toBeUndefined();
      expect(await b.balance(r)).toBe(10_000);
    });

    it('leaves the order pending when the connection dies in phase 3; reconciliation settles it once', async () => {
      const r = await b.newReseller(10_000);
      const dying = b.ordersWith(new KillingUnitOfWork(new Set([1])));
      await expect(dying.register(r, registration('killed3.com'))).resolves.toMatchObject({ status: 'pending' });
      expect(await orderFor('killed3.com')).toMatchObject({ status: 'pending' });
      expect(await b.balance(r)).toBe(9_000);
      b.clock.advance(AFTER_LEASE_MS);
      const report = await b.orders.reconcile();
      expect(report.orders.filter((o) => o.domain === 'killed3.com').map((o) => o.result)).toEqual(['completed']);
      expect(await b.balance(r)).toBe(9_000);
      expect(b.fake.callsFor('killed3.com')).toBe(1);
    });

    it('refunds once a refusal whose recording was killed', async () => {
      const r = await b.newReseller(10_000);
      b.fake.script('killedrefusal.com', 'refuse');
      const dying = b.ordersWith(new KillingUnitOfWork(new Set([1])));
      await expect(dying.register(r, registration('killedrefusal.com'))).rejects.toMatchObject({
        code: 'registrar_failed',
      });
      expect(await b.balance(r)).toBe(9_000);
      b.clock.advance(AFTER_LEASE_MS);
      await b.orders.reconcile();
      b.clock.advance(AFTER_LEASE_MS);
      await b.orders.reconcile();
      expect(await orderFor('killedrefusal.com')).toMatchObject({ status: 'failed' });
      expect(await b.balance(r)).toBe(10_000);
    });
  });
});
