import path from 'node:path';
import { once } from 'node:events';
import eppManifest from '../../plugins/epp/package.json';
import upstreamManifest from '../../plugins/upstream/package.json';
import { formatConformanceReport, runConformanceKit } from '../../src';
import { CAPABILITY_NAMES } from '../../src/core/registrar/plugin';
import { startEppFixture, type EppFixture } from '../support/epp/epp-fixture';
import { startHarness, type Harness } from '../support/harness';
import { realTimeClock, urlOf } from '../support/upstream-pair';

const PLUGINS = path.join(__dirname, '..', '..', 'plugins');

describe('the conformance kit on the bundled registrar plugins', () => {
  describe('upstream, pointed at a live platform on the sandbox', () => {
    let b: Harness;
    let credentials: { email: string; apiKey: string };
    beforeAll(async () => {
      b = await startHarness({ clock: realTimeClock() });
      if (!b.server.listening) await once(b.server, 'listening');
      const { apiKey } = await b.module.services.resellers.create('operator@example.net', 'default', 100_000);
      credentials = { email: 'operator@example.net', apiKey };
    });
    afterAll(async () => {
      await b.close();
    });

    it('conforms, exercising every method of every capability, with no refusal along the way', async () => {
      const report = await runConformanceKit({
        folder: path.join(PLUGINS, 'upstream'),
        options: { baseUrl: urlOf(b), ...credentials },
        timeoutMs: 10_000,
      });
      expect(formatConformanceReport(report)).toMatch(/^upstream: conforms/);
      expect(report.failures).toEqual([]);
      // Every capability but domainPricing: the reseller API has no price question for a registered name.
      const offered = CAPABILITY_NAMES.filter((c) => c !== 'domainPricing');
      expect(report.capabilities).toEqual(offered);
      expect(upstreamManifest.resellerPlugin.capabilities).toEqual(offered);
      expect(report.checks.filter((c) => c.note)).toEqual([]);
      // What the kit did went through to the upstream, in our account there: its test name deleted last, one transferred in, one released.
      const atUpstream = await b.module.services.domains.list({
        resellerId: (await b.module.services.resellers.byEmail('operator@example.net')).id,
      });
      expect(Object.fromEntries(atUpstream.map((d) => [d.name.replace(/-[0-9a-z]+\.com$/, ''), d.status]))).toEqual({
        conformance: 'Cancelled',
        'conformance-transfer': 'Active',
        'conformance-release': 'Transferred Away',
      });
    });

    it('fails every call of an unconfigured plugin, which still loads', async () => {
      const report = await runConformanceKit({ folder: path.join(PLUGINS, 'upstream') });
      expect(report.checks[0]).toMatchObject({ area: 'loader', passed: true });
      expect(report.failures[0]).toMatchObject({
        name: 'checkAvailability answers a list of { domain, status }',
        problem: expect.stringMatching(/not configured/),
      });
    });
  });

  describe('epp, against the EPP test registry', () => {
    let f: EppFixture;
    beforeAll(async () => {
      f = await startEppFixture();
    });
    afterAll(async () => {
      await f.close();
    });

    it('conforms, exercising every method of every capability, the transfer included', async () => {
      f.server.registry.seedDomain('incoming.test', { sponsor: 'registrar-b', authInfo: 'Xfer-Code-77' });
      const report = await runConformanceKit({
        folder: path.join(PLUGINS, 'epp'),
        options: f.pluginOptions,
        tld: '.test',
        transferDomain: 'incoming.test',
        eppCode: 'Xfer-Code-77',
        timeoutMs: 10_000,
      });
      expect(formatConformanceReport(report)).toMatch(/^epp: conforms/);
      expect(report.failures).toEqual([]);
      expect(report.capabilities).toEqual(eppManifest.resellerPlugin.capabilities);
      // The transfer is accepted and left pending at the registry (1001), a well-formed "not yet".
      expect(report.checks.filter((c) => c.note)).toEqual([
        expect.objectContaining({
          name: 'transfer.transfer answers { ok, expiryDate? }',
          note: expect.stringMatching(/^answered ok: false \(pending\)/),
        }),
      ]);
      expect(f.server.registry.domains.get('incoming.test')!.transfer).toMatchObject({
        status: 'pending',
        requestedBy: 'registrar-a',
      });
      expect(f.server.protocolErrors).toEqual([]);
    });
  });
});
