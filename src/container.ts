import { Container, ContainerModule, type ServiceIdentifier } from 'inversify';
import type { Knex } from 'knex';
import { ApiLogService, BufferedApiLog } from './core/api-log/api-log';
import { Authenticator } from './core/auth/authenticator';
import { FailureThrottle, throttlePolicy } from './core/auth/failure-throttle';
import { CatalogueService } from './core/catalogue/catalogue-service';
import { type CostPriceSource, CostPriceImport } from './core/catalogue/cost-price-import';
import { CreditService } from './core/credit/credit-service';
import type { LedgerFactory } from './core/credit/ledger';
import { DomainManagementService } from './core/domain/domain-management-service';
import { DomainService } from './core/domain/domain-service';
import { DomainSyncService } from './core/domain/domain-sync-service';
import { GatewayOrderRegistrar } from './core/order/gateway-order-registrar';
import { createOrderService } from './core/order/order-service';
import type { RegistrarDirectory } from './core/registrar/registrar-directory';
import { RegistrarGateway } from './core/registrar/registrar-gateway';
import { guardRegistrars, type RegistrarCallObserver } from './core/registrar/guarded-registrar';
import type { SecretBox } from './core/reseller/reseller';
import { StoredResellerDirectory, type ResellerDirectory } from './core/reseller/reseller-directory';
import { AccountLists } from './core/reseller/account-lists';
import { ResellerService } from './core/reseller/reseller-service';
import type { Clock } from './core/common/clock';
import { AvailabilityChecker } from './core/search/availability-checker';
import { followOwnOrders } from './core/search/own-orders';
import { SearchService } from './core/search/search-service';
import { InProcessEventBus, type EventBus } from './core/common/events';
import { OutboxDispatcher } from './core/events/event-dispatcher';
import { WebhookDeliveryWorker } from './core/webhooks/delivery-worker';
import { WebhookService } from './core/webhooks/webhook-service';
import { HttpWebhookSender } from './infra/webhooks/http-webhook-sender';
import { NO_MAIL } from './core/mail/mailer';
import { Notifications } from './core/mail/notifications';
import { DomainExpiryNotices } from './core/domain/domain-expiry';
import { SmtpMailer } from './infra/mail/smtp-mailer';
import type { Logger } from './core/common/logger';
import { token, TOKENS, type Token } from './core/tokens';
import { authFailureLimits, type Settings } from './config/settings';
import { provider } from './provide';

import type { DatabasePools } from './infra/db/driver-pools';
import { PrometheusMetrics } from './infra/metrics/prometheus-metrics';
import { KnexApiLogRepository } from './infra/repositories/knex-api-log-repository';
import { KnexUnitOfWork, knexLedger } from './infra/repositories/knex-unit-of-work';
import { webModule } from './web/web-bindings';
import { bothObservers } from './core/console/recent-operations';

/** What the module hands the container: what is made with I/O before the graph (database, key, plugins). */
export interface Platform {
  readonly settings: Settings;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly knex: Knex;
  /** Reads, writes and transactions beside knex's builder, chosen when the database was opened. */
  readonly pools: DatabasePools;
  /** Whether the credit ledger is the module's own (the host gave no `ledgerFactory` port). */
  readonly ownsLedger: boolean;
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
} as const satisfies { readonly [K in keyof Required<HostPorts>]: Token<unknown> };

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
    accountModule(platform),
    catalogueModule(platform),
    searchModule(platform.settings),
    domainModule(),
    orderModule(platform.settings),
    webModule(platform.settings, platform.knex, platform.pools.reads),
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
  { settings, clock, logger, knex, pools, secretBox }: Platform,
  commits: { dispatcher?: OutboxDispatcher },
): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const provide = provider(bind);
    bind(TOKENS.clock).toConstantValue(clock);
    bind(TOKENS.logger).toConstantValue(logger);
    bind(TOKENS.currency).toConstantValue(settings.currency);
    bind(TOKENS.secretBox).toConstantValue(secretBox);
    provide(BUILT_IN.events, { logger: TOKENS.logger }, ({ logger }) => new InProcessEventBus(logger));
    bind(BUILT_IN.ledgerFactory).toConstantValue(knexLedger);
    provide(
      TOKENS.unitOfWork,
      { ledger: TOKENS.ledgerFactory },
      ({ ledger }) => new KnexUnitOfWork(knex, ledger, pools, (events) => commits.dispatcher?.committed(events)),
    );
    provide(
      TOKENS.outboxDispatcher,
      { uow: TOKENS.unitOfWork, events: TOKENS.events, clock: TOKENS.clock, logger: TOKENS.logger },
      ({ uow, events, clock, logger }) =>
        new OutboxDispatcher(uow, events, clock, logger, {
          recoverAfterMs: settings.eventsRecoverAfterMs,
          batchSize: 500,
          gatherMs: 5,
          retentionMs: settings.eventsRetentionDays * 86_400_000,
        }),
    );
    bind(TOKENS.apiLogRepository).toConstantValue(new KnexApiLogRepository(knex, pools.writes));
  });
}

