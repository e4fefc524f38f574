import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';
import { z } from 'zod';
import {
  CAPABILITY_METHODS,
  CAPABILITY_NAMES,
  PLUGIN_API_VERSION,
  REQUIRED_METHODS,
  isPluginNotConfigured,
  isRegistrarPluginDefinition,
  type CapabilityName,
  type PluginHost,
  type RegistrarPlugin,
  type RegistrarPluginDefinition,
} from '../../core/registrar/plugin';
import type { InstalledRegistrar, RegistrarDirectory } from '../../core/registrar/registrar-directory';
import { providePlatformTo } from './platform-module';

/** The platform-level option every plugin takes: capabilities the operator switches off. */
export const DISABLED_CAPABILITIES_OPTION = 'disabledCapabilities';

const OptionSpec = z.object({
  type: z.enum(['string', 'integer', 'number', 'boolean', 'string[]']),
  required: z.boolean().default(false),
  description: z.string().optional(),
});
type OptionSpec = z.infer<typeof OptionSpec>;

const Manifest = z.object({
  name: z.string().optional(),
  version: z.string().optional(),
  main: z.string().optional(),
  resellerPlugin: z.object({
    id: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'must be kebab-case'),
    apiVersion: z.number().int(),
    description: z.string().optional(),
    capabilities: z.array(z.string()).default([]),
    options: z.record(z.string(), OptionSpec).default({}),
  }),
});
type Manifest = z.infer<typeof Manifest>;

/**
 * A plugin that passed every gate. Its manifest is the one declaration of its capabilities: the
 * created object must implement each declared one, and the platform calls only those in use.
 */
export interface LoadedPlugin extends InstalledRegistrar {
  readonly folder: string;
  readonly packageName: string | undefined;
  readonly version: string;
  readonly disabledCapabilities: readonly CapabilityName[];
}

/** A plugin folder that did not pass the gates: the plugin is disabled, the rest run. */
export interface FailedPlugin {
  /** The folder name (a plugin's id), or the id its options were configured under. */
  readonly id: string;
  /** What is wrong, naming the file and line of a syntax error and the position of a JSON error. */
  readonly problem: string;
}

/** The installed registrar plugins by id, and those that failed to load. */
export class PluginRegistry implements RegistrarDirectory {
  constructor(
    private readonly plugins: ReadonlyMap<string, LoadedPlugin>,
    private readonly failed: readonly FailedPlugin[] = [],
  ) {}

  /** The plugins that failed to load, disabled: their TLDs answer 503 naming them and /readyz reports them. */
  failures(): readonly FailedPlugin[] {
    return this.failed;
  }

  /** Why the plugin with this id failed to load; undefined when it did not. */
  failure(id: string): string | undefined {
    return this.failed.find((f) => f.id === id)?.problem;
  }

  has(id: string): boolean {
    return this.plugins.has(id);
  }

  ids(): string[] {
    return [...this.plugins.keys()].sort();
  }

  installed(id: string): LoadedPlugin {
    const loaded = this.plugins.get(id);
    if (!loaded) throw new Error(`registrar plugin "${id}" is not installed`);
    return loaded;
  }

  /**
   * The created plugin object itself, unguarded (for hosts and tests; the platform calls plugins
   * through their guarded registrar). Throws when it is not installed or not configured.
   */
  get(id: string): RegistrarPlugin {
    const loaded = this.installed(id);
    if (!loaded.plugin) throw new Error(`registrar plugin "${id}" is not configured: ${loaded.notConfigured}`);
    return loaded.plugin;
  }

  describe(): Array<{
    id: string;
    version: string;
    capabilities: readonly string[];
    disabledCapabilities: readonly string[];
  }> {
    return [...this.plugins.entries()].map(([id, p]) => ({
      id,
      version: p.version,
      capabilities: p.capabilities,
      disabledCapabilities: p.disabledCapabilities,
    }));
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.plugins.values()].map((p) => p.plugin?.close?.()));
  }
}

