import type { ServiceIdentifier } from 'inversify';
import type { ApiLogRepository, ApiLogService } from './api-log/api-log';
import type { AuditLog } from './audit/audit-log';
import type { Authenticator } from './auth/authenticator';
import type { ConsoleLists } from './console/console-lists';
import type { RecentOperations } from './console/recent-operations';
import type { FailureThrottle } from './auth/failure-throttle';
import type { CatalogueService } from './catalogue/catalogue-service';
import type { CostPriceImport } from './catalogue/cost-price-import';
import type { CreditService } from './credit/credit-service';
import type { LedgerFactory } from './credit/ledger';
import type { DomainManagementService } from './domain/domain-management-service';
import type { DomainService } from './domain/domain-service';
import type { DomainSyncService } from './domain/domain-sync-service';
import type { OperatorService } from './operator/operator-service';
import type { OrderRegistrar } from './order/order-registrar';
import type { OrderService, OrderSettings } from './order/order-service';
import type { RegistrarGateway } from './registrar/registrar-gateway';
import type { GuardedRegistrars, RegistrarCallObserver } from './registrar/guarded-registrar';
import type { SecretBox } from './reseller/reseller';
import type { AccountLists } from './reseller/account-lists';
import type { PortalLogins } from './reseller/portal-logins';
import type { ResellerDirectory } from './reseller/reseller-directory';
import type { ResellerService } from './reseller/reseller-service';
import type { AvailabilityChecker } from './search/availability-checker';
import type { SearchService } from './search/search-service';
import type { Clock } from './common/clock';
import type { EventBus } from './common/events';
import type { OutboxDispatcher } from './events/event-dispatcher';
import type { WebhookService } from './webhooks/webhook-service';
import type { Mailer } from './mail/mailer';
import type { Notifications } from './mail/notifications';
import type { DomainExpiryNotices } from './domain/domain-expiry';
import type { WebhookDeliveryWorker, WebhookSender } from './webhooks/delivery-worker';
import type { Logger } from './common/logger';
import type { UnitOfWork } from './common/unit-of-work';

declare const PRODUCES: unique symbol;

/**
 * A service identifier that carries the type it resolves to. inversify's `ServiceIdentifier<T>`
 * accepts any symbol for any `T`; the brand makes `Token<Clock>` and `Token<Logger>` different
 * types, so a dependency named by the wrong token does not compile (src/provide.ts).
 */
export type Token<T> = ServiceIdentifier<T> & { readonly [PRODUCES]?: T };

/** A token for the service `name`; the same name gives the same token in every copy of the module. */
export const token = <T>(name: string): Token<T> => Symbol.for(`reseller/${name}`) as Token<T>;

/**
 * Every service identifier of the core in one place (src/container.ts binds them). A host replaces
 * a port with the module's `ports` option (docs/embedding.md lists the ports).
 */
export const TOKENS = {
  clock: token<Clock>('clock'),
  logger: token<Logger>('logger'),
  currency: token<string>('currency'),
  /** Port: makes the ledger a unit of work uses; a host that keeps balances itself rebinds it. */
  ledgerFactory: token<LedgerFactory>('ledgerFactory'),
  unitOfWork: token<UnitOfWork>('unitOfWork'),
  secretBox: token<SecretBox>('secretBox'),
  /** Port: who may call the API, with which key and from where; a host with its own customers rebinds it. */
  resellerDirectory: token<ResellerDirectory>('resellerDirectory'),
  /** Port: the module's in-process subscribers, fed from the outbox (docs/events.md). */
  events: token<EventBus>('events'),
  /** Feeds committed events to the subscribers and to webhook deliveries; re-dispatches what a crash left (ADR 15). */
  outboxDispatcher: token<OutboxDispatcher>('outboxDispatcher'),
  /** Webhook endpoints and deliveries (`reseller-admin webhook`, the console, the portal). */
  webhookService: token<WebhookService>('webhookService'),
  /** One signed POST to an endpoint, its address checked when connecting. */
  webhookSender: token<WebhookSender>('webhookSender'),
  /** Claims due deliveries and sends them (started with the background jobs). */
  webhookDeliveryWorker: token<WebhookDeliveryWorker>('webhookDeliveryWorker'),
  /** Port: sends mail (SMTP_URL; none when unset). The portal's invitations and resets use it too. */
  mailer: token<Mailer>('mailer'),
  /** The platform's mail: low credit, the daily expiring digest, a disabled endpoint. */
  notifications: token<Notifications>('notifications'),
  /** Publishes `domain.expiring` 30, 7 and 1 days before each expiry date. */
  domainExpiryNotices: token<DomainExpiryNotices>('domainExpiryNotices'),
  /** Port: told about every registrar call (the Prometheus metrics by default). */
  registrarCallObserver: token<RegistrarCallObserver>('registrarCallObserver'),
  /** The installed registrar plugins, each behind its guarded registrar (deadline, observation, answer checks). */
  registrars: token<GuardedRegistrars>('registrars'),
  registrarGateway: token<RegistrarGateway>('registrarGateway'),
  authThrottle: token<FailureThrottle>('authThrottle'),
  authenticator: token<Authenticator>('authenticator'),
  resellerService: token<ResellerService>('resellerService'),
  catalogueService: token<CatalogueService>('catalogueService'),
  /** Sale prices from a registrar's cost prices and a margin rule (`reseller-admin tld import-costs`). */
  costPriceImport: token<CostPriceImport>('costPriceImport'),
  creditService: token<CreditService>('creditService'),
  /** A reseller's own domains, orders and statement, page by page (the API's account lists, the portal). */
  accountLists: token<AccountLists>('accountLists'),
  domainService: token<DomainService>('domainService'),
  availabilityChecker: token<AvailabilityChecker>('availabilityChecker'),
  searchService: token<SearchService>('searchService'),
  domainSyncService: token<DomainSyncService>('domainSyncService'),
  domainManagementService: token<DomainManagementService>('domainManagementService'),
  orderSettings: token<OrderSettings>('orderSettings'),
  /** The order flow's registrar port, over the guarded registrars. */
  orderRegistrar: token<OrderRegistrar>('orderRegistrar'),
  orderService: token<OrderService>('orderService'),
  apiLogRepository: token<ApiLogRepository>('apiLogRepository'),
  apiLogService: token<ApiLogService>('apiLogService'),
  /** Every change made from the console, the portal or a CLI command: who, when, what, before and after. */
  auditLog: token<AuditLog>('auditLog'),
  /** Links that work once (an operator's set-password link, a reseller's portal invitation). */
  /** The console's operator accounts. */
  operatorService: token<OperatorService>('operatorService'),
  /** The reseller portal's sign-in: invitations, passwords, second factor (docs/portal.md). */
  portalLogins: token<PortalLogins>('portalLogins'),
  /** The console's lists across resellers (reads only). */
  consoleLists: token<ConsoleLists>('consoleLists'),
  /** Failed background passes and registrar faults of the last hour in this process (the console's dashboard). */
  recentOperations: token<RecentOperations>('recentOperations'),
} as const;
