import { Container, ContainerModule, type ServiceIdentifier } from 'inversify';
import type { Knex } from 'knex';
import { ApiLogService, BufferedApiLog, type ApiLogRepository } from './core/api-log/api-log';
import { Authenticator } from './core/auth/authenticator';
import { ADDRESS_FAILURES_FACTOR, FailureThrottle } from './core/auth/failure-throttle';
import { CatalogueService } from './core/catalogue/catalogue-service';
import { type CostPriceSource, CostPriceImport } from './core/catalogue/cost-price-import';
import { CreditService } from './core/credit/credit-service';
import type { LedgerFactory } from './core/credit/ledger';
import { DomainManagementService } from './core/domain/domain-management-service';
import { DomainService } from './core/domain/domain-service';
import { DomainSyncService } from './core/domain/domain-sync-service';
import { GatewayOrderRegistrar } from './core/order/gateway-order-registrar';
import type { OrderRegistrar } from './core/order/order-registrar';
import { OrderSettlement } from './core/order/order-settlement';
import { OrderService, type OrderSettings } from './core/order/order-service';
import type { RegistrarDirectory } from './core/registrar/registrar-directory';
import { RegistrarGateway } from './core/registrar/registrar-gateway';
import {
  guardRegistrars,
  type GuardedRegistrars,
  type RegistrarCallObserver,
} from './core/registrar/guarded-registrar';
import type { SecretBox } from './core/reseller/reseller';
import { StoredResellerDirectory, type ResellerDirectory } from './core/reseller/reseller-directory';
import { ResellerService } from './core/reseller/reseller-service';
import type { Clock } from './core/common/clock';
import { AvailabilityChecker } from './core/search/availability-checker';
import { followOwnOrders } from './core/search/own-orders';
import { SearchService } from './core/search/search-service';
import { InProcessEventBus, type EventBus } from './core/common/events';
import { OutboxDispatcher } from './core/events/event-dispatcher';
import { WebhookDeliveryWorker, type WebhookSender } from './core/webhooks/delivery-worker';
import { WebhookService } from './core/webhooks/webhook-service';
import { HttpWebhookSender } from './infra/webhooks/http-webhook-sender';
import type { Logger } from './core/common/logger';
import type { UnitOfWork } from './core/common/unit-of-work';
import { TOKENS } from './core/tokens';
import type { Settings } from './config/settings';

import { directWritesOf, type HotReads } from './infra/db/direct-reads';
import { PrometheusMetrics } from './infra/metrics/prometheus-metrics';
import { KnexApiLogRepository } from './infra/repositories/knex-api-log-repository';
import { KnexUnitOfWork, knexLedger } from './infra/repositories/knex-unit-of-work';

/** What the module hands the container: what is made with I/O before the graph (database, key, plugins). */
export interface Platform {
  readonly settings: Settings;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly knex: Knex;
  /** ADR 12: authentication's statement on a connection of its own (undefined on a host's knex). */
  readonly hotReads: HotReads | undefined;
  readonly secretBox: SecretBox;
  /** The installed registrar plugins (the plugin loader's registry). */
  readonly plugins: RegistrarDirectory;
}

/** What a host's port factory is given: the module's context, and the module's own port to wrap or ignore. */
export interface PortContext<T> {
  readonly knex: Knex;
  readonly settings: Settings;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The port the module would use, made on first call. */
  builtIn(): T;
}

/**
 * The ports a host may replace (docs/embedding.md), each made by a factory from the module's
 * context. Every service that depends on a port is built with the host's implementation.
 */
export interface HostPorts {
  /** Who may call the API, with which key and from where. */
  readonly resellerDirectory?: (context: PortContext<ResellerDirectory>) => ResellerDirectory;
  /** The credit ledger a unit of work uses (a host that keeps balances itself). */
  readonly ledgerFactory?: (context: PortContext<LedgerFactory>) => LedgerFactory;
  /** The module's events. */
  readonly events?: (context: PortContext<EventBus>) => EventBus;
  /** Told about every registrar call (default: the Prometheus metrics). */
  readonly registrarCallObserver?: (context: PortContext<RegistrarCallObserver>) => RegistrarCallObserver;
}

const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`reseller/${name}`);

