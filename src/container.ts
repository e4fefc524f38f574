import { Container } from 'inversify';
import { ApiLogService, type ApiLogRepository } from './core/api-log/api-log';
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
import type { Clock } from './core/shared/clock';
import { AvailabilityChecker } from './core/search/availability-checker';
import { followOwnOrders } from './core/search/own-orders';
import { SearchService } from './core/search/search-service';
import { InProcessEventBus, type EventBus } from './core/shared/events';
import type { Logger } from './core/shared/logger';
import type { UnitOfWork } from './core/shared/unit-of-work';
import { TOKENS } from './core/tokens';
import type { Settings } from './config/settings';

export interface Ports {
  readonly clock: Clock;
  readonly logger: Logger;
  /** Storage: a unit of work whose ledger comes from the given factory (a host may rebind the factory). */
  readonly unitOfWork: (ledger: LedgerFactory) => UnitOfWork;
  readonly ledger: LedgerFactory;
  readonly apiLog: ApiLogRepository;
  readonly secretBox: SecretBox;
  readonly registrars: RegistrarDirectory;
  readonly registrarCallObserver: RegistrarCallObserver;
}

/**
 * The composition root: the only place the service graph is built. Everything is bound lazily
 * (resolved on first use), so a host may rebind a port between this and the first `get`.
 */
