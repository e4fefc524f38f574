import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CAPABILITY_METHODS, CAPABILITY_NAMES } from '../../src/core/registrar/plugin';
import { formatConformanceReport, runConformanceKit } from '../../src';

const SANDBOX = path.join(__dirname, '..', '..', 'plugins', 'sandbox');
const MINIMAL = path.join(__dirname, '..', '..', 'examples', 'plugins', 'minimal');

describe('registrar conformance kit', () => {
  it('passes the sandbox, exercising every method of every capability', async () => {
    const report = await runConformanceKit({ folder: SANDBOX });
    expect(formatConformanceReport(report)).toMatch(/^sandbox: conforms/);
    expect(report.failures).toEqual([]);
    expect(report.capabilities).toEqual(CAPABILITY_NAMES);
    const methods = CAPABILITY_NAMES.flatMap((c) =>
      (CAPABILITY_METHODS[c] as readonly string[]).map((m) => `${c}.${m}`),
    );
    for (const method of ['checkAvailability', 'register', 'renew', ...methods]) {
      expect(report.checks.map((c) => c.name)).toContainEqual(
        expect.stringMatching(new RegExp(`^${method.replace('.', '\\.')} answers`)),
      );
    }
  });

  it('passes the sandbox with capabilities switched off, exercising only the rest', async () => {
    const report = await runConformanceKit({
      folder: SANDBOX,
      options: { disabledCapabilities: ['domainInformation', 'dnsRecords'] },
    });
    expect(report.failures).toEqual([]);
    expect(report.capabilities).not.toContain('dnsRecords');
    expect(report.checks.filter((c) => c.area === 'dnsRecords' || c.area === 'domainInformation')).toEqual([]);
  });

  it('passes the minimal example plugin of docs/plugins.md', async () => {
    const report = await runConformanceKit({ folder: MINIMAL, options: { reservedNames: 'www,mail' } });
    expect(report.failures).toEqual([]);
    expect(report.plugin).toBe('minimal');
    expect(report.capabilities).toEqual(['nameservers']);
    expect(report.checks.map((c) => c.name)).toEqual([
      'loads through the platform loader (manifest, entry, options, capabilities)',
      'checkAvailability answers a list of { domain, status }',
      'register answers { ok, expiryDate }',
      'renew answers { ok, expiryDate }',
      'nameservers.get answers { ok, nameservers }',
      'nameservers.save answers { ok }',
      'every method of every capability in use was exercised',
    ]);
  });

  describe('on a class-based plugin with #private fields', () => {
    let root: string;
    beforeAll(() => {
      root = mkdtempSync(path.join(os.tmpdir(), 'conformance-class-'));
      const dir = path.join(root, 'classy');
      mkdirSync(dir);
      writeFileSync(
        path.join(dir, 'package.json'),
        JSON.stringify({
          main: 'index.js',
          resellerPlugin: { id: 'classy', apiVersion: 1, capabilities: ['nameservers', 'registrarLock'] },
        }),
      );
      writeFileSync(
        path.join(dir, 'index.js'),
        `
        class ClassyRegistrar {
          id = 'classy';
          #registered = new Map();
          #nameservers = new Map();
          #locked = false;
          nameservers = {
            get: async ({ domain }) => ({ ok: true, nameservers: this.#nameservers.get(domain) ?? ['ns1.classy.test'] }),
            save: async ({ domain, nameservers }) => { this.#nameservers.set(domain, nameservers); return { ok: true }; },
          };
          registrarLock = {
            get: async () => ({ ok: true, locked: this.#locked }),
            save: async ({ locked }) => { this.#locked = locked; return { ok: true }; },
          };
          async checkAvailability(domains) {
            return domains.map((domain) => ({ domain, status: this.#registered.has(domain) ? 'registered' : 'available' }));
          }
          async register({ domain }) { this.#registered.set(domain, '2030-01-01'); return { ok: true, expiryDate: '2030-01-01' }; }
          async renew({ domain }) { return { ok: true, expiryDate: this.#renewed(domain) }; }
          #renewed(domain) { this.#registered.set(domain, '2031-01-01'); return '2031-01-01'; }
        }
        exports.default = {
          [Symbol.for('reseller/RegistrarPluginDefinition')]: true, id: 'classy', apiVersion: 1, parseOptions: (o) => o,
          create: () => new ClassyRegistrar(),
        };`,
      );
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('conforms: every call reaches the real object, its private fields included', async () => {
      const report = await runConformanceKit({ folder: path.join(root, 'classy') });
      expect(report.failures).toEqual([]);
      expect(report.capabilities).toEqual(['nameservers', 'registrarLock']);
    });

    it('conforms with a capability switched off, which is then not called', async () => {
      const report = await runConformanceKit({
        folder: path.join(root, 'classy'),
        options: { disabledCapabilities: ['registrarLock'] },
      });
      expect(report.failures).toEqual([]);
      expect(report.capabilities).toEqual(['nameservers']);
      expect(report.checks.filter((c) => c.area === 'registrarLock')).toEqual([]);
    });
  });

  describe('on a broken plugin', () => {
    let root: string;
    beforeEach(() => {
      root = mkdtempSync(path.join(os.tmpdir(), 'conformance-'));
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    const writePlugin = (capabilities: string[], body: string) => {
      const dir = path.join(root, 'broken');
      mkdirSync(dir);
      writeFileSync(
        path.join(dir, 'package.json'),
        JSON.stringify({ main: 'index.js', resellerPlugin: { id: 'broken', apiVersion: 1, capabilities } }),
      );
      writeFileSync(
        path.join(dir, 'index.js'),
        `
        exports.default = {
          [Symbol.for('reseller/RegistrarPluginDefinition')]: true, id: 'broken', apiVersion: 1, parseOptions: (o) => o,
          create: () => ({
            id: 'broken',
            async checkAvailability(domains) { return domains.map((domain) => ({ domain, status: 'available' })); },
            async register() { return { ok: true, expiryDate: '2030-01-01' }; },
            async renew() { return { ok: true, expiryDate: '2031-01-01' }; },
            ${body}
          }),
        };`,
      );
      return dir;
    };

    it('reports an answer of the wrong shape, naming the method', async () => {
      const folder = writePlugin(
        ['nameservers'],
        `nameservers: { async get() { return { ok: true, nameservers: 'ns1.example.net' }; }, async save() { return { ok: true }; } },`,
      );
      const report = await runConformanceKit({ folder });
      expect(report.passed).toBe(false);
      expect(report.failures).toEqual([
        expect.objectContaining({
          area: 'nameservers',
          name: 'nameservers.get answers { ok, nameservers }',
          problem: expect.stringMatching(/documented shape/),
        }),
      ]);
    });

    it('reports a premium price without its cost, asking renewals and transfers of the registered name', async () => {
      const folder = writePlugin(
        ['domainPricing'],
        `domainPricing: { async price({ action }) { return action === 'renew' ? { ok: true, isPremium: true } : { ok: true, isPremium: false }; } },`,
      );
      const report = await runConformanceKit({ folder });
      expect(report.failures).toEqual([
        expect.objectContaining({
          area: 'domainPricing',
          name: 'domainPricing.price answers { ok, isPremium, cost? } for a renew',
          problem: expect.stringMatching(/cost: a premium price needs its cost/),
        }),
      ]);
      expect(report.checks).toContainEqual(
        expect.objectContaining({
          name: 'domainPricing.price answers { ok, isPremium, cost? } for a transfer',
          passed: true,
        }),
      );
    });

    it('reports a call that never answers by the deadline', async () => {
      const folder = writePlugin(['eppCode'], `eppCode: { get: () => new Promise(() => {}) },`);
      const report = await runConformanceKit({ folder, timeoutMs: 50 });
      expect(report.failures).toEqual([
        expect.objectContaining({
          name: 'eppCode.get answers { ok, eppCode }',
          problem: 'threw instead of answering: Registrar broken did not answer within 50 ms',
        }),
      ]);
    });

    it("reports a plugin the loader refuses, with the loader's reason", async () => {
      const folder = writePlugin(['nameservers'], '');
      const report = await runConformanceKit({ folder });
      expect(report.failures).toEqual([
        expect.objectContaining({
          area: 'loader',
          problem: 'the manifest declares nameservers but the plugin does not implement it',
        }),
      ]);
    });

    it('notes a well-formed refusal without failing on it', async () => {
      const folder = writePlugin(
        ['idProtection'],
        `idProtection: { async save() { return { ok: false, reason: 'refused', message: 'not offered for this TLD' }; } },`,
      );
      const report = await runConformanceKit({ folder });
      expect(report.passed).toBe(true);
      expect(report.checks).toContainEqual(
        expect.objectContaining({
          name: 'idProtection.save answers { ok }',
          note: 'answered ok: false (refused): not offered for this TLD',
        }),
      );
    });
  });
});
