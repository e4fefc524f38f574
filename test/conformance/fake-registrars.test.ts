import path from 'node:path';
import { formatConformanceReport, runConformanceKit } from '../../src';

/**
 * The fake registrars the suite runs against answer as the contract says a real one must: the
 * conformance kit the bundled plugins pass (bundled-plugins.test.ts) runs on them too, so a fake
 * cannot grow more lenient than a registrar may be.
 */
describe('the conformance kit on the test registrars', () => {
  it('passes the scripted test registrar (test/fixtures/plugins/scripted) on every capability it declares', async () => {
    const report = await runConformanceKit({
      folder: path.join(__dirname, '..', 'fixtures', 'plugins', 'scripted'),
      timeoutMs: 5_000,
    });
    expect(report.failures).toEqual([]);
    expect(formatConformanceReport(report)).toMatch(/^scripted: conforms/);
    expect(report.capabilities).toEqual(['transfer', 'domainSync', 'transferSync', 'domainPricing']);
  });
});
