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
 * The registrar plugins found in the plugins folder (the option, else PLUGINS_DIR, else the
 * bundled ones), each given its logger, the clock and its own store; closed when the module stops.
 */
export async function loadRegistrarPlugins(
  pluginsDir: string | undefined,
  settings: Settings,
  { knex, hotReads }: OpenedDatabase,
  clock: Clock,
  logger: Logger,
  lifecycle: Lifecycle,
): Promise<PluginRegistry> {
  const registrars = await loadPlugins(
    pluginsDir ?? settings.pluginsDir ?? BUNDLED_PLUGINS_DIR,
    settings.plugins,
    (pluginId) => ({
      logger: logger.child({ plugin: pluginId }),
      clock,
      store: new KnexPluginStore(knex, pluginId, clock, hotReads),
    }),
  );
  lifecycle.onStop(() => registrars.close());
  return registrars;
}