/** What the composition root binds beyond the core's `TOKENS`: adapters the core must not name. */
export const MODULE_TOKENS = {
  /** The Prometheus metrics: the default registrar call observer, fed by events, served at /metrics. */
  metrics: token<PrometheusMetrics>('metrics'),
  /** The API log's in-memory buffer, written in batches off the request path. */
  apiLogBuffer: token<BufferedApiLog>('apiLogBuffer'),
} as const;

/** The module's own implementation of each replaceable port, under a token of its own. */
const BUILT_IN = {
  resellerDirectory: token<ResellerDirectory>('builtIn/resellerDirectory'),
  ledgerFactory: token<LedgerFactory>('builtIn/ledgerFactory'),
  events: token<EventBus>('builtIn/events'),
  registrarCallObserver: token<RegistrarCallObserver>('builtIn/registrarCallObserver'),
} as const satisfies { readonly [K in keyof Required<HostPorts>]: ServiceIdentifier<unknown> };

/**
 * The composition root: the only place the service graph is built, one container module per
 * area. Everything is a singleton resolved on first use.
 */
export function buildContainer(platform: Platform, ports: HostPorts = {}): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  // The unit of work hands committed events to the dispatcher, which runs units of work itself.
  const commits: { dispatcher?: OutboxDispatcher } = {};
  container.loadSync(
    platformModule(platform, commits),
    observabilityModule(platform.settings),
    registrarModule(platform),
    accountModule(platform.settings),
    catalogueModule(platform),
    searchModule(platform.settings),
    domainModule(),
    orderModule(platform.settings),
    webhookModule(platform.settings),
  );
  // Each replaceable port: the host's factory when it gave one, else the module's own.
  const { knex, settings, logger, clock } = platform;
  for (const name of Object.keys(BUILT_IN) as (keyof HostPorts)[]) {
    const factory = ports[name] as ((context: PortContext<unknown>) => unknown) | undefined;
    const builtIn = () => container.get(BUILT_IN[name] as ServiceIdentifier<unknown>);
    container
      .bind(TOKENS[name] as ServiceIdentifier<unknown>)
      .toDynamicValue(() => (factory ? factory({ knex, settings, logger, clock, builtIn }) : builtIn()));
  }
  commits.dispatcher = container.get(TOKENS.outboxDispatcher);
  return container;
}

function platformModule(
  { settings, clock, logger, knex, hotReads, secretBox }: Platform,
  commits: { dispatcher?: OutboxDispatcher },
): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.clock).toConstantValue(clock);
    bind(TOKENS.logger).toConstantValue(logger);
    bind(TOKENS.currency).toConstantValue(settings.currency);
    bind(TOKENS.secretBox).toConstantValue(secretBox);
    bind(BUILT_IN.events).toResolvedValue((logger: Logger) => new InProcessEventBus(logger), [TOKENS.logger]);
    bind(BUILT_IN.ledgerFactory).toConstantValue(knexLedger);
    bind(TOKENS.unitOfWork).toResolvedValue(
      (ledger: LedgerFactory) =>
        new KnexUnitOfWork(knex, ledger, hotReads, (events) => commits.dispatcher?.committed(events)),
      [TOKENS.ledgerFactory],
    );
    bind(TOKENS.outboxDispatcher).toResolvedValue(
      (uow: UnitOfWork, events: EventBus, clock: Clock, logger: Logger) =>
        new OutboxDispatcher(uow, events, clock, logger, {
          recoverAfterMs: settings.eventsRecoverAfterMs,
          batchSize: 500,
          retentionMs: settings.eventsRetentionDays * 86_400_000,
        }),
      [TOKENS.unitOfWork, TOKENS.events, TOKENS.clock, TOKENS.logger],
    );
    bind(TOKENS.apiLogRepository).toConstantValue(new KnexApiLogRepository(knex, directWritesOf(hotReads)));
  });
}

function observabilityModule(settings: Settings): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(MODULE_TOKENS.metrics).toResolvedValue((logger: Logger) => new PrometheusMetrics(logger), [TOKENS.logger]);
    bind(BUILT_IN.registrarCallObserver).toResolvedValue(
      (metrics: PrometheusMetrics) => metrics,
      [MODULE_TOKENS.metrics],
    );
    bind(TOKENS.apiLogService).toResolvedValue(
      (repository: ApiLogRepository, clock: Clock) =>
        new ApiLogService(repository, clock, settings.apiLogRetentionDays),
      [TOKENS.apiLogRepository, TOKENS.clock],
    );
    bind(MODULE_TOKENS.apiLogBuffer).toResolvedValue(
      (repository: ApiLogRepository, logger: Logger, metrics: PrometheusMetrics) =>
        new BufferedApiLog(
          repository,
          logger,
          { flushMs: settings.apiLogFlushMs, bufferMax: settings.apiLogBufferMax },
          metrics,
        ),
      [TOKENS.apiLogRepository, TOKENS.logger, MODULE_TOKENS.metrics],
    );
  });
}

