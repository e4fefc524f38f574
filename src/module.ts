import type { Container } from 'inversify';
import type { Knex } from 'knex';
import type Koa from 'koa';
import { version } from '../package.json';
import { parseSettings, type Settings } from './config/settings';
import { buildContainer, MODULE_TOKENS, type HostPorts } from './container';
import type { ApiLogService } from './core/api-log/api-log';
import type { CatalogueService } from './core/catalogue/catalogue-service';
import type { CostPriceImport } from './core/catalogue/cost-price-import';
import { systemClock, type Clock } from './core/common/clock';
import type { EventBus, EventHandler, EventName } from './core/common/events';
import type { Logger } from './core/common/logger';
import type { CreditService } from './core/credit/credit-service';
import type { DomainManagementService } from './core/domain/domain-management-service';
import type { DomainService } from './core/domain/domain-service';
import type { DomainSyncService, SyncKind, SyncRoundReport } from './core/domain/domain-sync-service';
import type { JobScheduler } from './core/jobs/job-scheduler';
import type { OrderService, ReconcileReport } from './core/order/order-service';
import type { ResellerService } from './core/reseller/reseller-service';
import type { SearchService } from './core/search/search-service';
import { TOKENS } from './core/tokens';
import type { WebhookService } from './core/webhooks/webhook-service';
import { createHttpApi } from './http/http-api';
import { buildOpenApiDocument } from './http/openapi';
import type { Route } from './http/route-table';
import { ROUTES } from './http/routes';
import { operationalRoutes, type Readiness } from './http/routes/operational-routes';
import type { MasterKeyPolicy } from './infra/crypto/master-key';
import { migrateLatest } from './infra/db/migrate';
import { createLogger, isOwnLogger, withLogContext } from './infra/logging';
import type { PrometheusMetrics } from './infra/metrics/prometheus-metrics';
import type { PluginRegistry } from './infra/plugins/plugin-loader';
import { backgroundJobs, reconciler, type SyncRunOptions, syncRunner } from './startup/background-jobs';
import { openDatabase } from './startup/database';
import { Lifecycle } from './startup/lifecycle';
import { loadRegistrarPlugins } from './startup/plugins';
import { type ModuleState, readinessCheck } from './startup/readiness';
import { requestObservation } from './startup/request-observer';
import { openSecretBox } from './startup/secret-box';
import type { AuditLog } from './core/audit/audit-log';
import type { AccountLists } from './core/reseller/account-lists';
import type { PortalLogins } from './core/reseller/portal-logins';
import type { OperatorService } from './core/operator/operator-service';
import { consoleRules } from './web/console/console-access';
import { CONSOLE_PAGES } from './web/console/console-pages';
import { portalRules } from './web/portal/portal-access';
import { PORTAL_PAGES } from './web/portal/portal-pages';
import { createTemplates } from './web/templates';
import { createWebArea } from './web/web-app';
import { WEB_TOKENS } from './web/web-tokens';
import type { WebSessions } from './web/sessions';

export type { SyncRunOptions } from './startup/background-jobs';
export { BUNDLED_PLUGINS_DIR } from './startup/plugins';
export { missingRegistrars, pluginProblems } from './startup/readiness';

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
  /**
   * Also serve /metrics here (unless METRICS is off). Default: not served, since a mount is
   * usually public; the stand-alone server serves metrics on a listener of its own.
   */
  readonly metrics?: boolean;
}

export interface ConsoleMountOptions {
  /** The path the console is served under, like "/admin" (default: CONSOLE_PATH). */
  readonly mountPath?: string;
}

