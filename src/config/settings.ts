import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';

const bool = z.union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])]).transform((v) => v === true || v === 'true' || v === '1' || v === 'yes' || v === 'on');
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Every setting, its default and its bounds: the README's configuration table mirrors this. */
export const SettingsSchema = z.object({
  databaseUrl: z.string().min(1).default('sqlite:./data/reseller.sqlite'),
  port: int(0, 65535).default(8080),
  host: z.string().min(1).default('0.0.0.0'),
  /** Extra prefix the routes are also served under, for drop-in compatibility with deployed clients. */
  basePath: z.string().regex(/^(\/[^\s?#]*)?$/, 'must be empty or start with /').default('').transform((p) => p.replace(/\/+$/, '')),
  masterKey: z.string().optional(),
  masterKeyFile: z.string().optional(),
  pluginsDir: z.string().optional(),
  registrarTimeoutMs: int(100, 600_000).default(30_000),
  /** Seconds a registrar's availability answer is reused by searches; 0 turns the cache off (docs/search.md). */
  searchCacheSeconds: int(0, 3600).default(30),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code like USD').default('USD'),
  trustProxy: bool.default(false),
  dbPoolMax: int(1, 1000).default(10),
  authMaxFailures: int(1, 10_000).default(10),
  authFailureWindowSeconds: int(1, 86_400).default(300),
  authBlockSeconds: int(1, 86_400).default(300),
  /** How long a reseller that authenticated is remembered per process, sparing the lookup; 0: every request reads the database. */
  authCacheMs: int(0, 60_000).default(1000),
  /** How long a process reuses the catalogue reads of the order path (TLDs, prices); 0: read every time. */
  catalogueCacheMs: int(0, 60_000).default(1000),
  seedDemo: bool.default(true),
  /** How often the stand-alone server reconciles pending orders; 0 turns the job off. */
  reconcileIntervalMs: int(0, 86_400_000).default(60_000),
  /** How long after the registrar deadline reconciliation leaves a pending order alone (and waits between attempts). */
  reconcileAfterMs: int(0, 86_400_000).default(60_000),
  /** Pending orders looked at per reconciliation pass. */
  reconcileBatch: int(1, 10_000).default(100),
  /** How long an Idempotency-Key and its first answer are kept; at least 24 hours. */
  idempotencyTtlHours: int(24, 24 * 30).default(24),
  /**
   * Options per registrar plugin id, from the config file (and SANDBOX_LATENCY_MS,
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
  LOG_LEVEL: 'logLevel',
  CURRENCY: 'currency',
  TRUST_PROXY: 'trustProxy',
  DB_POOL_MAX: 'dbPoolMax',
  AUTH_MAX_FAILURES: 'authMaxFailures',
  AUTH_FAILURE_WINDOW_SECONDS: 'authFailureWindowSeconds',
  AUTH_BLOCK_SECONDS: 'authBlockSeconds',
  AUTH_CACHE_MS: 'authCacheMs',
  CATALOGUE_CACHE_MS: 'catalogueCacheMs',
  SEED_DEMO: 'seedDemo',
  RECONCILE_INTERVAL_MS: 'reconcileIntervalMs',
  RECONCILE_AFTER_MS: 'reconcileAfterMs',
  RECONCILE_BATCH: 'reconcileBatch',
  IDEMPOTENCY_TTL_HOURS: 'idempotencyTtlHours',
};

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
    throw new ConfigError(result.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? '');
      const env = envNameOf(key);
      return `${issue.path.join('.')}${env ? ` (${env})` : ''}: ${issue.message}`;
    }));
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
  for (const [name, key] of Object.entries(ENVIRONMENT_VARIABLES)) if (env[name] !== undefined && env[name] !== '') fromEnv[key] = env[name];
  const plugins = { ...(fromFile.plugins as Record<string, Record<string, unknown>> | undefined) };
  if (env.SANDBOX_LATENCY_MS) plugins.sandbox = { ...plugins.sandbox, latencyMs: env.SANDBOX_LATENCY_MS };
  // Comma-separated capability names, like "domainInformation,transferSync" (docs/plugins.md).
  if (env.SANDBOX_DISABLED_CAPABILITIES) plugins.sandbox = { ...plugins.sandbox, disabledCapabilities: env.SANDBOX_DISABLED_CAPABILITIES };
  return parseSettings({ ...fromFile, ...fromEnv, plugins });
}