function registrarModule({ plugins, settings }: Platform): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.registrars).toResolvedValue(
      (observer: RegistrarCallObserver, logger: Logger) =>
        guardRegistrars(plugins, { timeoutMs: settings.registrarTimeoutMs, observer, logger }),
      [TOKENS.registrarCallObserver, TOKENS.logger],
    );
    bind(TOKENS.registrarGateway).toResolvedValue(
      (registrars: GuardedRegistrars, logger: Logger) => new RegistrarGateway(registrars, logger),
      [TOKENS.registrars, TOKENS.logger],
    );
  });
}

function accountModule(settings: Settings): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(BUILT_IN.resellerDirectory).toResolvedValue(
      // ADR 12: the balance read with the reseller is the reseller's only while the ledger is the module's own.
      (uow: UnitOfWork, secrets: SecretBox, ledger: LedgerFactory) =>
        new StoredResellerDirectory(uow.read.resellers, secrets, ledger === knexLedger),
      [TOKENS.unitOfWork, TOKENS.secretBox, TOKENS.ledgerFactory],
    );
    bind(TOKENS.authThrottle).toResolvedValue(
      (clock: Clock) =>
        new FailureThrottle(
          {
            maxFailures: settings.authMaxFailures,
            // One address may serve several resellers' billing platforms (a host, an office NAT):
            // one misconfigured account must not block the others, so the address gets more room.
            maxFailuresPerAddress: settings.authMaxFailures * ADDRESS_FAILURES_FACTOR,
            windowSeconds: settings.authFailureWindowSeconds,
            blockSeconds: settings.authBlockSeconds,
          },
          clock,
        ),
      [TOKENS.clock],
    );
    bind(TOKENS.authenticator).toResolvedValue(
      (directory: ResellerDirectory, throttle: FailureThrottle, clock: Clock) =>
        new Authenticator(directory, throttle, clock),
      [TOKENS.resellerDirectory, TOKENS.authThrottle, TOKENS.clock],
    );
    bind(TOKENS.resellerService).toResolvedValue(
      (uow: UnitOfWork, secrets: SecretBox, clock: Clock) => new ResellerService(uow, secrets, clock),
      [TOKENS.unitOfWork, TOKENS.secretBox, TOKENS.clock],
    );
    bind(TOKENS.creditService).toResolvedValue(
      (uow: UnitOfWork, clock: Clock) => new CreditService(uow, clock),
      [TOKENS.unitOfWork, TOKENS.clock],
    );
  });
}

function catalogueModule({ plugins, settings }: Platform): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.catalogueService).toResolvedValue(
      // ADR 8: the order path's catalogue reads are reused for CATALOGUE_CACHE_MS. The catalogue
      // checks `--registrar` names against the installed plugins; it never calls them.
      (uow: UnitOfWork, currency: string, clock: Clock) =>
        new CatalogueService(uow, plugins, currency, { cacheMs: settings.catalogueCacheMs, clock }),
      [TOKENS.unitOfWork, TOKENS.currency, TOKENS.clock],
    );
    bind(TOKENS.costPriceImport).toResolvedValue(
      (uow: UnitOfWork, catalogue: CatalogueService, gateway: RegistrarGateway) =>
        new CostPriceImport(uow, catalogue, tldCostsFrom(gateway)),
      [TOKENS.unitOfWork, TOKENS.catalogueService, TOKENS.registrarGateway],
    );
  });
}

function searchModule(settings: Settings): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.availabilityChecker).toResolvedValue(
      (registrars: GuardedRegistrars, clock: Clock, logger: Logger, events: EventBus) => {
        const checker = new AvailabilityChecker(registrars, clock, logger, {
          cacheSeconds: settings.searchCacheSeconds,
        });
        followOwnOrders(events, checker);
        return checker;
      },
      [TOKENS.registrars, TOKENS.clock, TOKENS.logger, TOKENS.events],
    );
    bind(TOKENS.searchService).toResolvedValue(
      (uow: UnitOfWork, registrars: GuardedRegistrars, availability: AvailabilityChecker, logger: Logger) =>
        new SearchService(uow, registrars, availability, logger, { currency: settings.currency }),
      [TOKENS.unitOfWork, TOKENS.registrars, TOKENS.availabilityChecker, TOKENS.logger],
    );
  });
}

function domainModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.domainService).toResolvedValue((uow: UnitOfWork) => new DomainService(uow), [TOKENS.unitOfWork]);
    bind(TOKENS.domainSyncService).toResolvedValue(
      // Transfer sync settles a domain's open transfer order through the order flow (docs/domain-management.md).
      (uow: UnitOfWork, gateway: RegistrarGateway, clock: Clock, orders: OrderService) =>
        new DomainSyncService(uow, gateway, clock, orders),
      [TOKENS.unitOfWork, TOKENS.registrarGateway, TOKENS.clock, TOKENS.orderService],
    );
    bind(TOKENS.domainManagementService).toResolvedValue(
      (uow: UnitOfWork, gateway: RegistrarGateway, syncer: DomainSyncService, clock: Clock) =>
        new DomainManagementService(uow, gateway, syncer, clock),
      [TOKENS.unitOfWork, TOKENS.registrarGateway, TOKENS.domainSyncService, TOKENS.clock],
    );
  });
}

function orderModule(settings: Settings): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.orderSettings).toConstantValue(
      Object.freeze({
        registrarTimeoutMs: settings.registrarTimeoutMs,
        reconcileAfterMs: settings.reconcileAfterMs,
        idempotencyTtlMs: settings.idempotencyTtlHours * 3_600_000,
        reconcileBatch: settings.reconcileBatch,
        pendingLimitDays: settings.pendingOrderLimitDays,
      }),
    );
    bind(TOKENS.orderRegistrar).toResolvedValue(
      (registrars: GuardedRegistrars, gateway: RegistrarGateway, logger: Logger) =>
        new GatewayOrderRegistrar(registrars, gateway, logger),
      [TOKENS.registrars, TOKENS.registrarGateway, TOKENS.logger],
    );
    bind(TOKENS.orderService).toResolvedValue(
      (
        uow: UnitOfWork,
        registrar: OrderRegistrar,
        catalogue: CatalogueService,
        clock: Clock,
        logger: Logger,
        orderSettings: OrderSettings,
      ) =>
        new OrderService(
          uow,
          registrar,
          catalogue,
          new OrderSettlement(uow, clock, logger, orderSettings),
          clock,
          logger,
          orderSettings,
        ),
      [
        TOKENS.unitOfWork,
        TOKENS.orderRegistrar,
        TOKENS.catalogueService,
        TOKENS.clock,
        TOKENS.logger,
        TOKENS.orderSettings,
      ],
    );
  });
}

function webhookModule(settings: Settings): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const allowInsecureTargets = settings.webhookAllowInsecureTargets;
    bind(TOKENS.webhookService).toResolvedValue(
      (uow: UnitOfWork, secrets: SecretBox, clock: Clock) =>
        new WebhookService(uow, secrets, clock, { allowInsecureTargets }),
      [TOKENS.unitOfWork, TOKENS.secretBox, TOKENS.clock],
    );
    bind(TOKENS.webhookSender).toConstantValue(
      new HttpWebhookSender({ allowInsecureTargets, maxSockets: settings.webhookConcurrency }),
    );
    bind(TOKENS.webhookDeliveryWorker).toResolvedValue(
      (
        uow: UnitOfWork,
        sender: WebhookSender,
        secrets: SecretBox,
        clock: Clock,
        logger: Logger,
        dispatcher: OutboxDispatcher,
      ) => {
        const worker = new WebhookDeliveryWorker(uow, sender, secrets, clock, logger, {
          concurrency: settings.webhookConcurrency,
          timeoutMs: settings.webhookTimeoutMs,
          pollMs: 1000,
        });
        dispatcher.onDeliveries(() => worker.wake());
        return worker;
      },
      [TOKENS.unitOfWork, TOKENS.webhookSender, TOKENS.secretBox, TOKENS.clock, TOKENS.logger, TOKENS.outboxDispatcher],
    );
  });
}

/** The cost price import's one way to the registrars: the plugin's `tldPricing`, guarded by the gateway. */
function tldCostsFrom(gateway: RegistrarGateway): CostPriceSource {
  return (registrarId) => gateway.tldPrices(registrarId);
}
