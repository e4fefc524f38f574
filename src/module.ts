import os from 'node:os';
import path from 'node:path';
import type { Container } from 'inversify';
import type { Knex } from 'knex';
import type Koa from 'koa';
import { ulid } from './core/common/ids';
import { version } from '../package.json';
import { parseSettings, type Settings } from './config/settings';
import { buildContainer, MODULE_TOKENS, type HostPorts } from './container';
import type { ApiLogService } from './core/api-log/api-log';
import type { CatalogueService } from './core/catalogue/catalogue-service';
import type { CostPriceImport } from './core/catalogue/cost-price-import';
import type { CreditService } from './core/credit/credit-service';
import type { DomainManagementService } from './core/domain/domain-management-service';
import type { DomainService } from './core/domain/domain-service';
import type {
  DomainSyncService,
  SyncKind,
  SyncRoundProgress,
  SyncRoundReport,
} from './core/domain/domain-sync-service';
import { JobScheduler } from './core/jobs/job-scheduler';
import type { OrderService, ReconcileReport } from './core/order/order-service';
import type { ResellerService } from './core/reseller/reseller-service';
import type { SearchService } from './core/search/search-service';
import { systemClock, type Clock } from './core/common/clock';
import type { EventBus, EventHandler, EventName } from './core/common/events';
import type { Logger } from './core/common/logger';
import { TOKENS } from './core/tokens';
import type { WebhookService } from './core/webhooks/webhook-service';
import { createHttpApi } from './http/http-api';
import type { ObservedCall } from './http/middleware/observe-requests';
import { buildOpenApiDocument } from './http/openapi';
import type { Route } from './http/route-table';
import { ROUTES } from './http/routes';
import { operationalRoutes, type Readiness } from './http/routes/operational-routes';
import { AesSecretBox } from './infra/crypto/aes-secret-box';
import { type MasterKeyPolicy, resolveMasterKey } from './infra/crypto/master-key';
import { connectDatabase, parseDatabaseUrl } from './infra/db/connect';
import { openHotReads } from './infra/db/direct-reads';
import { databaseAnswers } from './infra/db/readiness';
import { migrateLatest } from './infra/db/migrate';
import { createLogger, isOwnLogger, runWithLogContext, withLogContext } from './infra/logging';
import type { PrometheusMetrics } from './infra/metrics/prometheus-metrics';
import { KnexPluginStore } from './infra/plugins/knex-plugin-store';
import { loadPlugins, type PluginRegistry } from './infra/plugins/plugin-loader';
import type { AuditLog } from './core/audit/audit-log';
import type { AccountLists } from './core/reseller/account-lists';
import type { PortalLogins } from './core/reseller/portal-logins';
import type { OperatorService } from './core/operator/operator-service';
import { consoleRules } from './web/console/console-access';
import { CONSOLE_PAGES } from './web/console/console-pages';
import { createTemplates } from './web/templates';
import { createWebArea } from './web/web-app';
import { WEB_TOKENS } from './web/web-tokens';
import type { WebSessions } from './web/sessions';

/** Where the bundled plugins live, from src/ under tsx and from dist/src/ when compiled. */
export const BUNDLED_PLUGINS_DIR = path.resolve(__dirname, '..', 'plugins');

export interface ResellerModuleOptions {
  /** A knex instance the host owns (not closed by `close()`), or a database URL (`sqlite:…`, `mysql://…`). Default: settings.databaseUrl. */
  readonly database?: Knex | string;
  /**
   * Folders of registrar plugins added to the bundled `plugins/` (a plugin there with a bundled
   * plugin's id replaces it, with a log line). Default: settings.pluginsDir (PLUGINS_DIR,
   * comma-separated). A plugin that fails to load is disabled and reported, never fatal.
   */
  readonly pluginsDir?: string | readonly string[];
  readonly clock?: Clock;
  /** A pino-compatible logger. Default: pino at settings.logLevel, with secrets redacted. Request ids are added to its lines. */
  readonly logger?: Logger;
  /** Settings as in the README's table (camelCase keys); validated, every problem reported at once. */
  readonly settings?: Record<string, unknown>;
  /**
   * Whether a missing master key file may be created. Default `create-if-empty`: only for a
   * database that holds no sealed API key yet. `existing-only` never writes one (the CLI's
   * commands but `migrate`). A key that does not open the stored API keys is always refused.
   */
  readonly masterKeyPolicy?: MasterKeyPolicy;
  /**
   * The ports the host replaces, each made from the module's context: its own reseller directory,
   * credit ledger, event bus or registrar call observer (docs/embedding.md lists their contracts).
   */
  readonly ports?: HostPorts;
  /**
   * @deprecated Use `ports`, which is typed. Runs after the container is built and before anything
   * is resolved; nothing checks that what it rebinds is a port a host may replace.
   */
  readonly configureContainer?: (
    container: Container,
    context: { readonly knex: Knex; readonly settings: Settings; readonly logger: Logger },
  ) => void;
}

