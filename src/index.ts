/** The package's public API: the module factory for host platforms, and the contracts plugins build on. */
export {
  createResellerModule,
  BUNDLED_PLUGINS_DIR,
  type ResellerModule,
  type ResellerModuleOptions,
  type HttpMountOptions,
  type SyncRunOptions,
} from './module';
export { createServerApp, startServer, type RunningServer } from './server';
/** What a Galera node has set differently from docs/operations.md ("Galera"); the stand-alone server warns of it at start. */
export { galeraSettingProblems } from './infra/db/galera-settings';
// Ports a host may replace with the module's `ports` option (docs/embedding.md), and the event types.
export type { HostPorts, PortContext } from './container';
export type { ResellerDirectory, AuthenticatingReseller } from './core/reseller/reseller-directory';
export type { Reseller, ResellerStatus } from './core/reseller/reseller';
export type { LedgerRepository, LedgerEntry, LedgerFactory, EntryKind } from './core/credit/ledger';
export type {
  RegistrarCallObserver,
  RegistrarCall,
  RegistrarCallOutcome,
} from './core/registrar/guarded-registrar';
export {
  InProcessEventBus,
  type EventBus,
  type EventName,
  type EventHandler,
  type PlatformEvents,
  type OrderPlaced,
  type OrderCompleted,
  type OrderFailed,
  type DomainStatusChanged,
  type CreditChanged,
  type StatusChangeCause,
} from './core/common/events';
export type { BackgroundJob, JobCounts } from './core/jobs/job-scheduler';
export type { ApiLogEntry } from './core/api-log/api-log';
export { loadSettings, parseSettings, type Settings } from './config/settings';
export { TOKENS } from './core/tokens';
export { computeToken, tokenHour } from './core/auth/api-token';
export { DomainError, isDomainError, type ErrorCode } from './core/common/errors';
export { formatAmount, parseAmount } from './core/common/money';
export { fixedClock, systemClock, type Clock } from './core/common/clock';
export * from './core/registrar/plugin';
export {
  runConformanceKit,
  formatConformanceReport,
  type ConformanceOptions,
  type ConformanceReport,
  type ConformanceCheck,
} from './testing/conformance';
export { MemoryPluginStore } from './testing/memory-plugin-store';
/** The reseller SDK (also importable alone as `domain-reseller/client`, without loading the server). */
export * from './client';
export type { OrderRegistrar, RegistrarAnswer, DomainLookup, TransferStatus } from './core/order/order-registrar';
export type { ReconcileReport } from './core/order/order-service';
