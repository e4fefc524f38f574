import path from 'node:path';
import { testPluginHost } from '../support/fakes';
import { loadPlugins } from '../../src/infra/plugins/plugin-loader';
import { BUNDLED_PLUGINS_DIR } from '../../src/module';

const host = () => testPluginHost();

describe('plugin discovery', () => {
  it('loads the bundled sandbox registrar', async () => {
    const registry = await loadPlugins(BUNDLED_PLUGINS_DIR, {}, host);
    expect(registry.ids()).toContain('sandbox');
    expect(registry.get('sandbox').id).toBe('sandbox');
    await registry.close();
  });

  it('disables broken plugins at start-up, naming each of them', async () => {
    const registry = await loadPlugins(path.join(__dirname, '../fixtures/plugins-broken'), {}, host);
    expect(registry.ids()).toEqual([]);
    const problems = registry
      .failures()
      .map((f) => f.problem)
      .join('\n');
    expect(problems).toMatch(/no-manifest: no package\.json manifest/);
    expect(problems).toMatch(/wrong-id: manifest id "something-else" does not match its folder/);
    expect(problems).toMatch(/escapes: entry resolves outside the plugin folder/);
    expect(problems).toMatch(/not-branded: the entry module must default-export defineRegistrarPlugin/);
    expect(problems).toMatch(/bad-options: bad options: apiUrl is required/);
  });

  it('never executes code outside the plugin folder', async () => {
    await loadPlugins(path.join(__dirname, '../fixtures/plugins-broken'), {}, host).catch(() => undefined);
    expect((globalThis as Record<string, unknown>).evilLoaded).toBeUndefined();
  });

  it('reports options for a plugin that is not installed', async () => {
    const registry = await loadPlugins(BUNDLED_PLUGINS_DIR, { nosuch: {} }, host);
    expect(registry.failure('nosuch')).toMatch(/nosuch: options are configured but no such plugin/);
    await registry.close();
  });

  it('refuses a plugins directory that does not exist', async () => {
    await expect(loadPlugins('/nonexistent/plugins', {}, host)).rejects.toThrow(/does not exist/);
  });
});