export interface HttpMountOptions {
  /** The path the host mounts the API under, like "/reseller-api". Unmatched paths under it answer 404 JSON. */
  readonly prefix?: string;
  /** Answer every unmatched request with 404 JSON (for an app that serves nothing else). */
  readonly ownAllPaths?: boolean;
  /** Development and tests: check every 200 reply against its route's output schema (the OpenAPI document's); a mismatch is a 500. */
  readonly checkReplies?: boolean;
}

export interface ConsoleMountOptions {
  /** The path the console is served under, like "/admin" (default: CONSOLE_PATH). */
  readonly mountPath?: string;
}

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

export interface ResellerModule {
  /** Koa middleware serving the reseller API (and /healthz, /readyz, /openapi.json, /metrics); requests it does not own pass to `next`. */
  middleware(options?: HttpMountOptions): Koa.Middleware;
  readonly services: {
    readonly resellers: ResellerService;
    readonly catalogue: CatalogueService;
    /** Sale prices from a registrar's cost prices and a margin rule (`reseller-admin tld import-costs`). */
    readonly costPrices: CostPriceImport;
    readonly credit: CreditService;
    readonly domains: DomainService;
    /** Domain search: suggestions and exact-name lookup (docs/search.md). */
    readonly search: SearchService;
    /** Domain management as the HTTP API offers it, per reseller (docs/api.md#domains). */
    readonly domainManagement: DomainManagementService;
    /** Registrar sync of one domain, or a round of them (`reseller-admin sync`, the server's jobs). */
    readonly domainSync: DomainSyncService;
    /** The reseller API log: every call, per reseller (`reseller-admin log`). */
    readonly apiLog: ApiLogService;
    /** Orders: register, renew, transfer over the credit ledger, and their reconciliation (docs/orders.md). */
    readonly orders: OrderService;
    /** Webhook endpoints and their deliveries (docs/events.md). */
    readonly webhooks: WebhookService;
    /** Every change made from the console, the portal or a CLI command (docs/console.md#audit-log). */
    readonly audit: AuditLog;
    /** The console's operator accounts (`reseller-admin operator`). */
    readonly operators: OperatorService;
    /** The reseller portal's sign-in: `invite` makes a reseller's one-time link (docs/portal.md). */
    readonly portalLogins: PortalLogins;
    /** A reseller's own domains, orders and statement, page by page (docs/api.md#account-lists). */
    readonly accountLists: AccountLists;
  };
  /**
   * Koa middleware serving the operator console (docs/console.md) under `mountPath`; requests
   * outside it pass to `next`. Mount it before `middleware()` when both share an app.
   */
  console(options?: ConsoleMountOptions): Koa.Middleware;
  /** The console's and portal's sessions in the database (listed and revoked in the console). */
  readonly webSessions: WebSessions;
  /**
   * Subscribes to one of the module's events (docs/events.md): the handler gets the payload and the
   * whole event, after the change committed, at least once (deduplicate on `event.id`). Returns
   * the function that unsubscribes.
   */
  on<K extends EventName>(name: K, handler: EventHandler<K>): () => void;
  readonly events: EventBus;
  /**
   * The inversify container, for hosts that resolve more services (replace ports with the `ports`
   * option). The module's own code (the CLI, the HTTP routes' services) goes through `services`.
   */
  readonly container: Container;
  readonly settings: Settings;
  readonly registrars: PluginRegistry;
  readonly knex: Knex;
  readonly logger: Logger;
  /** The Prometheus metrics (served at /metrics unless METRICS is off); a host may merge `metrics.registry` into its own. */
  readonly metrics: PrometheusMetrics;
  /** The background jobs: order reconciliation, domain sync, transfer sync, API log purge. Register more with `jobs.register`. */
  readonly jobs: JobScheduler;
  /** Starts the background jobs, unless BACKGROUND_JOBS is off. The stand-alone server calls it; `close()` stops them. */
  startBackgroundJobs(): void;
  /** One round of domain sync or transfer sync, claimed domain by domain so that several processes can run rounds at once. */
  runSync(kind: SyncKind, options?: SyncRunOptions): Promise<SyncRoundReport>;
  /** What /readyz reports: the database answers, the plugins are loaded, the module is not shutting down. */
  readiness(): Promise<Readiness>;
  /** From now on /readyz answers 503, so that load balancers stop sending requests (the first step of a graceful shutdown). */
  drain(): void;
  /** Writes the API log entries buffered so far (they are written every API_LOG_FLUSH_MS anyway). */
  flushApiLog(): Promise<void>;
  /** Brings the schema to the latest version; safe from several processes at once. */
  migrate(): Promise<string[]>;
  /** One reconciliation pass over pending orders (docs/orders.md); safe from several processes at once. */
  reconcile(): Promise<ReconcileReport>;
  /**
   * Stops the background jobs (waiting for a pass in progress at most `jobsWaitMs`, default
   * SHUTDOWN_TIMEOUT_MS), writes the API log's buffer, closes the plugins and, when the module
   * opened it, the database pool.
   */
  close(options?: { readonly jobsWaitMs?: number }): Promise<void>;
}

