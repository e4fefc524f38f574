import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PLUGIN_API_VERSION, isRegistrarPluginDefinition, type PluginHost, type RegistrarPlugin } from '../../core/registrar/plugin';
import type { RegistrarDirectory } from '../../core/registrar/registrar-directory';

const Manifest = z.object({
  name: z.string().optional(),
  version: z.string().optional(),
  main: z.string().optional(),
  resellerPlugin: z.object({
    id: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'must be kebab-case'),
    apiVersion: z.number().int(),
    capabilities: z.array(z.string()).default([]),
  }),
});

export interface LoadedPlugin {
  readonly plugin: RegistrarPlugin;
  readonly folder: string;
  readonly version: string;
  readonly capabilities: readonly string[];
}

/** The installed registrar plugins by id. */
export class PluginRegistry implements RegistrarDirectory {
  constructor(private readonly plugins: ReadonlyMap<string, LoadedPlugin>) {}

  has(id: string): boolean {
    return this.plugins.has(id);
  }

  ids(): string[] {
    return [...this.plugins.keys()].sort();
  }

  get(id: string): RegistrarPlugin {
    const loaded = this.plugins.get(id);
    if (!loaded) throw new Error(`registrar plugin "${id}" is not installed`);
    return loaded.plugin;
  }

  describe(): Array<{ id: string; version: string; capabilities: readonly string[] }> {
    return [...this.plugins.entries()].map(([id, p]) => ({ id, version: p.version, capabilities: p.capabilities }));
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.plugins.values()].map((p) => p.plugin.close?.()));
  }
}

export class PluginLoadError extends Error {
  constructor(readonly problems: string[]) {
    super(`registrar plugins failed to load:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'PluginLoadError';
  }
}

/**
 * Discovers plugins: every folder under `dir` with a `package.json` holding a `resellerPlugin`
 * section. Checks, in order: the manifest, that the entry resolves inside the plugin's folder
 * (never anything outside it), the branded default export, that its id matches the folder and
 * manifest, the API version, and the plugin's options. Collects every problem and throws them
 * together, naming each plugin.
 */
export async function loadPlugins(dir: string, options: Record<string, Record<string, unknown>>, host: PluginHost): Promise<PluginRegistry> {
  const problems: string[] = [];
  const loaded = new Map<string, LoadedPlugin>();
  if (!existsSync(dir)) throw new PluginLoadError([`plugins directory ${dir} does not exist`]);
  const root = realpathSync(dir);
  for (const entry of readdirSync(root).sort()) {
    if (entry.startsWith('.') || entry === 'node_modules') continue;
    const folder = path.join(root, entry);
    if (!statSync(folder).isDirectory()) continue;
    try {
      const plugin = await loadOne(folder, entry, options[entry] ?? {}, host);
      if (loaded.has(plugin.plugin.id)) throw new Error(`duplicate plugin id "${plugin.plugin.id}"`);
      loaded.set(plugin.plugin.id, plugin);
    } catch (error) {
      problems.push(`${entry}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  for (const id of Object.keys(options)) {
    if (!loaded.has(id) && !problems.some((p) => p.startsWith(`${id}:`))) problems.push(`${id}: options are configured but no such plugin is installed`);
  }
  if (problems.length > 0) {
    await new PluginRegistry(loaded).close();
    throw new PluginLoadError(problems);
  }
  return new PluginRegistry(loaded);
}

async function loadOne(folder: string, folderName: string, rawOptions: Record<string, unknown>, host: PluginHost): Promise<LoadedPlugin> {
  const manifestFile = path.join(folder, 'package.json');
  if (!existsSync(manifestFile)) throw new Error('no package.json manifest');
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(manifestFile, 'utf8'));
  } catch {
    throw new Error('package.json is not valid JSON');
  }
  const parsed = Manifest.safeParse(json);
  if (!parsed.success) {
    throw new Error(`invalid manifest: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'manifest'} ${i.message}`).join('; ')}`);
  }
  const manifest = parsed.data;
  const { id, apiVersion, capabilities } = manifest.resellerPlugin;
  if (id !== folderName) throw new Error(`manifest id "${id}" does not match its folder name`);
  if (apiVersion !== PLUGIN_API_VERSION) throw new Error(`plugin API version ${apiVersion} is not supported (this platform speaks ${PLUGIN_API_VERSION})`);

  let entryFile: string;
  try {
    entryFile = realpathSync(require.resolve(path.join(folder, manifest.main ?? 'index')));
  } catch {
    throw new Error(`entry "${manifest.main ?? 'index'}" cannot be found`);
  }
  if (!entryFile.startsWith(folder + path.sep)) throw new Error('entry resolves outside the plugin folder; refusing to load it');

  const exported = (require(entryFile) as { default?: unknown }).default;
  if (!isRegistrarPluginDefinition(exported)) throw new Error('the entry module must default-export defineRegistrarPlugin({...})');
  if (exported.id !== id) throw new Error(`the entry defines plugin "${exported.id}" but the manifest says "${id}"`);
  if (exported.apiVersion !== PLUGIN_API_VERSION) throw new Error(`the entry speaks plugin API version ${exported.apiVersion}; this platform speaks ${PLUGIN_API_VERSION}`);
  let pluginOptions: unknown;
  try {
    pluginOptions = exported.parseOptions(rawOptions);
  } catch (error) {
    throw new Error(`bad options: ${error instanceof Error ? error.message : String(error)}`);
  }
  const plugin = await exported.create(pluginOptions, host);
  if (plugin.id !== id) throw new Error(`created plugin reports id "${plugin.id}"`);
  return { plugin, folder, version: manifest.version ?? '0.0.0', capabilities };
}
