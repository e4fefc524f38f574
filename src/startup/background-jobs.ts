import os from 'node:os';
import type { Settings } from '../config/settings';
import type { ApiLogService } from '../core/api-log/api-log';
import type { AuditLog } from '../core/audit/audit-log';
import type { OutboxDispatcher } from '../core/events/event-dispatcher';
import type { DomainExpiryNotices } from '../core/domain/domain-expiry';
import type { Notifications } from '../core/mail/notifications';
import type { Clock } from '../core/common/clock';
import { ulid } from '../core/common/ids';
import type { Logger } from '../core/common/logger';
import type {
  DomainSyncService,
  SyncKind,
  SyncRoundProgress,
  SyncRoundReport,
} from '../core/domain/domain-sync-service';
import { type JobObserver, JobScheduler } from '../core/jobs/job-scheduler';
import type { OrderService, ReconcileReport } from '../core/order/order-service';
import { runWithLogContext } from '../infra/logging';
import type { PrometheusMetrics } from '../infra/metrics/prometheus-metrics';
import type { WebSessions } from '../web/sessions';
import type { Lifecycle } from './lifecycle';

/** Names this process in job claims (at most 64 characters with the job and pass). */
const PROCESS_TAG = `${os.hostname().slice(0, 24)}:${process.pid}`;

export interface SyncRunOptions {
  /** Domains synced at or after this are skipped. Default: now minus the kind's interval (the server's jobs). */
  readonly syncedBefore?: Date;
  /** Registrar calls at once per registrar. Default: JOB_CONCURRENCY_PER_REGISTRAR. */
  readonly concurrencyPerRegistrar?: number;
  /** Domains claimed at a time. Default: JOB_BATCH_SIZE. */
  readonly batchSize?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: SyncRoundProgress) => void;
}

export type SyncRunner = (kind: SyncKind, options?: SyncRunOptions) => Promise<SyncRoundReport>;
export type Reconciler = (signal?: AbortSignal) => Promise<ReconcileReport>;

/** One round of domain sync or transfer sync with the settings' defaults, claimed under this process's name. */
export function syncRunner(domainSync: DomainSyncService, settings: Settings, clock: Clock): SyncRunner {
  return (kind, run = {}) => {
    const concurrency = run.concurrencyPerRegistrar ?? settings.jobConcurrencyPerRegistrar;
    const batchSize = run.batchSize ?? settings.jobBatchSize;
    const intervalMs =
      (kind === 'domain' ? settings.domainSyncIntervalSeconds : settings.transferSyncIntervalSeconds) * 1000;
    return domainSync.syncDue({
      kind,
      syncedBefore: run.syncedBefore ?? new Date(clock.now().getTime() - intervalMs),
      owner: `${PROCESS_TAG}:${kind}:${ulid()}`.slice(0, 64),
      concurrencyPerRegistrar: concurrency,
      batchSize,
      // Long enough for two whole batches at the registrar deadline (the next batch is claimed while
      // one is worked on); a claim outlives only a dead worker.
      leaseMs: 2 * Math.ceil(batchSize / concurrency) * settings.registrarTimeoutMs + 60_000,
      signal: run.signal,
      onProgress: run.onProgress,
    });
  };
}

/** One reconciliation pass, its order leases taken under this process's name. */
export function reconciler(orders: OrderService): Reconciler {
  return (signal) => orders.reconcile({ owner: `${PROCESS_TAG}:reconcile:${ulid()}`, signal });
}

/**
 * The background jobs every process runs (docs/operations.md): domain sync, transfer sync, order
 * reconciliation, event recovery, and the purges of the events, the API log, the web sessions and the audit log. Registered here, started by `startBackgroundJobs`, and
 * stopped first when the module stops (a pass in progress is waited for, at most `jobsWaitMs`).
 */
export function backgroundJobs(
  parts: {
    readonly runSync: SyncRunner;
    readonly reconcile: Reconciler;
    readonly dispatcher: OutboxDispatcher;
    readonly expiryNotices: DomainExpiryNotices;
    readonly notifications: Notifications;
    readonly apiLog: ApiLogService;
    readonly audit: AuditLog;
    readonly webSessions: WebSessions;
    readonly metrics: PrometheusMetrics;
    /** Told about every pass beside the metrics (the console's dashboard: failed passes of the last hour). */
    readonly recentOperations: JobObserver;
    readonly settings: Settings;
    readonly logger: Logger;
  },
  lifecycle: Lifecycle,
): JobScheduler {
  const {
    runSync,
    reconcile,
    dispatcher,
    expiryNotices,
    notifications,
    apiLog,
    audit,
    webSessions,
    metrics,
    recentOperations,
    settings,
    logger,
  } = parts;
  const observer: JobObserver = {
    jobPass: (pass) => {
      metrics.jobPass(pass);
      recentOperations.jobPass(pass);
    },
  };
  const jobs = new JobScheduler(logger, observer, {
    runInContext: (job, work) => runWithLogContext({ job }, work),
  });
  // The jobs look for due work once a minute (or at their interval, if shorter); the claim decides who does it.
  jobs.register({
    name: 'domain-sync',
    intervalMs: Math.min(settings.domainSyncIntervalSeconds * 1000, 60_000),
    run: (signal) => runSync('domain', { signal }).then(roundCounts),
  });
  jobs.register({
    name: 'transfer-sync',
    intervalMs: Math.min(settings.transferSyncIntervalSeconds * 1000, 60_000),
    run: (signal) => runSync('transfer', { signal }).then(roundCounts),
  });
  // Pending orders left by registrar timeouts or crashes; each order is claimed with a lease (docs/orders.md).
  jobs.register({
    name: 'order-reconciliation',
    intervalMs: settings.reconcileIntervalMs,
    run: (signal) => reconcile(signal).then(({ orders: _orders, ...counts }) => counts),
  });
  // Events a crash (or a failed dispatch) left undispatched, from any process (ADR 15).
  jobs.register({
    name: 'event-recovery',
    intervalMs: Math.min(settings.eventsRecoverAfterMs, 10_000),
    run: () => dispatcher.recover(),
  });
  if (settings.eventsRetentionDays > 0)
    jobs.register({ name: 'event-purge', intervalMs: 3_600_000, run: () => dispatcher.purge() });
  jobs.register({ name: 'domain-expiry-notices', intervalMs: 3_600_000, run: () => expiryNotices.publishDue() });
  jobs.register({ name: 'expiry-digest', intervalMs: 3_600_000, run: () => notifications.dailyDigest() });
  if (settings.apiLogRetentionDays > 0) {
    jobs.register({
      name: 'api-log-purge',
      intervalMs: 3_600_000,
      run: async () => ({ purged: (await apiLog.purge()).deleted }),
    });
  }
  jobs.register({
    name: 'web-session-purge',
    intervalMs: 3_600_000,
    run: async () => ({ purged: await webSessions.purgeExpired() }),
  });
  if (settings.auditLogRetentionDays > 0) {
    jobs.register({
      name: 'audit-log-purge',
      intervalMs: 3_600_000,
      run: async () => ({ purged: (await audit.purge()).deleted }),
    });
  }
  lifecycle.onStop(async ({ jobsWaitMs }) => {
    if (!(await jobs.stop(jobsWaitMs ?? settings.shutdownTimeoutMs)))
      logger.warn(
        {},
        'a background pass was still running at close; its claims run out and another process takes them',
      );
  });
  return jobs;
}

const roundCounts = (report: SyncRoundReport) => ({
  synced: report.synced,
  changed: report.changedCount,
  failed: report.failedCount,
});
