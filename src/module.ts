import path from 'node:path';
import type { Container } from 'inversify';
import type { Knex } from 'knex';
import type Koa from 'koa';
import { randomBytes } from 'node:crypto';
import { parseSettings, type Settings } from './config/settings';
import { buildContainer } from './container';
import type { CatalogueService } from './core/catalogue/catalogue-service';
import type { CreditService } from './core/credit/credit-service';
import type { DomainManagementService } from './core/domain/domain-management-service';
import type { DomainService } from './core/domain/domain-service';
import type { DomainSyncService } from './core/domain/domain-sync-service';
import type { OrderService, ReconcileReport } from './core/order/order-service';
import { ReconciliationJob } from './core/order/reconciliation-job';
import type { ResellerService } from './core/reseller/reseller-service';
import type { SearchService } from './core/search/search-service';
import { systemClock, type Clock } from './core/shared/clock';
import type { Logger } from './core/shared/logger';
import { TOKENS } from './core/tokens';
import { createHttpApi } from './http/http-api';
import { ROUTES } from './http/routes';
import { AesSecretBox } from './infra/crypto/aes-secret-box';
import { decodeMasterKey, loadOrCreateMasterKeyFile } from './infra/crypto/master-key';
import { connectDatabase, parseDatabaseUrl } from './infra/db/connect';
import { migrateLatest } from './infra/db/migrate';
import { createLogger } from './infra/logging';
import { KnexPluginStore } from './infra/plugins/knex-plugin-store';
import { loadPlugins, type PluginRegistry } from './infra/plugins/plugin-loader';
import { KnexUnitOfWork } from './infra/repositories/knex-unit-of-work';

/** Where the bundled plugins live, from src/ under tsx and from dist/src/ when compiled. */
export const BUNDLED_PLUGINS_DIR = path.resolve(__dirname, '..', 'plugins');

export interface ResellerModuleOptions {
  /** A knex instance the host owns (not closed by `close()`), or a database URL (`sqlite:…`, `mysql://…`). Default: settings.databaseUrl. */
  readonly database?: Knex | string;
  /** Folder the registrar plugins are discovered in. Default: settings.pluginsDir, else the bundled `plugins/`. */
  readonly pluginsDir?: string;
  readonly clock?: Clock;
  /** A pino-compatible logger. Default: pino at settings.logLevel, with secrets redacted. */
  readonly logger?: Logger;
  /** Settings as in the README's table (camelCase keys); validated, every problem reported at once. */
  readonly settings?: Record<string, unknown>;
}

export interface HttpMountOptions {
  /** The path the host mounts the API under, like "/reseller-api". Unmatched paths under it answer 404 JSON. */
  readonly prefix?: string;
  /** Answer every unmatched request with 404 JSON (for an app that serves nothing else). */
  readonly ownAllPaths?: boolean;
}

export interface ResellerModule {
  /** Koa middleware serving the reseller API; requests it does not own pass to `next`. */
  middleware(options?: HttpMountOptions): Koa.Middleware;
  readonly services: {
    readonly resellers: ResellerService;
    readonly catalogue: CatalogueService;
    readonly credit: CreditService;
    readonly domains: DomainService;
    /** Domain search: suggestions and exact-name lookup (docs/search.md). */
    readonly search: SearchService;
    /** Domain management as the HTTP API offers it, per reseller (spec 4.4 to 4.13). */
    readonly domainManagement: DomainManagementService;
    /** Registrar sync of one domain or all of them (`reseller-admin sync`). */
    readonly domainSync: DomainSyncService;
    readonly orders: OrderService;
  };
  /** The inversify container, for hosts that rebind ports before first use or resolve more services. */
  readonly container: Container;
  readonly settings: Settings;
  readonly registrars: PluginRegistry;
  readonly knex: Knex;
  readonly logger: Logger;
  /** Brings the schema to the latest version; safe from several processes at once. */
  migrate(): Promise<string[]>;
  /** One reconciliation pass over pending orders (docs/orders.md); safe from several processes at once. */
  reconcile(): Promise<ReconcileReport>;
  /**
   * Starts reconciling pending orders every `reconcileIntervalMs` (0: never) until `close()`.
   * The stand-alone server calls it; a host with its own scheduler calls `reconcile()` instead.
   */
  startReconciliation(): void;
  /** Stops background work, closes the plugins and, when the module opened it, the database pool. */
  close(): Promise<void>;
}