function observabilityModule(settings: Settings): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const provide = provider(bind);
    provide(MODULE_TOKENS.metrics, { logger: TOKENS.logger }, ({ logger }) => new PrometheusMetrics(logger));
    provide(BUILT_IN.registrarCallObserver, { metrics: MODULE_TOKENS.metrics }, ({ metrics }) => metrics);
    provide(
      TOKENS.apiLogService,
      { repository: TOKENS.apiLogRepository, clock: TOKENS.clock },
      ({ repository, clock }) => new ApiLogService(repository, clock, settings.apiLogRetentionDays),
    );
    provide(
      MODULE_TOKENS.apiLogBuffer,
      { repository: TOKENS.apiLogRepository, logger: TOKENS.logger, metrics: MODULE_TOKENS.metrics },
      ({ repository, logger, metrics }) =>
        new BufferedApiLog(
          repository,
          logger,
          { flushMs: settings.apiLogFlushMs, bufferMax: settings.apiLogBufferMax },
          metrics,
        ),
    );
  });
}

function registrarModule({ plugins, settings }: Platform): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const provide = provider(bind);
    provide(
      TOKENS.registrars,
      { observer: TOKENS.registrarCallObserver, recent: TOKENS.recentOperations, logger: TOKENS.logger },
      ({ observer, recent, logger }) =>
        guardRegistrars(plugins, {
          timeoutMs: settings.registrarTimeoutMs,
          // The console's dashboard counts faults of the last hour beside whatever the port observes.
          observer: bothObservers(observer, recent),
          logger,
        }),
    );
    provide(
      TOKENS.registrarGateway,
      { registrars: TOKENS.registrars, logger: TOKENS.logger },
      ({ registrars, logger }) => new RegistrarGateway(registrars, logger),
    );
  });
}

function accountModule({ settings, ownsLedger }: Platform): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const provide = provider(bind);
    provide(
      BUILT_IN.resellerDirectory,
      { uow: TOKENS.unitOfWork, secrets: TOKENS.secretBox },
      // ADR 12: the balance read with the reseller is the reseller's only while the ledger is the module's own.
      ({ uow, secrets }) => new StoredResellerDirectory(uow.read.resellers, secrets, ownsLedger),
    );
    provide(
      TOKENS.authThrottle,
      { clock: TOKENS.clock },
      ({ clock }) => new FailureThrottle(throttlePolicy(authFailureLimits(settings)), clock),
    );
    provide(
      TOKENS.authenticator,
      { directory: TOKENS.resellerDirectory, throttle: TOKENS.authThrottle, clock: TOKENS.clock },
      ({ directory, throttle, clock }) => new Authenticator(directory, throttle, clock),
    );
    provide(
      TOKENS.resellerService,
      { uow: TOKENS.unitOfWork, secrets: TOKENS.secretBox, clock: TOKENS.clock },
      ({ uow, secrets, clock }) => new ResellerService(uow, secrets, clock),
    );
    provide(
      TOKENS.creditService,
      { uow: TOKENS.unitOfWork, clock: TOKENS.clock },
      ({ uow, clock }) => new CreditService(uow, clock),
    );
    provide(
      TOKENS.accountLists,
      { uow: TOKENS.unitOfWork, clock: TOKENS.clock },
      ({ uow, clock }) => new AccountLists(uow, clock),
    );
  });
}

function catalogueModule({ plugins, settings }: Platform): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const provide = provider(bind);
    provide(
      TOKENS.catalogueService,
      { uow: TOKENS.unitOfWork, currency: TOKENS.currency, clock: TOKENS.clock },
      // ADR 8: the order path's catalogue reads are reused for CATALOGUE_CACHE_MS. The catalogue
      // checks `--registrar` names against the installed plugins; it never calls them.
      ({ uow, currency, clock }) =>
        new CatalogueService(uow, plugins, currency, { cacheMs: settings.catalogueCacheMs, clock }),
    );
    provide(
      TOKENS.costPriceImport,
      {
        uow: TOKENS.unitOfWork,
        catalogue: TOKENS.catalogueService,
        gateway: TOKENS.registrarGateway,
        clock: TOKENS.clock,
      },
      ({ uow, catalogue, gateway, clock }) => new CostPriceImport(uow, catalogue, tldCostsFrom(gateway), clock),
    );
  });
}

function searchModule(settings: Settings): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const provide = provider(bind);
    provide(
      TOKENS.availabilityChecker,
      { registrars: TOKENS.registrars, clock: TOKENS.clock, logger: TOKENS.logger, events: TOKENS.events },
      ({ registrars, clock, logger, events }) => {
        const checker = new AvailabilityChecker(registrars, clock, logger, {
          cacheSeconds: settings.searchCacheSeconds,
        });
        followOwnOrders(events, checker);
        return checker;
      },
    );
    provide(
      TOKENS.searchService,
      {
        uow: TOKENS.unitOfWork,
        registrars: TOKENS.registrars,
        availability: TOKENS.availabilityChecker,
        logger: TOKENS.logger,
        clock: TOKENS.clock,
      },
      ({ uow, registrars, availability, logger, clock }) =>
        new SearchService(uow, registrars, availability, logger, {
          currency: settings.currency,
          premiumQuotes: { clock, lifetimeMs: settings.premiumQuoteHours * 3_600_000 },
        }),
    );
  });
}