export interface ResellerModule {
  /** Koa middleware serving the reseller API (and /healthz, /readyz, /openapi.json; /metrics when asked); requests it does not own pass to `next`. */
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
  /**
   * Koa middleware serving the reseller portal (docs/portal.md) under `mountPath` (default:
   * PORTAL_PATH); requests outside it pass to `next`. Mount it before `middleware()` when both share an app.
   */
  portal(options?: ConsoleMountOptions): Koa.Middleware;
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

/**
 * Creates the reseller module: the host-agnostic core behind its container, the Koa middleware
 * and the registrar plugins. The stand-alone server (`src/main.ts`) is built on this alone. Each
 * part that must be stopped registers its stopping with `lifecycle` where it is started; `close()`
 * (or a failed start) stops them newest first.
 */
export async function createResellerModule(options: ResellerModuleOptions = {}): Promise<ResellerModule> {
  const settings = parseSettings(options.settings ?? {});
  const logger = moduleLogger(options.logger, settings);
  const clock = options.clock ?? systemClock;
  const lifecycle = new Lifecycle();
  try {
    const database = openDatabase(options.database, settings, logger, lifecycle, {
      ownsLedger: options.ports?.ledgerFactory === undefined,
    });
    const { knex } = database;
    const secretBox = await openSecretBox(settings, database, options.masterKeyPolicy ?? 'create-if-empty', logger);
    const registrars = await loadRegistrarPlugins(options.pluginsDir, settings, database, clock, logger, lifecycle);
    const state: ModuleState = { draining: false, pluginsClosed: false };
    lifecycle.onStop(() => {
      state.pluginsClosed = true;
    });

    const container = buildContainer(
      { ...database, settings, clock, logger, secretBox, plugins: registrars },
      options.ports,
    );
    options.configureContainer?.(container, { knex, settings, logger });
    const services = servicesOf(container);
    const events = container.get(TOKENS.events);
    const metrics = container.get(MODULE_TOKENS.metrics);
    const apiLog = container.get(MODULE_TOKENS.apiLogBuffer);
    if (settings.apiLog) apiLog.start();
    lifecycle.onStop(() => apiLog.close());
    metrics.subscribe(events);
    const unitOfWork = container.get(TOKENS.unitOfWork);
    metrics.readFrom({
      totalBalance: () => unitOfWork.read.ledger.totalBalance(),
      apiLogPending: () => apiLog.pending,
    });

    const readiness = readinessCheck({ ...database, registrars, catalogue: services.catalogue, state });
    const runSync = syncRunner(services.domainSync, settings, clock);
    const reconcile = reconciler(services.orders);
    // Events: the outbox's dispatcher and the webhook deliveries (docs/events.md), stopped after the jobs.
    const dispatcher = container.get(TOKENS.outboxDispatcher);
    const deliveries = container.get(TOKENS.webhookDeliveryWorker);
    const notifications = container.get(TOKENS.notifications);
    notifications.subscribe(events);
    lifecycle.onStop(async () => {
      await deliveries.stop();
      container.get(TOKENS.webhookSender).close?.();
      await dispatcher.drain();
      container.get(TOKENS.mailer).close?.();
    });
    const webSessions = container.get(WEB_TOKENS.sessions);
    const jobs = backgroundJobs(
      {
        runSync,
        reconcile,
        dispatcher,
        expiryNotices: container.get(TOKENS.domainExpiryNotices),
        notifications,
        apiLog: services.apiLog,
        audit: services.audit,
        webSessions,
        metrics,
        recentOperations: container.get(TOKENS.recentOperations),
        settings,
        logger,
      },
      lifecycle,
    );
    const observation = requestObservation({ logger, metrics, apiLog, settings, clock });

    const routesMountedAt = routeTable(settings, readiness, metrics);
    // Compiled templates are cached by the engine: one engine for every mount of the console.
    const templates = createTemplates({ cache: true });

    return {
      middleware: ({ metrics: withMetrics = false, ...mount } = {}) =>
        createHttpApi({
          container,
          routes: routesMountedAt(mount.prefix, withMetrics),
          logger,
          basePath: settings.basePath,
          observation,
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
          rules: consoleRules(),
          sessions: webSessions,
          container,
          templates,
          logger,
        }),
      portal: (mount = {}) =>
        createWebArea({
          area: 'portal',
          mountPath: mount.mountPath ?? (settings.portalPath === '/' ? '' : settings.portalPath),
          title: 'Reseller portal',
          pages: PORTAL_PAGES,
          rules: portalRules(),
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
        state.draining = true;
      },
      flushApiLog: () => apiLog.flush(),
      migrate: () => migrateLatest(knex),
      reconcile: () => reconcile(),
      close(closeOptions = {}) {
        state.draining = true;
        return lifecycle.stop(closeOptions);
      },
    };
  } catch (error) {
    await lifecycle.stop().catch(() => undefined);
    throw error;
  }
}

/** The services the module hands its host, the CLI and the tests (`module.services`). */
function servicesOf(container: Container): ResellerModule['services'] {
  return {
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
}

/** The host's logger with request ids added to its lines, or pino at LOG_LEVEL (in LOG_FORMAT) with secrets redacted. */
function moduleLogger(given: Logger | undefined, settings: Settings): Logger {
  if (!given) return createLogger(settings.logLevel, undefined, settings.logFormat);
  return isOwnLogger(given) ? given : withLogContext(given);
}

/** The route table as served under `prefix`: /openapi.json names that prefix in its `servers`. */
function routeTable(
  settings: Settings,
  readiness: () => Promise<Readiness>,
  metrics: PrometheusMetrics,
): (prefix: string | undefined, withMetrics: boolean) => Route[] {
  return (prefix, withMetrics) => {
    let document: unknown;
    const routes: Route[] = [
      ...ROUTES,
      ...operationalRoutes({
        document: () => (document ??= buildOpenApiDocument(routes, { version, basePath: settings.basePath, prefix })),
        readiness,
        metrics: settings.metrics && withMetrics ? metrics : undefined,
      }),
    ];
    return routes;
  };
}
