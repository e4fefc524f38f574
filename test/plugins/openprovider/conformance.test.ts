import path from 'node:path';
import manifest from '../../../plugins/openprovider/package.json';
import { formatConformanceReport, runConformanceKit } from '../../../src';
import { startOpenproviderFixture, type OpenproviderFixture } from '../../support/openprovider/openprovider-fixture';

const FOLDER = path.join(__dirname, '..', '..', '..', 'plugins', 'openprovider');

describe('the conformance kit on the openprovider plugin, against the fake Openprovider', () => {
  let f: OpenproviderFixture;
  beforeAll(async () => {
    f = await startOpenproviderFixture();
  });
  afterAll(async () => {
    await f.close();
  });

  it('conforms, exercising every method of every capability, every request and answer valid against the document', async () => {
    f.server.elsewhere.set('taken-incoming.com', 'Xfer-Code-77');
    const report = await runConformanceKit({
      folder: FOLDER,
      options: f.pluginOptions,
      transferDomain: 'taken-incoming.com',
      eppCode: 'Xfer-Code-77',
      timeoutMs: 10_000,
    });
    expect(formatConformanceReport(report)).toMatch(/^openprovider: conforms/);
    expect(report.failures).toEqual([]);
    expect(report.capabilities).toEqual(manifest.resellerPlugin.capabilities);
    // The transfer is requested and completes later at Openprovider, a well-formed "not yet".
    expect(report.checks.filter((c) => c.note)).toEqual([
      expect.objectContaining({
        name: 'transfer.transfer answers { ok, expiryDate? }',
        note: expect.stringMatching(/^answered ok: false \(pending\)/),
      }),
    ]);
    expect(f.server.requestViolations).toEqual([]);
    expect(f.server.answerViolations).toEqual([]);
  });

  it('fails every call of an unconfigured plugin, which still loads', async () => {
    const report = await runConformanceKit({ folder: FOLDER });
    expect(report.checks[0]).toMatchObject({ area: 'loader', passed: true });
    expect(report.failures[0]).toMatchObject({
      name: 'checkAvailability answers a list of { domain, status }',
      problem: expect.stringMatching(/not configured/),
    });
  });
});
