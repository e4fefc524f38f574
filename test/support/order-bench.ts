import type { Knex } from 'knex';
import { ulid } from 'ulid';
import { CatalogueService } from '../../src/core/catalogue/catalogue-service';
import { CreditService } from '../../src/core/credit/credit-service';
import { GatewayOrderRegistrar } from '../../src/core/order/gateway-order-registrar';
import { guardRegistrars } from '../../src/core/registrar/guarded-registrar';
import { RegistrarGateway } from '../../src/core/registrar/registrar-gateway';
import type { OrderRegistrar } from '../../src/core/order/order-registrar';
import {
  createOrderService,
  type OrderService,
  type OrderSettings,
  type ReconcileReport,
} from '../../src/core/order/order-service';
import type { DomainError } from '../../src/core/common/errors';
import type { OrderingReseller } from '../../src/core/order/order-commands';
import type { RegisterCommand } from '../../src/core/order/order-commands';
import { ResellerService } from '../../src/core/reseller/reseller-service';
import { fixedClock } from '../../src/core/common/clock';
import type { UnitOfWork } from '../../src/core/common/unit-of-work';
import { AesSecretBox } from '../../src/infra/crypto/aes-secret-box';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';
import { openPools } from '../../src/infra/db/driver-pools';
import { migrateLatest } from '../../src/infra/db/migrate';
import { createLogger } from '../../src/infra/logging';
import { KnexUnitOfWork } from '../../src/infra/repositories/knex-unit-of-work';
import { MemoryUnitOfWork } from '../../src/infra/repositories/memory/memory-unit-of-work';
import { directoryOf, ScriptedRegistrar } from './scripted-registrar';
import { openLedgers, openMemoryLedgers } from './ledger-invariant';
import { NOW, TEST_MASTER_KEY } from './harness';
import { createTestDatabase, type TestDatabase } from './test-database';
import { REGISTRANT } from './wire';
import { InProcessEventBus } from '../../src/core/common/events';
import type { Clock } from '../../src/core/common/clock';
import type { Logger } from '../../src/core/common/logger';

export const REGISTRAR_DEADLINE_MS = 40;
export const SETTINGS: OrderSettings = {
  registrarTimeoutMs: REGISTRAR_DEADLINE_MS,
  reconcileAfterMs: 60_000,
  idempotencyTtlMs: 24 * 3_600_000,
  reconcileBatch: 100,
  pendingLimitDays: 7,
};

/** An order service with its settlement, wired as src/container.ts wires it. */
export function newOrderService(
  uow: UnitOfWork,
  registrar: OrderRegistrar,
  catalogue: CatalogueService,
  clock: Clock,
  logger: Logger,
  settings: OrderSettings = SETTINGS,
): OrderService {
  const secrets = new AesSecretBox(Buffer.from(TEST_MASTER_KEY, 'base64'));
  return createOrderService({ uow, registrar, catalogue, clock, logger, settings, secrets });
}
/** Past every lease: reconciliation may act on anything pending. */
export const AFTER_LEASE_MS = SETTINGS.registrarTimeoutMs + SETTINGS.reconcileAfterMs + 1;

export { REGISTRANT };

/** A register command for `domain` with valid defaults. */
export function registration(domain: string, overrides: Partial<RegisterCommand> = {}): RegisterCommand {
  return {
    domain,
    period: 1,
    nameservers: ['ns1.example.net', 'ns2.example.net'],
    contacts: { registrant: REGISTRANT },
    addons: {},
    fields: {},
    ...overrides,
  };
}

/** The order core and its fakes, on whatever unit of work it runs over. */
/** What one reconciliation pass did to the orders for `domain` (other tests' orders may be settled in the same pass). */
export function outcomeFor(report: ReconcileReport, domain: string): string[] {
  return report.orders.filter((o) => o.domain === domain).map((o) => o.result);
}

/** Resolves to the DomainError an order was refused with. */
export async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected the order to be refused');
}

export interface OrderCore<U extends UnitOfWork = UnitOfWork> {
  readonly uow: U;
  readonly clock: ReturnType<typeof fixedClock>;
  readonly fake: ScriptedRegistrar;
  readonly registrar: OrderRegistrar;
  readonly catalogue: CatalogueService;
  readonly credit: CreditService;
  readonly resellers: ResellerService;
  readonly orders: OrderService;
  readonly events: InProcessEventBus;
  readonly logger: ReturnType<typeof createLogger>;
  /** An OrderService over another unit of work (a flaky one, say), sharing everything else. */
  ordersWith(uow: UnitOfWork, registrar?: OrderRegistrar): OrderService;
  /** A fresh reseller in group "default" with `credit` minor units. */
  newReseller(credit: number): Promise<OrderingReseller>;
  balance(reseller: OrderingReseller): Promise<number>;
  close(): Promise<void>;
}