export class PluginLoadError extends Error {
  constructor(readonly problems: string[]) {
    super(`registrar plugins failed to load:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'PluginLoadError';
  }
}

/** Makes the host a plugin is created with; each plugin gets its own logger and store. */
export type PluginHostFactory = (pluginId: string) => PluginHost;

/** Told when a plugin of a later folder replaces one of the same id from an earlier folder. */
export type PluginReplaced = (replaced: { id: string; folder: string; by: string }) => void;

/**
 * Discovers plugins: every folder under each of `dirs` with a `package.json` holding a
 * `resellerPlugin` section. The folders are read in order and a plugin of a later one replaces
 * the plugin of the same id from an earlier one (the bundled folder comes first, so PLUGINS_DIR's
 * folders add to it and may replace a bundled plugin). Checks, in order: the manifest, that the
 * plugin folder and its entry resolve inside its plugins folder (never anything outside it), the
 * branded default export, that its id matches the folder and manifest, the API version, the
 * options against the manifest and the plugin's own parser, and that the created plugin
 * implements exactly the capabilities its manifest declares (a plugin whose `create` answers
 * `notConfigured(reason)` is kept installed as not configured). A plugin that fails a gate is
 * left out and reported in `failures()`, each naming its plugin; the others load. Only a plugins
 * folder that does not exist throws.
 */
export async function loadPlugins(
  dirs: string | readonly string[],
  options: Record<string, Record<string, unknown>>,
  hostFor: PluginHostFactory,
  onReplaced?: PluginReplaced,
): Promise<PluginRegistry> {
  const failed: FailedPlugin[] = [];
  const loaded = new Map<string, LoadedPlugin>();
  const folders = pluginFolders(dirs, onReplaced);
  const seenFolders = new Map<string, string>();
  const seenPackages = new Map<string, string>();
  for (const [entry, { root, folder }] of folders) {
    try {
      const real = realpathSync(folder);
      if (!real.startsWith(root + path.sep))
        throw new Error('the folder resolves outside the plugins directory; refusing to load it');
      const sameFolder = seenFolders.get(real);
      if (sameFolder !== undefined) throw new Error(`duplicate: it is the same folder as plugin "${sameFolder}"`);
      seenFolders.set(real, entry);
      const plugin = await loadPluginFolder(real, options[entry] ?? {}, hostFor, entry);
      const samePackage = plugin.packageName ? seenPackages.get(plugin.packageName) : undefined;
      if (samePackage !== undefined) {
        await plugin.plugin?.close?.();
        throw new Error(`duplicate: package "${plugin.packageName}" is already installed as plugin "${samePackage}"`);
      }
      if (plugin.packageName) seenPackages.set(plugin.packageName, entry);
      loaded.set(plugin.id, plugin);
    } catch (error) {
      failed.push({ id: entry, problem: `${entry}: ${messageOf(error)}` });
    }
  }
  for (const id of Object.keys(options)) {
    if (!loaded.has(id) && !failed.some((f) => f.id === id))
      failed.push({ id, problem: `${id}: options are configured but no such plugin is installed` });
  }
  return new PluginRegistry(loaded, failed);
}

/**
 * Loads one plugin folder through every gate of `loadPlugins` (the conformance kit uses it on a
 * folder anywhere). Throws an Error describing the first gate that fails.
 */
export async function loadPluginFolder(
  folder: string,
  rawOptions: Record<string, unknown>,
  hostFor: PluginHostFactory,
  folderName: string = path.basename(folder),
): Promise<LoadedPlugin> {
  const realFolder = realpathSync(folder);
  const { manifest, definition: exported } = readDefinition(realFolder, folderName);
  const { id } = manifest.resellerPlugin;
  const declared = declaredCapabilities(manifest);
  const { pluginOptions, disabled } = checkOptions(manifest, declared, rawOptions);
  let parsedOptions: unknown;
  try {
    parsedOptions = exported.parseOptions(pluginOptions);
  } catch (error) {
    throw new Error(`bad options: ${messageOf(error)}`);
  }
  let created: Awaited<ReturnType<typeof exported.create>>;
  try {
    created = await exported.create(parsedOptions, hostFor(id));
  } catch (error) {
    throw new Error(`create() failed: ${messageOf(error)}`);
  }
  const inUse = declared.filter((c) => !disabled.includes(c));
  const loaded = {
    id,
    folder: realFolder,
    packageName: manifest.name,
    version: manifest.version ?? '0.0.0',
    capabilities: inUse,
    disabledCapabilities: disabled,
  };
  if (isPluginNotConfigured(created))
    return {
      ...loaded,
      plugin: undefined,
      notConfigured: `the ${id} registrar plugin is not configured: ${created.reason}`,
    };
  try {
    if (typeof created !== 'object' || created === null) throw new Error('create() must return the plugin object');
    if (created.id !== id) throw new Error(`created plugin reports id "${created.id}"`);
    checkImplementation(created, declared);
  } catch (error) {
    await created?.close?.().catch(() => undefined);
    throw error;
  }
  return { ...loaded, plugin: created };
}

/** The gates before options: manifest, entry inside the folder, the branded export, its id and API version. */
function readDefinition(
  realFolder: string,
  folderName: string,
): { manifest: Manifest; definition: RegistrarPluginDefinition<unknown> } {
  const manifest = readManifest(realFolder);
  const { id, apiVersion } = manifest.resellerPlugin;
  if (id !== folderName) throw new Error(`manifest id "${id}" does not match its folder name`);
  if (apiVersion !== PLUGIN_API_VERSION)
    throw new Error(`plugin API version ${apiVersion} is not supported (this platform speaks ${PLUGIN_API_VERSION})`);

  const main = manifest.main ?? 'index';
  let entryFile: string;
  try {
    entryFile = realpathSync(require.resolve(path.resolve(realFolder, main)));
  } catch {
    throw new Error(`entry "${main}" cannot be found${typeScriptHint(realFolder, main)}`);
  }
  if (!entryFile.startsWith(realFolder + path.sep))
    throw new Error('entry resolves outside the plugin folder; refusing to load it');

  providePlatformTo(realFolder);
  let exported: unknown;
  try {
    exported = (require(entryFile) as { default?: unknown }).default;
  } catch (error) {
    throw new Error(`the entry cannot be loaded: ${whereItFailed(error, entryFile)}`);
  }
  if (!isRegistrarPluginDefinition(exported))
    throw new Error('the entry module must default-export defineRegistrarPlugin({...})');
  if (exported.id !== id) throw new Error(`the entry defines plugin "${exported.id}" but the manifest says "${id}"`);
  if (exported.apiVersion !== PLUGIN_API_VERSION)
    throw new Error(
      `the entry speaks plugin API version ${exported.apiVersion}; this platform speaks ${PLUGIN_API_VERSION}`,
    );
  return { manifest, definition: exported };
}

/** The plugin folders under `dirs` by folder name, a later folder's replacing an earlier one's. */
function pluginFolders(
  dirs: string | readonly string[],
  onReplaced?: PluginReplaced,
): Map<string, { root: string; folder: string }> {
  const folders = new Map<string, { root: string; folder: string }>();
  for (const dir of typeof dirs === 'string' ? [dirs] : dirs) {
    if (!existsSync(dir)) throw new PluginLoadError([`plugins directory ${dir} does not exist`]);
    const root = realpathSync(dir);
    for (const entry of readdirSync(root).sort()) {
      if (entry.startsWith('.') || entry === 'node_modules') continue;
      const folder = path.join(root, entry);
      if (!statSync(folder).isDirectory()) continue;
      const earlier = folders.get(entry);
      if (earlier && earlier.root !== root) onReplaced?.({ id: entry, folder: earlier.folder, by: folder });
      folders.set(entry, { root, folder });
    }
  }
  return folders;
}

/**
 * The definitions of the plugins `loadPlugins` would load from `dirs`, through the gates that come
 * before options and `create` (manifest, folder, entry, brand, id, API version), none created:
 * `reseller-admin` reads their commands before it opens anything. A folder that fails a gate is
 * left out here; loading the module reports it.
 */
export function pluginDefinitions(
  dirs: string | readonly string[],
): Array<{ readonly id: string; readonly definition: RegistrarPluginDefinition<unknown> }> {
  const found: Array<{ readonly id: string; readonly definition: RegistrarPluginDefinition<unknown> }> = [];
  for (const [entry, { root, folder }] of pluginFolders(dirs)) {
    try {
      const real = realpathSync(folder);
      if (real.startsWith(root + path.sep))
        found.push({ id: entry, definition: readDefinition(real, entry).definition });
    } catch {
      // Reported with the other load failures when the module loads the plugins.
    }
  }
  return found;
}

function readManifest(folder: string): Manifest {
  const manifestFile = path.join(folder, 'package.json');
  if (!existsSync(manifestFile)) throw new Error('no package.json manifest');
  let json: unknown;
  const text = readFileSync(manifestFile, 'utf8');
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`package.json is not valid JSON: ${jsonProblem(error, text, manifestFile)}`);
  }
  const parsed = Manifest.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      `invalid manifest: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'manifest'} ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}

function declaredCapabilities(manifest: Manifest): CapabilityName[] {
  const listed = manifest.resellerPlugin.capabilities;
  const unknown = listed.filter((c) => !(CAPABILITY_NAMES as readonly string[]).includes(c));
  if (unknown.length > 0)
    throw new Error(
      `the manifest declares unknown capabilities ${unknown.map((c) => `"${c}"`).join(', ')}; known: ${CAPABILITY_NAMES.join(', ')}`,
    );
  const twice = listed.filter((c, i) => listed.indexOf(c) !== i);
  if (twice.length > 0) throw new Error(`the manifest declares ${twice.join(', ')} more than once`);
  return listed as CapabilityName[];
}

/** The capabilities the created plugin implements must be exactly those its manifest declares, each whole. */
function checkImplementation(plugin: RegistrarPlugin, declared: readonly CapabilityName[]): void {
  const problems: string[] = [];
  const missingRequired = REQUIRED_METHODS.filter((m) => typeof plugin[m] !== 'function');
  if (missingRequired.length > 0) problems.push(`the required method(s) ${missingRequired.join(', ')} are missing`);
  for (const capability of CAPABILITY_NAMES) {
    const group = plugin[capability] as Record<string, unknown> | undefined;
    const isDeclared = declared.includes(capability);
    if (group === undefined || group === null) {
      if (isDeclared) problems.push(`the manifest declares ${capability} but the plugin does not implement it`);
      continue;
    }
    if (!isDeclared) problems.push(`the plugin implements ${capability} but the manifest does not declare it`);
    const missing = (CAPABILITY_METHODS[capability] as readonly string[]).filter((m) => typeof group[m] !== 'function');
    if (missing.length > 0) problems.push(`${capability} is only partly implemented: ${missing.join(', ')} missing`);
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
}

/** Checks the configured options against the manifest's option schema and coerces text values (from the environment) to their types. */
function checkOptions(
  manifest: Manifest,
  declared: readonly CapabilityName[],
  raw: Record<string, unknown>,
): { pluginOptions: Record<string, unknown>; disabled: CapabilityName[] } {
  const specs = manifest.resellerPlugin.options;
  const problems: string[] = [];
  const pluginOptions: Record<string, unknown> = {};
  let disabled: CapabilityName[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (key === DISABLED_CAPABILITIES_OPTION) {
      const list = coerce({ type: 'string[]', required: false }, value);
      if (list === undefined) {
        problems.push(`${key} must be a list of capability names`);
        continue;
      }
      const names = list as string[];
      const notDeclared = names.filter((c) => !declared.includes(c as CapabilityName));
      if (notDeclared.length > 0)
        problems.push(
          `${key}: ${notDeclared.map((c) => `"${c}"`).join(', ')} ${notDeclared.length > 1 ? 'are not capabilities' : 'is not a capability'} of this plugin; it has: ${declared.join(', ') || 'none'}`,
        );
      disabled = names.filter((c) => declared.includes(c as CapabilityName)) as CapabilityName[];
      continue;
    }
    const spec = specs[key];
    if (!spec) {
      const known = [...Object.keys(specs), DISABLED_CAPABILITIES_OPTION];
      problems.push(`unknown option "${key}"; this plugin takes: ${known.join(', ')}`);
      continue;
    }
    const coerced = coerce(spec, value);
    if (coerced === undefined) problems.push(`option "${key}" must be ${describeType(spec.type)}`);
    else pluginOptions[key] = coerced;
  }
  for (const [key, spec] of Object.entries(specs)) {
    if (spec.required && raw[key] === undefined) problems.push(`option "${key}" is required`);
  }
  if (problems.length > 0) throw new Error(`bad options: ${problems.join('; ')}`);
  return { pluginOptions, disabled };
}

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];

function coerce(spec: OptionSpec, value: unknown): unknown {
  switch (spec.type) {
    case 'string':
      return typeof value === 'string' ? value : undefined;
    case 'integer': {
      const n = typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim()) ? Number(value) : value;
      return typeof n === 'number' && Number.isSafeInteger(n) ? n : undefined;
    }
    case 'number': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'string' && TRUE.includes(value.trim().toLowerCase())) return true;
      if (typeof value === 'string' && FALSE.includes(value.trim().toLowerCase())) return false;
      return undefined;
    case 'string[]':
      if (typeof value === 'string')
        return value
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean);
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
  }
}

