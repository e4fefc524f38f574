/** The package's public API: the module factory for host platforms, and the contracts plugins build on. */
export { createResellerModule, BUNDLED_PLUGINS_DIR, type ResellerModule, type ResellerModuleOptions, type HttpMountOptions } from './module';
export { loadSettings, parseSettings, type Settings } from './config/settings';
export { TOKENS } from './core/tokens';
export { computeToken, tokenHour } from './core/auth/api-token';
export { DomainError, isDomainError, type ErrorCode } from './core/shared/errors';
export { formatAmount, parseAmount } from './core/shared/money';
export { fixedClock, systemClock, type Clock } from './core/shared/clock';
export * from './core/registrar/plugin';
export { runConformanceKit, formatConformanceReport, type ConformanceOptions, type ConformanceReport, type ConformanceCheck } from './testing/conformance';
export { MemoryPluginStore } from './testing/memory-plugin-store';
/** The reseller SDK (also importable alone as `domain-reseller/client`, without loading the server). */
export * from './client';
export type { OrderRegistrar, RegistrarAnswer, DomainLookup, TransferStatus } from './core/order/order-registrar';
export type { ReconcileReport } from './core/order/order-service';
