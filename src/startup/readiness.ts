import type { CatalogueService } from '../core/catalogue/catalogue-service';
import type { Readiness } from '../http/routes/operational-routes';
import type { DatabasePools } from '../infra/db/driver-pools';
import type { PluginRegistry } from '../infra/plugins/plugin-loader';

/** Where the module stands in its life, as readiness reports it. */
export interface ModuleState {
  /** `drain()` or `close()` was called: load balancers should stop sending requests. */
  draining: boolean;
  /** The plugins are closed: the module can no longer call a registrar. */
  pluginsClosed: boolean;
}

/** What /readyz reports: the database answers, the plugins are loaded and serve every TLD, the module is not shutting down. */
export function readinessCheck(parts: {
  readonly pools: DatabasePools;
  readonly registrars: PluginRegistry;
  readonly catalogue: CatalogueService;
  readonly state: Readonly<ModuleState>;
}): () => Promise<Readiness> {
  const { pools, registrars, catalogue, state } = parts;
  return async () => {
    const checks: Record<string, string> = {};
    if (state.draining) checks.process = 'shutting down';
    checks.database = await pools.check();
    checks.plugins = state.pluginsClosed
      ? 'closed'
      : registrars.ids().length === 0
        ? 'no registrar plugin is installed'
        : (pluginProblems(await catalogue.listTlds().catch(() => []), registrars) ?? 'ok');
    return { ready: Object.values(checks).every((v) => v === 'ok'), checks };
  };
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
