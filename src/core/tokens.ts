import type { ServiceIdentifier } from 'inversify';
import type { Authenticator } from './auth/authenticator';
import type { FailureThrottle } from './auth/failure-throttle';
import type { CatalogueService } from './catalogue/catalogue-service';
import type { CreditService } from './credit/credit-service';
import type { DomainManagementService } from './domain/domain-management-service';
import type { DomainService } from './domain/domain-service';
import type { DomainSyncService } from './domain/domain-sync-service';
import type { OrderRegistrar } from './order/order-registrar';
import type { OrderService, OrderSettings } from './order/order-service';
import type { RegistrarDirectory } from './registrar/registrar-directory';
import type { RegistrarGateway } from './registrar/registrar-gateway';
import type { SecretBox } from './reseller/reseller';
import type { ResellerService } from './reseller/reseller-service';
import type { AvailabilityChecker } from './search/availability-checker';
import type { SearchService } from './search/search-service';
import type { Clock } from './shared/clock';
import type { Logger } from './shared/logger';
import type { UnitOfWork } from './shared/unit-of-work';

const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`reseller/${name}`);

/** Every service identifier in one place. A host rebinds a port (say, its own credit store) by its token. */
export const TOKENS = {
  clock: token<Clock>('clock'),
  logger: token<Logger>('logger'),
  currency: token<string>('currency'),
  unitOfWork: token<UnitOfWork>('unitOfWork'),
  secretBox: token<SecretBox>('secretBox'),
  registrars: token<RegistrarDirectory>('registrars'),
  registrarGateway: token<RegistrarGateway>('registrarGateway'),
  authThrottle: token<FailureThrottle>('authThrottle'),
  authenticator: token<Authenticator>('authenticator'),
  resellerService: token<ResellerService>('resellerService'),
  catalogueService: token<CatalogueService>('catalogueService'),
  creditService: token<CreditService>('creditService'),
  domainService: token<DomainService>('domainService'),
  availabilityChecker: token<AvailabilityChecker>('availabilityChecker'),
  searchService: token<SearchService>('searchService'),
  domainSyncService: token<DomainSyncService>('domainSyncService'),
  domainManagementService: token<DomainManagementService>('domainManagementService'),
  orderSettings: token<OrderSettings>('orderSettings'),
  /** The order flow's registrar port; a host (or the registrar gateway) may rebind it. */
  orderRegistrar: token<OrderRegistrar>('orderRegistrar'),
  orderService: token<OrderService>('orderService'),
} as const;