export interface OrderBench extends OrderCore<KnexUnitOfWork> {
  readonly knex: Knex;
  readonly databaseUrl: string;
}

/**
 * The order core over a real, migrated test database (SQLite, or MariaDB with TEST_DB=mariadb)
 * and an in-memory fake registrar whose answers each test scripts. `.com`: register 10.00 (1 y),
 * 19.50 (2 y); renew 12.00 (1 y), 23.00 (2 y); transfer 9.00. `.net`: register 10.00 only.
 */
export async function startOrderBench(options: { fake?: ScriptedRegistrar } = {}): Promise<OrderBench> {
  const db: TestDatabase = await createTestDatabase();
  const target = parseDatabaseUrl(db.url);
  const knex = connectDatabase(target, { poolMax: 10 });
  await migrateLatest(knex);
  openLedgers.add(knex);
  // As the module opens it: on MariaDB every unit of work is a transaction on the driver's own pool.
  const pools = openPools(knex, target, { poolMax: 10 });
  const logger = createLogger('silent');
  const events = new InProcessEventBus(logger);
  // Committed events straight to the subscribers: the outbox's dispatch transaction is the module's (ADR 15).
  const uow = new KnexUnitOfWork(knex, undefined, pools, (committed) => {
    for (const event of committed) events.deliver(event);
  });
  const core = await orderCore(uow, events, logger, options.fake, async () => {
    openLedgers.delete(knex);
    await pools.close();
    await knex.destroy();
    await db.drop();
  });
  return { ...core, knex, databaseUrl: db.url };
}

/**
 * The same order core over the memory twin of the unit of work (src/infra/repositories/memory):
 * for order planning and reconciliation rules, where the database adds nothing. The same
 * catalogue, the same scripted registrar; the ledger invariant is checked after every test.
 */
export async function startMemoryOrderBench(
  options: { fake?: ScriptedRegistrar } = {},
): Promise<OrderCore<MemoryUnitOfWork>> {
  const logger = createLogger('silent');
  const events = new InProcessEventBus(logger);
  const uow = new MemoryUnitOfWork((committed) => {
    for (const event of committed) events.deliver(event);
  });
  openMemoryLedgers.add(uow);
  return orderCore(uow, events, logger, options.fake, async () => {
    openMemoryLedgers.delete(uow);
  });
}

async function orderCore<U extends UnitOfWork>(
  uow: U,
  events: InProcessEventBus,
  logger: ReturnType<typeof createLogger>,
  fake: ScriptedRegistrar = new ScriptedRegistrar(),
  close: () => Promise<void>,
): Promise<OrderCore<U>> {
  const clock = fixedClock(NOW);
  const directory = directoryOf(fake);
  const registrars = guardRegistrars(directory, { timeoutMs: REGISTRAR_DEADLINE_MS, logger });
  const registrar = new GatewayOrderRegistrar(registrars, new RegistrarGateway(registrars, logger), logger);
  const catalogue = new CatalogueService(uow, directory, 'USD');
  const credit = new CreditService(uow, clock);
  const resellers = new ResellerService(uow, new AesSecretBox(Buffer.from(TEST_MASTER_KEY, 'base64')), clock);
  const ordersWith = (other: UnitOfWork, otherRegistrar: OrderRegistrar = registrar) =>
    newOrderService(other, otherRegistrar, catalogue, clock, logger);
  await resellers.createGroup('default');
  await catalogue.setTld({
    tld: '.com',
    group: 'default',
    registrar: 'fake',
    prices: { register: { 1: 1000, 2: 1950 }, renew: { 1: 1200, 2: 2300 }, transfer: { 1: 900 } },
  });
  await catalogue.setTld({ tld: '.net', group: 'default', registrar: 'fake', prices: { register: { 1: 1000 } } });
  return {
    uow,
    clock,
    fake,
    registrar,
    catalogue,
    credit,
    resellers,
    events,
    logger,
    orders: ordersWith(uow),
    ordersWith,
    async newReseller(amount) {
      const { reseller } = await resellers.create(`r-${ulid().toLowerCase()}@example.com`, 'default', amount);
      return { id: reseller.id, groupId: reseller.groupId };
    },
    balance: (r) => credit.balance(r.id),
    close,
  };
}
