import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, ENVIRONMENT_VARIABLES, SettingsSchema, loadSettings } from '../../../src/config/settings';

describe('settings', () => {
  it('has working defaults', () => {
    const settings = loadSettings({});
    expect(settings).toMatchObject({
      databaseUrl: 'sqlite:./data/reseller.sqlite',
      port: 8080,
      registrarTimeoutMs: 30_000,
      basePath: '',
    });
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('reads environment variables and strips a trailing slash from BASE_PATH', () => {
    const settings = loadSettings({
      PORT: '9000',
      BASE_PATH: '/modules/addons/DomainsReseller/api/index.php/',
      SANDBOX_LATENCY_MS: '25',
      SANDBOX_REGISTRY: 'memory',
    });
    expect(settings.port).toBe(9000);
    expect(settings.basePath).toBe('/modules/addons/DomainsReseller/api/index.php');
    expect(settings.plugins.sandbox).toEqual({ latencyMs: '25', registry: 'memory' });
  });

  it('reads the log format, JSON unless LOG_FORMAT=pretty, and refuses another', () => {
    expect(loadSettings({}).logFormat).toBe('json');
    expect(loadSettings({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(() => loadSettings({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
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

describe('settings from a config file', () => {
  const write = (content: string) => {
    const file = path.join(tmpdir(), `reseller-config-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, content);
    return file;
  };

  it('reads camelCase keys, with environment variables over them', () => {
    const file = write(JSON.stringify({ port: 9100, apiLogRetentionDays: 7, backgroundJobs: false }));
    const settings = loadSettings({ CONFIG_FILE: file, PORT: '9200' });
    expect(settings).toMatchObject({ port: 9200, apiLogRetentionDays: 7, backgroundJobs: false });
  });

  it('names a bad value and an unknown key (a typo is never ignored)', () => {
    const file = write(JSON.stringify({ apiLogRetentionDay: 7, jobBatchSize: 0 }));
    expect(() => loadSettings({ CONFIG_FILE: file })).toThrow(
      /jobBatchSize \(JOB_BATCH_SIZE\): Too small[\s\S]*Unrecognized key: "apiLogRetentionDay"/,
    );
  });

  it('names a missing or broken file', () => {
    expect(() => loadSettings({ CONFIG_FILE: '/nonexistent/reseller.json' })).toThrow(
      /CONFIG_FILE: \/nonexistent\/reseller.json does not exist/,
    );
    expect(() => loadSettings({ CONFIG_FILE: write('{ port: ') })).toThrow(/is not valid JSON/);
  });
});

describe("the README's configuration table", () => {
  const readme = readFileSync(path.join(__dirname, '../../../README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Embedding in a host platform'));
  const rows = table.split('\n').filter((line) => line.startsWith('| `'));

  it('lists every environment variable the settings read', () => {
    const listed = new Set(
      rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!)),
    );
    expect(Object.keys(ENVIRONMENT_VARIABLES).filter((name) => !listed.has(name))).toEqual([]);
    for (const name of listed)
      expect([
        'CONFIG_FILE',
        'SANDBOX_LATENCY_MS',
        'SANDBOX_REGISTRY',
        'SANDBOX_DISABLED_CAPABILITIES',
        ...Object.keys(ENVIRONMENT_VARIABLES),
      ]).toContain(name);
  });

  it('gives the real default of every setting it shows one for', () => {
    const defaults = SettingsSchema.parse({}) as Record<string, unknown>;
    for (const row of rows) {
      const [, names, defaultCell] = row.split('|').map((cell) => cell.trim());
      const variables = [...names!.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]!);
      const shown = [...defaultCell!.matchAll(/`([^`]*)`/g)].map((m) => m[1]!);
      if (shown.length !== variables.length) continue; // a default in words, like "the bundled plugins/"
      variables.forEach((name, i) => {
        const key = ENVIRONMENT_VARIABLES[name];
        if (key) expect(`${name}=${String(defaults[key])}`).toBe(`${name}=${shown[i]}`);
      });
    }
  });
});

describe('a setting whose value carries a trailing comment (issue 31, item 2)', () => {
  it('is refused with a hint to put the comment on a line of its own', () => {
    expect(() => loadSettings({ TRUST_PROXY: 'true   # the client address comes from X-Forwarded-For' })).toThrow(
      /TRUST_PROXY: the value ends in a "# …" comment, which an environment file keeps as part of the value/,
    );
  });
});