function domainModule(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const provide = provider(bind);
    provide(TOKENS.domainService, { uow: TOKENS.unitOfWork }, ({ uow }) => new DomainService(uow));
    provide(
      TOKENS.domainSyncService,
      {
        uow: TOKENS.unitOfWork,
        gateway: TOKENS.registrarGateway,
        clock: TOKENS.clock,
        orders: TOKENS.orderService,
      },
      // Transfer sync settles a domain's open transfer order through the order flow (docs/domain-management.md).
      ({ uow, gateway, clock, orders }) => new DomainSyncService(uow, gateway, clock, orders),
    );
    provide(
      TOKENS.domainManagementService,
      {
        uow: TOKENS.unitOfWork,
        gateway: TOKENS.registrarGateway,
        syncer: TOKENS.domainSyncService,
        clock: TOKENS.clock,
      },
      ({ uow, gateway, syncer, clock }) => new DomainManagementService(uow, gateway, syncer, clock),
    );
  });
}

function orderModule(settings: Settings): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const provide = provider(bind);
    bind(TOKENS.orderSettings).toConstantValue(
      Object.freeze({
        registrarTimeoutMs: settings.registrarTimeoutMs,
        reconcileAfterMs: settings.reconcileAfterMs,
        idempotencyTtlMs: settings.idempotencyTtlHours * 3_600_000,
        reconcileBatch: settings.reconcileBatch,
        pendingLimitDays: settings.pendingOrderLimitDays,
      }),
    );
    provide(
      TOKENS.orderRegistrar,
      { registrars: TOKENS.registrars, gateway: TOKENS.registrarGateway, logger: TOKENS.logger },
      ({ registrars, gateway, logger }) => new GatewayOrderRegistrar(registrars, gateway, logger),
    );
    provide(
      TOKENS.orderService,
      {
        uow: TOKENS.unitOfWork,
        registrar: TOKENS.orderRegistrar,
        catalogue: TOKENS.catalogueService,
        clock: TOKENS.clock,
        logger: TOKENS.logger,
        settings: TOKENS.orderSettings,
        secrets: TOKENS.secretBox,
      },
      createOrderService,
    );
  });
}

function webhookModule(settings: Settings): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const provide = provider(bind);
    const allowInsecureTargets = settings.webhookAllowInsecureTargets;
    bind(TOKENS.mailer).toConstantValue(
      settings.smtpUrl ? new SmtpMailer(settings.smtpUrl, settings.mailFrom) : NO_MAIL,
    );
    provide(
      TOKENS.notifications,
      { uow: TOKENS.unitOfWork, mailer: TOKENS.mailer, clock: TOKENS.clock, logger: TOKENS.logger },
      ({ uow, mailer, clock, logger }) =>
        new Notifications(uow, mailer, clock, logger, {
          currency: settings.currency,
          operatorEmail: settings.operatorEmail,
        }),
    );
    provide(
      TOKENS.domainExpiryNotices,
      { uow: TOKENS.unitOfWork, clock: TOKENS.clock },
      ({ uow, clock }) => new DomainExpiryNotices(uow, clock),
    );
    provide(
      TOKENS.webhookService,
      { uow: TOKENS.unitOfWork, secrets: TOKENS.secretBox, clock: TOKENS.clock },
      ({ uow, secrets, clock }) => new WebhookService(uow, secrets, clock, { allowInsecureTargets }),
    );
    bind(TOKENS.webhookSender).toConstantValue(
      new HttpWebhookSender({ allowInsecureTargets, maxSockets: settings.webhookConcurrency }),
    );
    provide(
      TOKENS.webhookDeliveryWorker,
      {
        uow: TOKENS.unitOfWork,
        sender: TOKENS.webhookSender,
        secrets: TOKENS.secretBox,
        clock: TOKENS.clock,
        logger: TOKENS.logger,
        dispatcher: TOKENS.outboxDispatcher,
        notifications: TOKENS.notifications,
      },
      ({ uow, sender, secrets, clock, logger, dispatcher, notifications }) => {
        const worker = new WebhookDeliveryWorker(
          uow,
          sender,
          secrets,
          clock,
          logger,
          { concurrency: settings.webhookConcurrency, timeoutMs: settings.webhookTimeoutMs, pollMs: 1000 },
          (endpoint, reason) => notifications.endpointDisabled(endpoint, reason),
        );
        dispatcher.handOffTo(worker);
        return worker;
      },
    );
  });
}

/** The cost price import's one way to the registrars: the plugin's `tldPricing`, guarded by the gateway. */
function tldCostsFrom(gateway: RegistrarGateway): CostPriceSource {
  return (registrarId) => gateway.tldPrices(registrarId);
}