export function buildContainer(ports: Ports, settings: Settings): Container {
  const container = new Container();
  container.bind(TOKENS.clock).toConstantValue(ports.clock);
  container.bind(TOKENS.logger).toConstantValue(ports.logger);
  container.bind(TOKENS.currency).toConstantValue(settings.currency);
  container.bind(TOKENS.ledgerFactory).toConstantValue(ports.ledger);
  container
    .bind(TOKENS.unitOfWork)
    .toResolvedValue((ledger: LedgerFactory) => ports.unitOfWork(ledger), [TOKENS.ledgerFactory])
    .inSingletonScope();
  container.bind(TOKENS.secretBox).toConstantValue(ports.secretBox);
  container
    .bind(TOKENS.events)
    .toResolvedValue((logger: Logger) => new InProcessEventBus(logger), [TOKENS.logger])
    .inSingletonScope();
  container.bind(TOKENS.registrarCallObserver).toConstantValue(ports.registrarCallObserver);
  container
    .bind(TOKENS.registrars)
    .toResolvedValue(
      (observer: RegistrarCallObserver, logger: Logger) =>
        guardRegistrars(ports.registrars, { timeoutMs: settings.registrarTimeoutMs, observer, logger }),
      [TOKENS.registrarCallObserver, TOKENS.logger],
    )
    .inSingletonScope();
  container
    .bind(TOKENS.resellerDirectory)
    .toResolvedValue(
      // ADR 11: the balance read with the reseller is the reseller's only while the ledger is the module's own.
      (uow: UnitOfWork, secrets: SecretBox, ledger: LedgerFactory) =>
        new StoredResellerDirectory(uow.read.resellers, secrets, ledger === ports.ledger),
      [TOKENS.unitOfWork, TOKENS.secretBox, TOKENS.ledgerFactory],
    )
    .inSingletonScope();
  container.bind(TOKENS.apiLogRepository).toConstantValue(ports.apiLog);
  container
    .bind(TOKENS.apiLogService)
    .toResolvedValue(
      (repository: ApiLogRepository, clock: Clock) =>
        new ApiLogService(repository, clock, settings.apiLogRetentionDays),
      [TOKENS.apiLogRepository, TOKENS.clock],
    )
    .inSingletonScope();

  container
    .bind(TOKENS.registrarGateway)
    .toResolvedValue(
      (registrars: GuardedRegistrars, logger: Logger) => new RegistrarGateway(registrars, logger),
      [TOKENS.registrars, TOKENS.logger],
    )
    .inSingletonScope();

  container
    .bind(TOKENS.authThrottle)
    .toResolvedValue(
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
    )
    .inSingletonScope();
  container
    .bind(TOKENS.authenticator)
    .toResolvedValue(
      (directory: ResellerDirectory, throttle: FailureThrottle, clock: Clock) =>
        new Authenticator(directory, throttle, clock),
      [TOKENS.resellerDirectory, TOKENS.authThrottle, TOKENS.clock],
    )
    .inSingletonScope();
  container
    .bind(TOKENS.resellerService)
    .toResolvedValue(
      (uow: UnitOfWork, secrets: SecretBox, clock: Clock, events: EventBus) =>
        new ResellerService(uow, secrets, clock, events),
      [TOKENS.unitOfWork, TOKENS.secretBox, TOKENS.clock, TOKENS.events],
    )
    .inSingletonScope();
  container
    .bind(TOKENS.catalogueService)
    .toResolvedValue(
      // ADR 8: the order path's catalogue reads are reused for CATALOGUE_CACHE_MS.
      (uow: UnitOfWork, currency: string, clock: Clock) =>
        new CatalogueService(uow, ports.registrars, currency, { cacheMs: settings.catalogueCacheMs, clock }),
      [TOKENS.unitOfWork, TOKENS.currency, TOKENS.clock],
    )
    .inSingletonScope();
  container
    .bind(TOKENS.costPriceImport)
    .toResolvedValue(
      (uow: UnitOfWork, catalogue: CatalogueService, gateway: RegistrarGateway) =>
        new CostPriceImport(uow, catalogue, tldCostsFrom(gateway)),
      [TOKENS.unitOfWork, TOKENS.catalogueService, TOKENS.registrarGateway],
    )
    .inSingletonScope();
  container
    .bind(TOKENS.creditService)
    .toResolvedValue(
      (uow: UnitOfWork, clock: Clock, events: EventBus) => new CreditService(uow, clock, events),
      [TOKENS.unitOfWork, TOKENS.clock, TOKENS.events],
    )
    .inSingletonScope();
  container
    .bind(TOKENS.domainService)
    .toResolvedValue((uow: UnitOfWork) => new DomainService(uow), [TOKENS.unitOfWork])
    .inSingletonScope();
  container
    .bind(TOKENS.availabilityChecker)
    .toResolvedValue(
      (registrars: GuardedRegistrars, clock: Clock, logger: Logger, events: EventBus) => {
        const checker = new AvailabilityChecker(registrars, clock, logger, {
          cacheSeconds: settings.searchCacheSeconds,
        });
        followOwnOrders(events, checker);
        return checker;
      },
      [TOKENS.registrars, TOKENS.clock, TOKENS.logger, TOKENS.events],
    )
    .inSingletonScope();
  container
    .bind(TOKENS.searchService)
    .toResolvedValue(
      (
        uow: UnitOfWork,
        registrars: GuardedRegistrars,
        availability: AvailabilityChecker,
        logger: Logger,
        currency: string,
      ) => new SearchService(uow, registrars, availability, logger, { currency }),
      [TOKENS.unitOfWork, TOKENS.registrars, TOKENS.availabilityChecker, TOKENS.logger, TOKENS.currency],
    )
    .inSingletonScope();
  container
    .bind(TOKENS.domainSyncService)
    .toResolvedValue(
      // Transfer sync settles a domain's open transfer order through the order flow (docs/domain-management.md).
      (uow: UnitOfWork, gateway: RegistrarGateway, clock: Clock, events: EventBus, orders: OrderService) =>
        new DomainSyncService(uow, gateway, clock, events, orders),
      [TOKENS.unitOfWork, TOKENS.registrarGateway, TOKENS.clock, TOKENS.events, TOKENS.orderService],
    )
    .inSingletonScope();
  container
    .bind(TOKENS.domainManagementService)
    .toResolvedValue(
      (uow: UnitOfWork, gateway: RegistrarGateway, syncer: DomainSyncService, clock: Clock, events: EventBus) =>
        new DomainManagementService(uow, gateway, syncer, clock, events),
      [TOKENS.unitOfWork, TOKENS.registrarGateway, TOKENS.domainSyncService, TOKENS.clock, TOKENS.events],
    )
    .inSingletonScope();
  container.bind(TOKENS.orderSettings).toConstantValue(
    Object.freeze({
      registrarTimeoutMs: settings.registrarTimeoutMs,
      reconcileAfterMs: settings.reconcileAfterMs,
      idempotencyTtlMs: settings.idempotencyTtlHours * 3_600_000,
      reconcileBatch: settings.reconcileBatch,
      pendingLimitDays: settings.pendingOrderLimitDays,
    }),
  );
  container
    .bind(TOKENS.orderRegistrar)
    .toResolvedValue(
      (registrars: GuardedRegistrars, gateway: RegistrarGateway, logger: Logger) =>
        new GatewayOrderRegistrar(registrars, gateway, logger),
      [TOKENS.registrars, TOKENS.registrarGateway, TOKENS.logger],
    )
    .inSingletonScope();
  container
    .bind(TOKENS.orderService)
    .toResolvedValue(
      (
        uow: UnitOfWork,
        registrar: OrderRegistrar,
        catalogue: CatalogueService,
        clock: Clock,
        logger: Logger,
        orderSettings: OrderSettings,
        events: EventBus,
      ) =>
        new OrderService(
          uow,
          registrar,
          catalogue,
          new OrderSettlement(uow, clock, logger, events, orderSettings),
          clock,
          logger,
          orderSettings,
          events,
        ),
      [
        TOKENS.unitOfWork,
        TOKENS.orderRegistrar,
        TOKENS.catalogueService,
        TOKENS.clock,
        TOKENS.logger,
        TOKENS.orderSettings,
        TOKENS.events,
      ],
    )
    .inSingletonScope();
  return container;
}

/** The cost price import's one way to the registrars: the plugin's `tldPricing`, guarded by the gateway. */
function tldCostsFrom(gateway: RegistrarGateway): CostPriceSource {
  return (registrarId) => gateway.tldPrices(registrarId);
}
