import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import qs from 'qs';
import path from 'node:path';
import { loadPlugins } from '../../src/infra/plugins/plugin-loader';
import { BUNDLED_PLUGINS_DIR } from '../../src/module';
import { cli } from '../support/cli';
import { startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';
import { testPluginHost } from '../support/fakes';
import { REGISTRANT } from '../support/wire';

const host = () => testPluginHost();
const CONTRACT = path.resolve(__dirname, '../../src/core/registrar/plugin');

/** A working JavaScript plugin folder (the one of docs/plugins.md, trimmed), with the id given. */
function writePlugin(root: string, id: string, entry?: string, manifest?: string): string {
  const folder = path.join(root, id);
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    path.join(folder, 'package.json'),
    manifest ??
      JSON.stringify({ name: `reseller-plugin-${id}`, main: 'index.js', resellerPlugin: { id, apiVersion: 1 } }),
  );
  writeFileSync(
    path.join(folder, 'index.js'),
    entry ??
      // Under jest the platform's answer to require('domain-reseller') is not there: the contract's source instead.
      `const { defineRegistrarPlugin } = require(${JSON.stringify(CONTRACT)});
module.exports.default = defineRegistrarPlugin({
  id: '${id}',
  apiVersion: 1,
  parseOptions: () => ({}),
  create: () => ({
    id: '${id}',
    checkAvailability: async (domains) => domains.map((domain) => ({ domain, status: 'available' })),
    register: async () => ({ ok: true, expiryDate: '2030-01-01' }),
    renew: async () => ({ ok: true, expiryDate: '2030-01-01' }),
  }),
});
`,
  );
  return folder;
}

/** Issue 31, items 4 and 5. */
describe('plugin folders', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'plugin-folders-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('adds the plugins of PLUGINS_DIR folders to the bundled ones', async () => {
    const extra = path.join(root, 'a');
    const more = path.join(root, 'b');
    writePlugin(extra, 'acme');
    writePlugin(more, 'other');
    const registry = await loadPlugins([BUNDLED_PLUGINS_DIR, extra, more], {}, host);
    expect(registry.failures()).toEqual([]);
    expect(registry.ids()).toEqual(expect.arrayContaining(['acme', 'epp', 'other', 'sandbox', 'upstream']));
    expect(registry.failures()).toEqual([]);
    await registry.close();
  });

  it('lets a plugin of a later folder replace a bundled one of the same id, and says so', async () => {
    const extra = path.join(root, 'a');
    const mine = writePlugin(extra, 'sandbox');
    const told: unknown[] = [];
    const registry = await loadPlugins([BUNDLED_PLUGINS_DIR, extra], {}, host, (replaced) => told.push(replaced));
    expect(registry.installed('sandbox').folder).toBe(mine);
    expect(told).toEqual([{ id: 'sandbox', folder: path.join(BUNDLED_PLUGINS_DIR, 'sandbox'), by: mine }]);
    await registry.close();
  });

  it('disables a plugin with a syntax error, naming its file and line, and loads the others', async () => {
    const extra = path.join(root, 'a');
    writePlugin(extra, 'acme');
    const broken = writePlugin(extra, 'broken', 'const a = 1;\nconst b = ;\nmodule.exports.default = a;\n');
    const registry = await loadPlugins([BUNDLED_PLUGINS_DIR, extra], {}, host);
    expect(registry.ids()).toEqual(expect.arrayContaining(['acme', 'epp', 'sandbox', 'upstream']));
    expect(registry.ids()).not.toContain('broken');
    expect(registry.failures()).toEqual([{ id: 'broken', problem: expect.stringContaining('broken: ') }]);
    expect(registry.failure('broken')).toContain(`${path.join(broken, 'index.js')}:2`);
    expect(registry.failure('broken')).toContain('SyntaxError');
    await registry.close();
  });

  it('disables a plugin whose manifest is not JSON, naming the line and column', async () => {
    const extra = path.join(root, 'a');
    const folder = writePlugin(extra, 'badjson', undefined, '{\n  "name": "x",\n  "main": "index.js",,\n}\n');
    const registry = await loadPlugins([BUNDLED_PLUGINS_DIR, extra], {}, host);
    expect(registry.failure('badjson')).toContain(`${path.join(folder, 'package.json')}:3:22`);
    expect(registry.ids()).toContain('sandbox');
    await registry.close();
  });
});

const order = (domain: string) =>
  qs.stringify({
    domain,
    regperiod: '1',
    nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
    contacts: { registrant: REGISTRANT },
  });

describe('a server with a plugin that failed to load', () => {
  let root: string;
  let h: Harness;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'plugin-broken-'));
    writePlugin(root, 'broken', 'module.exports = {;\n');
    h = await startHarness({ pluginsDir: root, settings: { catalogueCacheMs: 0 } });
    // The TLD was set while the plugin worked; now it fails to load.
    await h.module.services.catalogue.setTld({
      tld: '.broken',
      group: 'default',
      registrar: 'sandbox',
      prices: { register: { 1: 1000 } },
    });
    await h.module.knex('tlds').where({ tld: '.broken' }).update({ registrar: 'broken' });
  });
  afterAll(async () => {
    await h.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers an order for its TLD with 503 naming the plugin, and charges nothing', async () => {
    const before = await h.http.get('/billing/credits').set(h.headers());
    const reply = await h.http.post('/order/domains/register').set(h.headers()).type('form').send(order('name.broken'));
    expect(reply.status).toBe(503);
    expect(reply.body.error).toContain('Registrar broken is disabled');
    const after = await h.http.get('/billing/credits').set(h.headers());
    expect(after.body).toEqual(before.body);
  });

  it('keeps serving the other TLDs', async () => {
    const reply = await h.http
      .post('/order/domains/register')
      .set(h.headers())
      .type('form')
      .send(order('still-works-31.com'));
    expect(reply.status).toBe(200);
  });

  it('says so at /readyz, naming the plugin, its TLDs and the file', async () => {
    const reply = await h.http.get('/readyz');
    expect(reply.status).toBe(503);
    expect(reply.body.checks.plugins).toContain(
      'plugin "broken" failed to load and is disabled (its TLDs .broken answer 503)',
    );
    expect(reply.body.checks.plugins).toContain(path.join(root, 'broken', 'index.js'));
  });

  it('lets the CLI run, migrate included, with a warning', async () => {
    const env = { DATABASE_URL: h.databaseUrl, MASTER_KEY: TEST_MASTER_KEY, PLUGINS_DIR: root, LOG_LEVEL: 'silent' };
    for (const argv of [['migrate'], ['group', 'list']]) {
      const ran = await cli(env, ...argv);
      expect(ran.code).toBe(0);
      expect(ran.stderr).toContain('warning: a registrar plugin failed to load and is disabled: broken:');
    }
  });
});
