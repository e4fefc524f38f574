import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { guardRegistrar } from '../../../src/core/registrar/guarded-registrar';
import { loadPlugins } from '../../../src/infra/plugins/plugin-loader';
import { recordingLogger, testPluginHost } from '../../support/fakes';

/** Writes a plugin folder whose entry is plain JavaScript branded like defineRegistrarPlugin's result. */
function writePlugin(
  root: string,
  folder: string,
  opts: {
    manifest?: Record<string, unknown> | string;
    id?: string;
    capabilities?: string[];
    implement?: string;
    createBody?: string;
    parseOptions?: string;
    main?: string;
    entry?: string;
  } = {},
): void {
  const dir = path.join(root, folder);
  mkdirSync(dir, { recursive: true });
  const id = opts.id ?? folder;
  const manifest = opts.manifest ?? {
    name: `plugin-${folder}`,
    version: '1.0.0',
    main: opts.main ?? 'index.js',
    resellerPlugin: { id, apiVersion: 1, capabilities: opts.capabilities ?? [] },
  };
  writeFileSync(path.join(dir, 'package.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
  const entry =
    opts.entry ??
    `
    const result = (domain) => ({ ok: true, expiryDate: '2030-01-01' });
    exports.default = {
      [Symbol.for('reseller/RegistrarPluginDefinition')]: true,
      id: ${JSON.stringify(id)},
      apiVersion: 1,
      parseOptions: ${opts.parseOptions ?? '(raw) => raw'},
      create(options, host) {
        ${opts.createBody ?? ''}
        return {
          id: ${JSON.stringify(id)},
          options,
          async checkAvailability(domains) { return domains.map((domain) => ({ domain, status: 'available' })); },
          async register() { return result(); },
          async renew() { return result(); },
          ${opts.implement ?? ''}
        };
      },
    };`;
  writeFileSync(path.join(dir, 'index.js'), entry);
}

const NAMESERVERS = `nameservers: { async get() { return { ok: true, nameservers: [] }; }, async save() { return { ok: true }; } },`;
const LOCK = `registrarLock: { async get() { return { ok: true, locked: true }; }, async save() { return { ok: true }; } },`;

describe('plugin loader', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'plugins-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const load = (options: Record<string, Record<string, unknown>> = {}) =>
    loadPlugins(root, options, () => testPluginHost());
  // A plugin that fails a gate is left out and reported, never fatal: the others load.
  const problemsOf = async (options: Record<string, Record<string, unknown>> = {}) => {
    const registry = await load(options);
    const problems = registry.failures().map((f) => f.problem);
    expect(problems.length).toBeGreaterThan(0);
    for (const { id } of registry.failures()) expect(registry.has(id)).toBe(false);
    return problems;
  };

  it('loads a plugin whose capabilities match its manifest', async () => {
    writePlugin(root, 'good', { capabilities: ['nameservers'], implement: NAMESERVERS });
    const registry = await load();
    expect(registry.ids()).toEqual(['good']);
    expect(registry.describe()).toEqual([
      { id: 'good', version: '1.0.0', capabilities: ['nameservers'], disabledCapabilities: [] },
    ]);
    expect(registry.get('good').nameservers).toBeDefined();
  });

  it('disables every broken plugin, naming each one (a JSON error with its line and column), and loads the rest', async () => {
    writePlugin(root, 'good');
    writePlugin(root, 'bad-json', { manifest: '{ nope' });
    writePlugin(root, 'wrong-id', { id: 'other' });
    writePlugin(root, 'not-branded', { entry: 'exports.default = { id: "not-branded" };' });
    writePlugin(root, 'throws', { createBody: 'throw new Error("cannot reach the registry");' });
    const problems = await problemsOf();
    expect(problems).toEqual([
      expect.stringMatching(/^bad-json: package\.json is not valid JSON: .*bad-json\/package\.json:1:3: /),
      'not-branded: the entry module must default-export defineRegistrarPlugin({...})',
      'throws: create() failed: cannot reach the registry',
      'wrong-id: manifest id "other" does not match its folder name',
    ]);
    expect((await load()).ids()).toEqual(['good']);
  });

  it('disables a plugin whose create() fails, naming it and the error', async () => {
    writePlugin(root, 'throws', { createBody: 'throw new Error("boom");' });
    const registry = await load();
    expect(registry.failures()).toEqual([{ id: 'throws', problem: 'throws: create() failed: boom' }]);
    expect(registry.ids()).toEqual([]);
  });

  it('refuses a plugin that does not implement a capability its manifest declares', async () => {
    writePlugin(root, 'liar', { capabilities: ['nameservers', 'registrarLock'], implement: NAMESERVERS });
    expect(await problemsOf()).toEqual([
      'liar: the manifest declares registrarLock but the plugin does not implement it',
    ]);
  });

  it('refuses a plugin that implements a capability its manifest does not declare', async () => {
    writePlugin(root, 'modest', { implement: LOCK });
    expect(await problemsOf()).toEqual([
      'modest: the plugin implements registrarLock but the manifest does not declare it',
    ]);
  });

  it('refuses a half-implemented capability', async () => {
    writePlugin(root, 'half', {
      capabilities: ['nameservers'],
      implement: 'nameservers: { async get() { return { ok: true, nameservers: [] }; } },',
    });
    expect(await problemsOf()).toEqual(['half: nameservers is only partly implemented: save missing']);
  });

  it('refuses unknown capability names in a manifest', async () => {
    writePlugin(root, 'typo', { capabilities: ['nameserver'] });
    expect((await problemsOf())[0]).toMatch(
      /^typo: the manifest declares unknown capabilities "nameserver"; known: transfer, /,
    );
  });

  it('refuses an entry that resolves outside the plugin folder', async () => {
    writePlugin(root, 'escape', { main: '../outside.js' });
    writeFileSync(path.join(root, 'outside.js'), 'throw new Error("must never run")');
    expect(await problemsOf()).toEqual(['escape: entry resolves outside the plugin folder; refusing to load it']);
  });

  it('refuses a plugin folder that is a link to somewhere outside the plugins directory', async () => {
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'elsewhere-'));
    try {
      writePlugin(elsewhere, 'linked');
      symlinkSync(path.join(elsewhere, 'linked'), path.join(root, 'linked'));
      expect(await problemsOf()).toEqual([
        'linked: the folder resolves outside the plugins directory; refusing to load it',
      ]);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('refuses the same package installed twice', async () => {
    writePlugin(root, 'first', {
      manifest: { name: 'same-package', resellerPlugin: { id: 'first', apiVersion: 1 }, main: 'index.js' },
    });
    writePlugin(root, 'second', {
      manifest: { name: 'same-package', resellerPlugin: { id: 'second', apiVersion: 1 }, main: 'index.js' },
    });
    expect(await problemsOf()).toEqual([
      'second: duplicate: package "same-package" is already installed as plugin "first"',
    ]);
  });

  it('refuses a plugin API version it does not speak', async () => {
    writePlugin(root, 'future', { manifest: { resellerPlugin: { id: 'future', apiVersion: 2 }, main: 'index.js' } });
    expect(await problemsOf()).toEqual(['future: plugin API version 2 is not supported (this platform speaks 1)']);
  });

  it('checks options against the manifest schema, listing every problem', async () => {
    writePlugin(root, 'configured', {
      manifest: {
        main: 'index.js',
        resellerPlugin: {
          id: 'configured',
          apiVersion: 1,
          options: { apiUrl: { type: 'string', required: true }, retries: { type: 'integer' } },
        },
      },
    });
    expect(await problemsOf({ configured: { retries: 'many', colour: 'blue' } })).toEqual([
      'configured: bad options: option "retries" must be a whole number; unknown option "colour"; this plugin takes: apiUrl, retries, disabledCapabilities; option "apiUrl" is required',
    ]);
  });

  it("passes options coerced from text to the plugin's own parser, which has the last word", async () => {
    writePlugin(root, 'configured', {
      manifest: {
        main: 'index.js',
        resellerPlugin: {
          id: 'configured',
          apiVersion: 1,
          options: { retries: { type: 'integer' }, live: { type: 'boolean' } },
        },
      },
      parseOptions: '(raw) => { if (raw.retries > 5) throw new Error("retries must be at most 5"); return raw; }',
      createBody: 'globalThis.__configuredOptions = options;',
    });
    await load({ configured: { retries: '3', live: 'yes' } });
    expect((globalThis as Record<string, unknown>).__configuredOptions).toEqual({ retries: 3, live: true });
    expect(await problemsOf({ configured: { retries: '9' } })).toEqual([
      'configured: bad options: retries must be at most 5',
    ]);
  });

  it('switches off the capabilities the operator disables', async () => {
    writePlugin(root, 'switchable', { capabilities: ['nameservers', 'registrarLock'], implement: NAMESERVERS + LOCK });
    const registry = await load({ switchable: { disabledCapabilities: 'registrarLock' } });
    // The platform calls a plugin through its guarded registrar, which offers only the capabilities in use.
    const plugin = guardRegistrar(registry.installed('switchable'), { timeoutMs: 1_000, logger: recordingLogger() });
    expect(plugin.registrarLock).toBeUndefined();
    expect(plugin.nameservers).toBeDefined();
    expect(registry.describe()[0]).toMatchObject({
      capabilities: ['nameservers'],
      disabledCapabilities: ['registrarLock'],
    });
  });

  it('refuses to disable a capability the plugin does not have', async () => {
    writePlugin(root, 'switchable', { capabilities: ['nameservers'], implement: NAMESERVERS });
    expect(await problemsOf({ switchable: { disabledCapabilities: ['dnsRecords'] } })).toEqual([
      'switchable: bad options: disabledCapabilities: "dnsRecords" is not a capability of this plugin; it has: nameservers',
    ]);
  });

  it('refuses options for a plugin that is not installed', async () => {
    writePlugin(root, 'good');
    expect(await problemsOf({ missing: {} })).toEqual([
      'missing: options are configured but no such plugin is installed',
    ]);
  });

  it('gives each plugin a host of its own', async () => {
    writePlugin(root, 'one');
    writePlugin(root, 'two');
    const seen: string[] = [];
    await loadPlugins(root, {}, (id) => {
      seen.push(id);
      return testPluginHost();
    });
    expect(seen).toEqual(['one', 'two']);
  });
});
