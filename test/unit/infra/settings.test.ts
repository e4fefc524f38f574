import { ConfigError, loadSettings } from '../../../src/config/settings';

describe('settings', () => {
  it('has working defaults', () => {
    const settings = loadSettings({});
    expect(settings).toMatchObject({ databaseUrl: 'sqlite:./data/reseller.sqlite', port: 8080, registrarTimeoutMs: 30_000, basePath: '' });
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('reads environment variables and strips a trailing slash from BASE_PATH', () => {
    const settings = loadSettings({ PORT: '9000', BASE_PATH: '/modules/addons/DomainsReseller/api/index.php/', SANDBOX_LATENCY_MS: '25' });
    expect(settings.port).toBe(9000);
    expect(settings.basePath).toBe('/modules/addons/DomainsReseller/api/index.php');
    expect(settings.plugins.sandbox).toEqual({ latencyMs: '25' });
  });

  it('names every bad setting by its variable', () => {
    try {
      loadSettings({ PORT: 'eighty', LOG_LEVEL: 'loud', CURRENCY: 'dollars' });
      throw new Error('should have failed');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).toMatch(/PORT/);
      expect(message).toMatch(/LOG_LEVEL/);
      expect(message).toMatch(/CURRENCY/);
    }
  });
});