/** Names this process in job claims (at most 64 characters with the job and pass). */
const PROCESS_TAG = `${os.hostname().slice(0, 24)}:${process.pid}`;

/**
 * Creates the reseller module: the host-agnostic core behind its container, the Koa middleware
 * and the registrar plugins. The stand-alone server (`src/main.ts`) is built on this alone.
 */
export async function createResellerModule(options: ResellerModuleOptions = {}): Promise<ResellerModule> {
  const settings = parseSettings(options.settings ?? {});
  const logger = !options.logger
    ? createLogger(settings.logLevel)
    : isOwnLogger(options.logger)
      ? options.logger
      : withLogContext(options.logger);
  const clock = options.clock ?? systemClock;
  const ownsDatabase = options.database === undefined || typeof options.database === 'string';
  const target =
    typeof options.database === 'string' || options.database === undefined
      ? parseDatabaseUrl(options.database ?? settings.databaseUrl)
      : undefined;
  const knex = target ? connectDatabase(target, { poolMax: settings.dbPoolMax, logger }) : (options.database as Knex);
  // ADR 12: authentication's statement on a connection of its own, through the driver's public API.
  const hotReads = target ? openHotReads(target, { poolMax: settings.dbPoolMax }) : undefined;
  const closeDatabase = async () => {
    await hotReads?.close();
    if (ownsDatabase) await knex.destroy();
  };

  try {
    const masterKey = await resolveMasterKey(
      {
        masterKey: settings.masterKey,
        masterKeyFile: settings.masterKeyFile,
        sqliteFile: target?.kind === 'sqlite' ? target.location : undefined,
      },
      options.masterKeyPolicy ?? 'create-if-empty',
      () => aSealedApiKey(knex),
      (key, sealed) => opensWith(key, sealed),
    );
    if (masterKey.created && masterKey.file)
      logger.warn(
        { file: masterKey.file },
        'created a new master key; back it up with the database: without it the stored API keys cannot be used',
      );
    const secretBox = new AesSecretBox(masterKey.key);
    const registrars = await loadPlugins(
      [BUNDLED_PLUGINS_DIR, ...pluginFolders(options.pluginsDir ?? settings.pluginsDir)],
      settings.plugins,
      (pluginId) => ({
        logger: logger.child({ plugin: pluginId }),
        clock,
        store: new KnexPluginStore(knex, pluginId, clock, hotReads),
      }),
      ({ id, folder, by }) =>
        logger.info({ plugin: id, folder, by }, `registrar plugin "${id}" of ${by} replaces the bundled one`),
    );
    for (const { id, problem } of registrars.failures())
      logger.error({ plugin: id, problem }, `registrar plugin "${id}" failed to load and is disabled: ${problem}`);
    const container = buildContainer(
      { settings, clock, logger, knex, hotReads, secretBox, plugins: registrars },
      options.ports,
    );
    options.configureContainer?.(container, { knex, settings, logger });

    const metrics = container.get(MODULE_TOKENS.metrics);
    const events = container.get(TOKENS.events);
    metrics.subscribe(events);
    const services = {
      resellers: container.get(TOKENS.resellerService),
      catalogue: container.get(TOKENS.catalogueService),
      costPrices: container.get(TOKENS.costPriceImport),
      credit: container.get(TOKENS.creditService),
      domains: container.get(TOKENS.domainService),
      search: container.get(TOKENS.searchService),
      domainManagement: container.get(TOKENS.domainManagementService),
      domainSync: container.get(TOKENS.domainSyncService),
      apiLog: container.get(TOKENS.apiLogService),
      orders: container.get(TOKENS.orderService),
      webhooks: container.get(TOKENS.webhookService),
      audit: container.get(TOKENS.auditLog),
      operators: container.get(TOKENS.operatorService),
      portalLogins: container.get(TOKENS.portalLogins),
      accountLists: container.get(TOKENS.accountLists),
    };
    const unitOfWork = container.get(TOKENS.unitOfWork);
    const apiLog = container.get(MODULE_TOKENS.apiLogBuffer);
    if (settings.apiLog) apiLog.start();
    metrics.readFrom({
      totalBalance: () => unitOfWork.read.ledger.totalBalance(),
      apiLogPending: () => apiLog.pending,
    });

    let draining = false;
    let closed = false;
    const readiness = async (): Promise<Readiness> => {
      const checks: Record<string, string> = {};
      if (draining) checks.process = 'shutting down';
      checks.database = await databaseAnswers(knex, hotReads);
      checks.plugins = closed
        ? 'closed'
        : registrars.ids().length === 0
          ? 'no registrar plugin is installed'
          : (pluginProblems(await services.catalogue.listTlds().catch(() => []), registrars) ?? 'ok');
      return { ready: Object.values(checks).every((v) => v === 'ok'), checks };
    };

    const runSync = (kind: SyncKind, run: SyncRunOptions = {}): Promise<SyncRoundReport> => {
      const concurrency = run.concurrencyPerRegistrar ?? settings.jobConcurrencyPerRegistrar;
      const batchSize = run.batchSize ?? settings.jobBatchSize;
      const intervalMs =
        (kind === 'domain' ? settings.domainSyncIntervalSeconds : settings.transferSyncIntervalSeconds) * 1000;
      return services.domainSync.syncDue({
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

    const reconcile = (signal?: AbortSignal) =>
      services.orders.reconcile({ owner: `${PROCESS_TAG}:reconcile:${ulid()}`, signal });
    const jobs = new JobScheduler(logger, metrics, {
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
    const dispatcher = container.get(TOKENS.outboxDispatcher);
    const deliveries = container.get(TOKENS.webhookDeliveryWorker);
    jobs.register({
      name: 'event-recovery',
      intervalMs: Math.min(settings.eventsRecoverAfterMs, 10_000),
      run: () => dispatcher.recover(),
    });
    if (settings.eventsRetentionDays > 0)
      jobs.register({ name: 'event-purge', intervalMs: 3_600_000, run: () => dispatcher.purge() });
    if (settings.apiLogRetentionDays > 0) {
      jobs.register({
        name: 'api-log-purge',
        intervalMs: 3_600_000,
        run: async () => ({ purged: (await services.apiLog.purge()).deleted }),
      });
    }

    const webSessions = container.get(WEB_TOKENS.sessions);
    jobs.register({
      name: 'web-session-purge',
      intervalMs: 3_600_000,
      run: async () => ({ purged: await webSessions.purgeExpired() }),
    });
    if (settings.auditLogRetentionDays > 0) {
      jobs.register({
        name: 'audit-log-purge',
        intervalMs: 3_600_000,
        run: async () => ({ purged: (await services.audit.purge()).deleted }),
      });
    }
    // Compiled templates are cached by the engine: one engine for every mount of the console.
    const templates = createTemplates({ cache: true });

    const observe = (call: ObservedCall) => {
      // Health checks and scrapes come every few seconds: their lines are debug unless they fail.
      (call.operational && call.status < 500 ? logger.debug : logger.info).call(
        logger,
        {
          reqId: call.requestId || undefined,
          method: call.method,
          route: call.route,
          status: call.status,
          ms: Math.round(call.durationMs * 10) / 10,
          ...(call.resellerId ? { reseller: call.resellerId } : {}),
        },
        'request',
      );
      metrics.httpRequest(call.method, call.route ?? '(unmatched)', call.status, call.durationMs / 1000, call.routed);
      if (settings.apiLog && call.resellerId && call.route) {
        apiLog.record({
          resellerId: call.resellerId,
          at: clock.now(),
          method: call.method,
          route: call.route,
          domain: call.domain ?? null,
          status: call.status,
          durationMs: call.durationMs,
          error: call.error ?? null,
          requestId: call.requestId,
          clientIp: call.clientIp || null,
        });
      }
    };
    const runInContext = (reqId: string, work: () => Promise<void>) => runWithLogContext({ reqId }, work);

    /** The route table as served under `prefix`: /openapi.json names that prefix in its `servers`. */
    const routesMountedAt = (prefix: string | undefined): Route[] => {
      let document: unknown;
      const routes: Route[] = [
        ...ROUTES,
        ...operationalRoutes({
          document: () => (document ??= buildOpenApiDocument(routes, { version, basePath: settings.basePath, prefix })),
          readiness,
          metrics: settings.metrics ? metrics : undefined,
        }),
      ];
      return routes;
    };

    return {
      middleware: (mount = {}) =>
        createHttpApi({
          container,
          routes: routesMountedAt(mount.prefix),
          logger,
          basePath: settings.basePath,
          observation: { begin: () => metrics.httpRequestStarted(), observe, runInContext },
          ...mount,
        }),
      services,
      webSessions,
      console: (mount = {}) =>
        createWebArea({
          area: 'console',
          mountPath: mount.mountPath ?? settings.consolePath,
          title: 'Reseller console',
          pages: CONSOLE_PAGES,
          rules: consoleRules((id) => services.operators.byId(id)),
          sessions: webSessions,
          container,
          templates,
          logger,
        }),
      on: (name, handler) => events.on(name, handler),
      events,
      container,
      settings,
      registrars,
      knex,
      logger,
      metrics,
      jobs,
      startBackgroundJobs() {
        if (!settings.backgroundJobs) {
          logger.info(
            {},
            'background jobs are off (BACKGROUND_JOBS=false): run `reseller-admin sync` from a scheduler',
          );
          return;
        }
        jobs.start();
        deliveries.start();
      },
      runSync,
      readiness,
      drain() {
        draining = true;
      },
      flushApiLog: () => apiLog.flush(),
      migrate: () => migrateLatest(knex),
      reconcile: () => reconcile(),
      async close(options = {}) {
        draining = true;
        if (!(await jobs.stop(options.jobsWaitMs ?? settings.shutdownTimeoutMs)))
          logger.warn(
            {},
            'a background pass was still running at close; its claims run out and another process takes them',
          );
        await deliveries.stop();
        container.get(TOKENS.webhookSender).close?.();
        await dispatcher.drain();
        await apiLog.close();
        closed = true;
        await registrars.close();
        await closeDatabase();
      },
    };
  } catch (error) {
    await closeDatabase();
    throw error;
  }
}

/**
 * TLDs whose registrar plugin is not installed (a plugin removed, or a folder renamed, after the
 * TLDs were set): their orders would fail one by one, so start-up and /readyz say so.
 */
export function missingRegistrars(
  tlds: ReadonlyArray<{ readonly tld: string; readonly registrar: string }>,
  registrars: { has(id: string): boolean },
): string | undefined {
  const missing = new Map<string, string[]>();
  for (const { tld, registrar } of tlds)
    if (!registrars.has(registrar)) missing.set(registrar, [...(missing.get(registrar) ?? []), tld]);
  if (missing.size === 0) return undefined;
  return [...missing.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, names]) => `plugin "${id}" is not installed, but TLDs use it: ${[...new Set(names)].sort().join(', ')}`)
    .join('; ');
}

/** What /readyz says of the plugins: those that failed to load (with their TLDs), then TLDs on plugins not installed. */
export function pluginProblems(
  tlds: ReadonlyArray<{ readonly tld: string; readonly registrar: string }>,
  registrars: PluginRegistry,
): string | undefined {
  const failed = registrars.failures().map(({ id, problem }) => {
    const names = [...new Set(tlds.filter((t) => t.registrar === id).map((t) => t.tld))].sort();
    return `plugin "${id}" failed to load and is disabled${names.length ? ` (its TLDs ${names.join(', ')} answer 503)` : ''}: ${problem}`;
  });
  const missing = missingRegistrars(
    tlds.filter((t) => registrars.failure(t.registrar) === undefined),
    registrars,
  );
  const all = [...failed, ...(missing ? [missing] : [])];
  return all.length > 0 ? all.join('; ') : undefined;
}

/** PLUGINS_DIR's folders: comma-separated, relative to the working folder. */
function pluginFolders(dirs: string | readonly string[] | undefined): string[] {
  const list = typeof dirs === 'string' ? dirs.split(',') : (dirs ?? []);
  return list
    .map((d) => d.trim())
    .filter(Boolean)
    .map((d) => path.resolve(d));
}

const roundCounts = (report: SyncRoundReport) => ({
  synced: report.synced,
  changed: report.changedCount,
  failed: report.failedCount,
});

/** One reseller's sealed API key, or undefined on a database that holds none (or has no schema yet). */
async function aSealedApiKey(knex: Knex): Promise<string | undefined> {
  if (!(await knex.schema.hasTable('resellers'))) return undefined;
  const row = await knex('resellers').first('sealed_api_key');
  return row?.sealed_api_key;
}

function opensWith(key: Buffer, sealed: string): boolean {
  try {
    new AesSecretBox(key).open(sealed);
    return true;
  } catch {
    return false;
  }
}
