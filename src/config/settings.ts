import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';

const bool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes' || v === 'on');
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Every setting, its default and its bounds: the README's configuration table mirrors this. */
/** The embedded SQLite database a fresh clone runs on. */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/reseller.sqlite';

export const SettingsSchema = z.strictObject({
  databaseUrl: z.string().min(1).default(DEFAULT_DATABASE_URL),
  port: int(0, 65535).default(8080),
  host: z.string().min(1).default('0.0.0.0'),
  /** Extra prefix the routes are also served under, for drop-in compatibility with deployed clients. */
  basePath: z
    .string()
    .regex(/^(\/[^\s?#]*)?$/, 'must be empty or start with /')
    .default('')
    .transform((p) => p.replace(/\/+$/, '')),
  masterKey: z.string().optional(),
  masterKeyFile: z.string().optional(),
  pluginsDir: z.string().optional(),
  registrarTimeoutMs: int(100, 600_000).default(30_000),
  /** Seconds a registrar's availability answer is reused by searches; 0 turns the cache off (docs/search.md). */
  searchCacheSeconds: int(0, 3600).default(30),
  /**
   * Hours a premium price quoted to a reseller by search is honoured by an order that sends no
   * premiumCost; 0 honours none (docs/orders.md#premium-quotes).
   */
  premiumQuoteHours: int(0, 720).default(24),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `json` (one object a line, for log collectors) or `pretty` (readable lines for a terminal). */
  logFormat: z.enum(['json', 'pretty']).default('json'),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code like USD')
    .default('USD'),
  trustProxy: bool.default(false),
  /**
   * With TRUST_PROXY: how many proxies in front of the server append to X-Forwarded-For. The client
   * address is taken that many entries from the right, so a client cannot forge it by sending the header.
   */
  trustProxyHops: int(1, 10).default(1),
  dbPoolMax: int(1, 1000).default(10),
  authMaxFailures: int(1, 10_000).default(10),
  authFailureWindowSeconds: int(1, 86_400).default(300),
  authBlockSeconds: int(1, 86_400).default(300),
  /** How long a process reuses the catalogue reads of the order path (TLDs, prices); 0: read every time. */
  catalogueCacheMs: int(0, 60_000).default(1000),
  /** Seed the demo reseller on an empty database. Unset: only on the embedded default (DEFAULT_DATABASE_URL). */
  seedDemo: bool.optional(),
  /** How often the stand-alone server reconciles pending orders; 0 turns the job off. */
  reconcileIntervalMs: int(0, 86_400_000).default(60_000),
  /** How long after the registrar deadline reconciliation leaves a pending order alone (and waits between attempts). */
  reconcileAfterMs: int(0, 86_400_000).default(60_000),
  /** Pending orders looked at per reconciliation pass. */
  reconcileBatch: int(1, 10_000).default(100),
  /** Days an order may stay pending before reconciliation hands it to the operator (docs/orders.md). */
  pendingOrderLimitDays: int(1, 365).default(7),
  /** How long an Idempotency-Key and its first answer are kept; at least 24 hours. */
  idempotencyTtlHours: int(24, 24 * 30).default(24),
  /** Periodic domain sync, transfer sync and order reconciliation in the server; off where an external scheduler runs `reseller-admin sync`. */
  backgroundJobs: bool.default(true),
  /** How long after a domain's last sync it is due again (server jobs). */
  domainSyncIntervalSeconds: int(60, 30 * 86_400).default(86_400),
  /** How often domains in Pending Transfer are asked about (server jobs). */
  transferSyncIntervalSeconds: int(60, 30 * 86_400).default(3_600),
  /** Registrar calls at once per registrar plugin, for each background job and `reseller-admin sync`. */
  jobConcurrencyPerRegistrar: int(1, 100).default(4),
  /** Domains one process claims at a time; the claim is a lease that runs out if the process dies. */
  jobBatchSize: int(1, 1000).default(50),
  /** Write every reseller API call to the API log (`reseller-admin log`). */
  apiLog: bool.default(true),
  /** API log entries older than this are purged (hourly by the server, or `reseller-admin log purge`); 0 keeps them forever. */
  apiLogRetentionDays: int(0, 3650).default(90),
  /** How often the API log's buffer is written to the database (one batched insert). */
  apiLogFlushMs: int(50, 60_000).default(1_000),
  /** Entries the API log buffers at most; beyond it (a database outage) the oldest are dropped and counted. */
  apiLogBufferMax: int(100, 1_000_000).default(10_000),
  /** Serve the operator console (docs/console.md) in the stand-alone server. */
  console: bool.default(true),
  /** Where the stand-alone server mounts the console. */
  consolePath: z
    .string()
    .regex(/^\/[A-Za-z0-9._~/-]*$/, 'must start with / and be a plain path')
    .default('/admin')
    .transform((p) => p.replace(/\/+$/, '') || '/'),
  /** Admins sign in to the console with a TOTP code as well as the password. */
  consoleRequire2fa: bool.default(true),
  /** Serve the reseller portal (docs/portal.md) in the stand-alone server. */
  portal: bool.default(true),
  /** Where the stand-alone server mounts the reseller portal. */
  portalPath: z
    .string()
    .regex(/^\/[A-Za-z0-9._~/-]*$/, 'must start with / and be a plain path')
    .default('/portal')
    .transform((p) => p.replace(/\/+$/, '') || '/'),
  /** A console or portal session unused this long ends. */
  webSessionIdleMinutes: int(1, 24 * 60).default(30),
  /** A console or portal session ends this long after sign-in, however active. */
  webSessionMaxHours: int(1, 24 * 30).default(12),
  /** The address people open the server at, like https://resellers.example.com: the CLI's one-time links start with it. */
  publicUrl: z
    .string()
    .url()
    .regex(/^https?:\/\//, 'must start with http:// or https://')
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** Audit log entries older than this are purged (hourly by the server); 0 keeps them forever. */
  auditLogRetentionDays: int(0, 36_500).default(365),
  /** Serve Prometheus metrics at /metrics, on a listener of their own (METRICS_HOST:METRICS_PORT), never on the API port. */
  metrics: bool.default(true),
  /** The metrics listener's port; 0 picks a free one. Each process on a host needs its own. */
  metricsPort: int(0, 65535).default(9464),
  /** The metrics listener's address: loopback by default, so that only the host (or its scraper) reaches it. */
  metricsHost: z.string().min(1).default('127.0.0.1'),
  /** When set, /metrics asks for `Authorization: Bearer <token>` (at least 16 characters). */
  metricsToken: z.string().min(16, 'must be at least 16 characters').optional(),
  /** On SIGTERM: how long to keep serving with /readyz at 503 before refusing new connections, so that the load balancer moves traffic away first. */
  shutdownDelayMs: int(0, 600_000).default(0),
  /** On SIGTERM: how long in-flight requests and background passes may take before the process exits anyway. */
  shutdownTimeoutMs: int(0, 600_000).default(25_000),
  /** An event not dispatched this long after it occurred (its process died) is dispatched by any process (ADR 15). */
  eventsRecoverAfterMs: int(1_000, 3_600_000).default(30_000),
  /** Dispatched events and delivered webhook deliveries are purged after this many days; 0 keeps them. Undelivered ones are never purged. */
  eventsRetentionDays: int(0, 3650).default(30),
  /** Plain http and loopback, private or link-local webhook targets: for local use and tests only (docs/events.md#ssrf). */
  webhookAllowInsecureTargets: bool.default(false),
  /** How long one webhook attempt may take before it counts as failed. */
  webhookTimeoutMs: int(100, 60_000).default(15_000),
  /** Webhook attempts one process has in flight at once (at most a quarter of them to any one endpoint). */
  webhookConcurrency: int(1, 1000).default(32),
  /** `smtp://user:pass@host:587` or `smtps://…`: where notifications are mailed. Unset: no mail. */
  smtpUrl: z.string().url().optional(),
  /** The From address of the platform's mail. */
  mailFrom: z.string().min(3).default('Domain reseller <noreply@localhost>'),
  /** Where mail about operator-wide webhook endpoints goes; unset: none. */
  operatorEmail: z.string().email().optional(),
  /**
   * Options per registrar plugin id, from the config file (and SANDBOX_LATENCY_MS, SANDBOX_REGISTRY,
   * SANDBOX_DISABLED_CAPABILITIES for the sandbox). Every plugin also takes `disabledCapabilities`.
   */
  plugins: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
});

export type Settings = z.infer<typeof SettingsSchema>;

/** Every environment variable and the setting it sets (the README's configuration table lists each). */
export const ENVIRONMENT_VARIABLES: Readonly<Record<string, keyof Settings>> = {
  DATABASE_URL: 'databaseUrl',
  PORT: 'port',
  HOST: 'host',
  BASE_PATH: 'basePath',
  MASTER_KEY: 'masterKey',
  MASTER_KEY_FILE: 'masterKeyFile',
  PLUGINS_DIR: 'pluginsDir',
  REGISTRAR_TIMEOUT_MS: 'registrarTimeoutMs',
  SEARCH_CACHE_SECONDS: 'searchCacheSeconds',
  PREMIUM_QUOTE_HOURS: 'premiumQuoteHours',
  LOG_LEVEL: 'logLevel',
  LOG_FORMAT: 'logFormat',
  CURRENCY: 'currency',
  TRUST_PROXY: 'trustProxy',
  TRUST_PROXY_HOPS: 'trustProxyHops',
  DB_POOL_MAX: 'dbPoolMax',
  AUTH_MAX_FAILURES: 'authMaxFailures',
  AUTH_FAILURE_WINDOW_SECONDS: 'authFailureWindowSeconds',
  AUTH_BLOCK_SECONDS: 'authBlockSeconds',
  CATALOGUE_CACHE_MS: 'catalogueCacheMs',
  SEED_DEMO: 'seedDemo',
  RECONCILE_INTERVAL_MS: 'reconcileIntervalMs',
  RECONCILE_AFTER_MS: 'reconcileAfterMs',
  RECONCILE_BATCH: 'reconcileBatch',
  PENDING_ORDER_LIMIT_DAYS: 'pendingOrderLimitDays',
  IDEMPOTENCY_TTL_HOURS: 'idempotencyTtlHours',
  BACKGROUND_JOBS: 'backgroundJobs',
  DOMAIN_SYNC_INTERVAL_SECONDS: 'domainSyncIntervalSeconds',
  TRANSFER_SYNC_INTERVAL_SECONDS: 'transferSyncIntervalSeconds',
  JOB_CONCURRENCY_PER_REGISTRAR: 'jobConcurrencyPerRegistrar',
  JOB_BATCH_SIZE: 'jobBatchSize',
  API_LOG: 'apiLog',
  API_LOG_RETENTION_DAYS: 'apiLogRetentionDays',
  API_LOG_FLUSH_MS: 'apiLogFlushMs',
  API_LOG_BUFFER_MAX: 'apiLogBufferMax',
  METRICS: 'metrics',
  METRICS_PORT: 'metricsPort',
  METRICS_HOST: 'metricsHost',
  METRICS_TOKEN: 'metricsToken',
  CONSOLE: 'console',
  CONSOLE_PATH: 'consolePath',
  CONSOLE_REQUIRE_2FA: 'consoleRequire2fa',
  PORTAL: 'portal',
  PORTAL_PATH: 'portalPath',
  WEB_SESSION_IDLE_MINUTES: 'webSessionIdleMinutes',
  WEB_SESSION_MAX_HOURS: 'webSessionMaxHours',
  PUBLIC_URL: 'publicUrl',
  AUDIT_LOG_RETENTION_DAYS: 'auditLogRetentionDays',
  SHUTDOWN_DELAY_MS: 'shutdownDelayMs',
  SHUTDOWN_TIMEOUT_MS: 'shutdownTimeoutMs',
  EVENTS_RECOVER_AFTER_MS: 'eventsRecoverAfterMs',
  EVENTS_RETENTION_DAYS: 'eventsRetentionDays',
  WEBHOOK_ALLOW_INSECURE_TARGETS: 'webhookAllowInsecureTargets',
  WEBHOOK_TIMEOUT_MS: 'webhookTimeoutMs',
  WEBHOOK_CONCURRENCY: 'webhookConcurrency',
  SMTP_URL: 'smtpUrl',
  MAIL_FROM: 'mailFrom',
  OPERATOR_EMAIL: 'operatorEmail',
};

/**
 * AUTH_MAX_FAILURES, AUTH_FAILURE_WINDOW_SECONDS and AUTH_BLOCK_SECONDS: the API's key checks and
 * the pages' sign-ins each count failures with these limits, in throttles of their own.
 */
export function authFailureLimits(settings: Settings) {
  return {
    maxFailures: settings.authMaxFailures,
    windowSeconds: settings.authFailureWindowSeconds,
    blockSeconds: settings.authBlockSeconds,
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const envNameOf = (key: string) => Object.entries(ENVIRONMENT_VARIABLES).find(([, v]) => v === key)?.[0];

/** Validates settings given as an object (the module API); every problem is listed by name. */
export function parseSettings(input: Record<string, unknown>): Settings {
  const result = SettingsSchema.safeParse(input);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const key = String(issue.path[0] ?? '');
        const env = envNameOf(key);
        if (issue.path.length === 0) return issue.message; // an unknown key (a typo in the config file)
        return `${issue.path.join('.')}${env ? ` (${env})` : ''}: ${issue.message}`;
      }),
    );
  }
  return Object.freeze(result.data);
}

/**
 * Reads settings the way the stand-alone server and the CLI do: the JSON file named by
 * CONFIG_FILE first, environment variables over it. Parsed once, frozen.
 */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  let fromFile: Record<string, unknown> = {};
  if (env.CONFIG_FILE) {
    if (!existsSync(env.CONFIG_FILE)) throw new ConfigError([`CONFIG_FILE: ${env.CONFIG_FILE} does not exist`]);
    try {
      fromFile = JSON.parse(readFileSync(env.CONFIG_FILE, 'utf8'));
    } catch {
      throw new ConfigError([`CONFIG_FILE: ${env.CONFIG_FILE} is not valid JSON`]);
    }
  }
  const fromEnv: Record<string, unknown> = {};
  for (const [name, key] of Object.entries(ENVIRONMENT_VARIABLES))
    if (env[name] !== undefined && env[name] !== '') fromEnv[key] = env[name];
  const plugins = { ...(fromFile.plugins as Record<string, Record<string, unknown>> | undefined) };
  if (env.SANDBOX_LATENCY_MS) plugins.sandbox = { ...plugins.sandbox, latencyMs: env.SANDBOX_LATENCY_MS };
  if (env.SANDBOX_REGISTRY) plugins.sandbox = { ...plugins.sandbox, registry: env.SANDBOX_REGISTRY };
  // Comma-separated capability names, like "domainInformation,transferSync" (docs/plugins.md).
  if (env.SANDBOX_DISABLED_CAPABILITIES)
    plugins.sandbox = { ...plugins.sandbox, disabledCapabilities: env.SANDBOX_DISABLED_CAPABILITIES };
  try {
    return parseSettings({ ...fromFile, ...fromEnv, plugins });
  } catch (error) {
    // systemd's EnvironmentFile= keeps a trailing "# comment" as part of the value.
    const commented = Object.keys(ENVIRONMENT_VARIABLES).filter((name) => /\s#/.test(env[name] ?? ''));
    if (!(error instanceof ConfigError) || commented.length === 0) throw error;
    throw new ConfigError([
      ...error.problems,
      `${commented.join(', ')}: the value ends in a "# …" comment, which an environment file keeps as part of the value; put comments on lines of their own`,
    ]);
  }
}