const describeType = (type: OptionSpec['type']) =>
  ({
    string: 'text',
    integer: 'a whole number',
    number: 'a number',
    boolean: 'true or false',
    'string[]': 'a list of text values (or comma-separated text)',
  })[type];

/** Plain node (the built server) does not run TypeScript: say so when the entry exists only as .ts. */
function typeScriptHint(folder: string, main: string): string {
  const sources = [`${path.resolve(folder, main.replace(/\.js$/, ''))}.ts`, path.join(folder, 'index.ts')];
  if (!sources.some((file) => existsSync(file))) return '';
  return ': there is only TypeScript, which the built server (plain node) does not run; compile it to JavaScript and point "main" at the .js file (docs/plugins.md)';
}

/**
 * A load error as an operator can act on it: a syntax error names its file and line (Node puts
 * `file:line` on the first line of the stack of a CommonJS syntax error), anything else its message.
 */
function whereItFailed(error: unknown, entryFile: string): string {
  const message = messageOf(error);
  // By name: a module loader may run the plugin in another realm, with its own SyntaxError.
  if ((error as Error | undefined)?.name !== 'SyntaxError') return message;
  const first = String((error as Error).stack ?? '').split('\n')[0] ?? '';
  if (/^\S.*:\d+$/.test(first)) return `${first}: SyntaxError: ${message}`;
  // Where the stack does not say (a module loader other than Node's own), compile the entry the
  // way Node wraps a CommonJS module to find its line.
  try {
    new Script(Module.wrap(readFileSync(entryFile, 'utf8')), { filename: entryFile });
  } catch (compiled) {
    const line = String((compiled as Error).stack ?? '').split('\n')[0] ?? '';
    if (/^\S.*:\d+$/.test(line)) return `${line}: SyntaxError: ${messageOf(compiled)}`;
  }
  return `SyntaxError: ${message}`;
}

/**
 * JSON.parse's message as `file:line:column: message`, the line and column worked out from its
 * position: Node 20 gives only the position, later versions append "(line L column C)" as well.
 */
function jsonProblem(error: unknown, text: string, file: string): string {
  const message = messageOf(error).replace(/ \(line \d+ column \d+\)$/, '');
  const position = /at position (\d+)/.exec(message);
  if (!position) return `${file}: ${message}`;
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${file}:${line}:${column}: ${message}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