/**
 * Creates the reseller module: the host-agnostic core behind its container, the Koa middleware
 * and the registrar plugins. The stand-alone server (`src/main.ts`) is built on this alone.
 */
export async function createResellerModule(options: ResellerModuleOptions = {}): Promise<ResellerModule> {
  const settings = parseSettings(options.settings ?? {});
  const logger = options.logger ?? createLogger(settings.logLevel);
  const clock = options.clock ?? systemClock;
  const ownsDatabase = options.database === undefined || typeof options.database === 'string';
  const target = typeof options.database === 'string' || options.database === undefined
    ? parseDatabaseUrl(options.database ?? settings.databaseUrl)
    : undefined;
  const knex = target ? connectDatabase(target, { poolMax: settings.dbPoolMax, logger }) : (options.database as Knex);

  try {
    const secretBox = new AesSecretBox(resolveMasterKey(settings, target?.kind === 'sqlite' ? target.location : undefined, logger));
    const registrars = await loadPlugins(options.pluginsDir ?? settings.pluginsDir ?? BUNDLED_PLUGINS_DIR, settings.plugins, (pluginId) => ({
      logger: logger.child({ plugin: pluginId }),
      clock,
      store: new KnexPluginStore(knex, pluginId, clock),
    }));
    const container = buildContainer({ clock, logger, unitOfWork: new KnexUnitOfWork(knex), secretBox, registrars }, settings);
    const services = {
      resellers: container.get(TOKENS.resellerService),
      catalogue: container.get(TOKENS.catalogueService),
      credit: container.get(TOKENS.creditService),
      domains: container.get(TOKENS.domainService),
      search: container.get(TOKENS.searchService),
      domainManagement: container.get(TOKENS.domainManagementService),
      domainSync: container.get(TOKENS.domainSyncService),
      orders: container.get(TOKENS.orderService),
    };
    const reconciliation = new ReconciliationJob(() => services.orders.reconcile(), settings.reconcileIntervalMs, logger);
    return {
      middleware: (mount = {}) => createHttpApi({ container, routes: ROUTES, logger, basePath: settings.basePath, ...mount }),
      services,
      container,
      settings,
      registrars,
      knex,
      logger,
      migrate: () => migrateLatest(knex),
      reconcile: () => services.orders.reconcile(),
      startReconciliation: () => reconciliation.start(),
      async close() {
        await reconciliation.stop();
        await registrars.close();
        if (ownsDatabase) await knex.destroy();
      },
    };
  } catch (error) {
    if (ownsDatabase) await knex.destroy();
    throw error;
  }
}

/**
 * The master key that seals API keys: MASTER_KEY, else MASTER_KEY_FILE, else (embedded SQLite
 * only) `master.key` beside the database file, created on first run. MySQL deployments must
 * configure one, since several processes have to share it.
 */
function resolveMasterKey(settings: Settings, sqliteFile: string | undefined, logger: Logger): Buffer {
  if (settings.masterKey) return decodeMasterKey(settings.masterKey, 'MASTER_KEY');
  const file = settings.masterKeyFile ?? (sqliteFile && sqliteFile !== ':memory:' ? path.join(path.dirname(sqliteFile), 'master.key') : undefined);
  if (file) {
    const { key, created } = loadOrCreateMasterKeyFile(file);
    if (created) logger.warn({ file }, 'created a new master key; back it up: without it the stored API keys cannot be used');
    return key;
  }
  if (sqliteFile === ':memory:') return randomBytes(32);
  throw new Error('MASTER_KEY or MASTER_KEY_FILE must be set when the database is not an embedded SQLite file');
}

