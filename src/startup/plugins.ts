import path from 'node:path';
import type { Settings } from '../config/settings';
import type { Clock } from '../core/common/clock';
import type { Logger } from '../core/common/logger';
import { KnexPluginStore } from '../infra/plugins/knex-plugin-store';
import { loadPlugins, type PluginRegistry } from '../infra/plugins/plugin-loader';
import type { OpenedDatabase } from './database';
import type { Lifecycle } from './lifecycle';

/** Where the bundled plugins live, from src/ under tsx and from dist/src/ when compiled. */
export const BUNDLED_PLUGINS_DIR = path.resolve(__dirname, '..', '..', 'plugins');

/**
 * The registrar plugins: the bundled ones and those of the folders named (the option, else
 * PLUGINS_DIR, comma-separated; a same-id plugin replaces the bundled one, with a log line), each
 * given its logger, the clock and its own store. A plugin that fails to load is disabled and
 * logged, never fatal. Closed when the module stops.
 */
export async function loadRegistrarPlugins(
  pluginsDir: string | readonly string[] | undefined,
  settings: Settings,
  { knex, pools }: OpenedDatabase,
  clock: Clock,
  logger: Logger,
  lifecycle: Lifecycle,
): Promise<PluginRegistry> {
  const registrars = await loadPlugins(
    pluginDirectories(pluginsDir ?? settings.pluginsDir),
    settings.plugins,
    (pluginId) => ({
      logger: logger.child({ plugin: pluginId }),
      clock,
      store: new KnexPluginStore(knex, pluginId, clock, pools),
    }),
    ({ id, folder, by }) =>
      logger.info({ plugin: id, folder, by }, `registrar plugin "${id}" of ${by} replaces the bundled one`),
  );
  for (const { id, problem } of registrars.failures())
    logger.error({ plugin: id, problem }, `registrar plugin "${id}" failed to load and is disabled: ${problem}`);
  lifecycle.onStop(() => registrars.close());
  return registrars;
}

/** The folders plugins are read from, in order: the bundled one, then PLUGINS_DIR's (comma-separated, relative to the working folder). */
export function pluginDirectories(dirs: string | readonly string[] | undefined): string[] {
  return [BUNDLED_PLUGINS_DIR, ...pluginFolders(dirs)];
}

/** PLUGINS_DIR's folders: comma-separated, relative to the working folder. */
function pluginFolders(dirs: string | readonly string[] | undefined): string[] {
  const list = typeof dirs === 'string' ? dirs.split(',') : (dirs ?? []);
  return list
    .map((d) => d.trim())
    .filter(Boolean)
    .map((d) => path.resolve(d));
}
