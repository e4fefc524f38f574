import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SCRIPT = path.join(__dirname, '..', '..', '..', '.ci', 'audit.js');

/** Runs .ci/audit.js on a saved `npm audit --json` report. */
function judge(report: unknown, env: Record<string, string> = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'audit-'));
  try {
    const file = path.join(dir, 'report.json');
    writeFileSync(file, typeof report === 'string' ? report : JSON.stringify(report));
    const run = spawnSync(process.execPath, [SCRIPT, '--report', file], {
      encoding: 'utf8',
      env: { ...process.env, AUDIT_REQUIRED: '', ...env },
    });
    return { code: run.status, out: run.stdout + run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const counts = (c: Partial<Record<'info' | 'low' | 'moderate' | 'high' | 'critical', number>>) => ({
  auditReportVersion: 2,
  vulnerabilities: {} as Record<string, unknown>,
  metadata: { vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0, total: 0, ...c } },
});

describe('.ci/audit.js', () => {
  it('passes a report without high or critical advisories, listing the lesser ones', () => {
    const report = counts({ moderate: 1 });
    report.vulnerabilities.qs = {
      name: 'qs',
      severity: 'moderate',
      range: '<6.0.0',
      via: [{ title: 'Prototype pollution' }],
      fixAvailable: true,
    };
    const { code, out } = judge(report);
    expect(code).toBe(0);
    expect(out).toMatch(/moderate\s+qs \(<6\.0\.0\): Prototype pollution \[fix: npm audit fix\]/);
    expect(out).toMatch(/npm audit: passed - 0 critical, 0 high, 1 moderate/);
  });

  it.each(['high', 'critical'] as const)('fails on a %s advisory, naming the package', (severity) => {
    const report = counts({ [severity]: 1 });
    report.vulnerabilities.koa = {
      name: 'koa',
      severity,
      range: '<3.0.1',
      via: [{ title: 'Open redirect' }],
      fixAvailable: { name: 'koa', version: '3.0.1' },
    };
    const { code, out } = judge(report);
    expect(code).toBe(1);
    expect(out).toMatch(new RegExp(`${severity}\\s+koa \\(<3\\.0\\.1\\): Open redirect \\[fix: koa@3\\.0\\.1\\]`));
    expect(out).toMatch(/npm audit: FAILED/);
  });

  it('says clearly that it skipped when the audit endpoint refuses, and passes unless AUDIT_REQUIRED=1', () => {
    const refused = {
      message: '405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk',
      statusCode: 405,
      error: { summary: '', detail: '' },
    };
    const skipped = judge(refused);
    expect(skipped.code).toBe(0);
    expect(skipped.out).toMatch(
      /^npm audit: SKIPPED - the audit endpoint answered 405: 405 Method Not Allowed.*No advisory check was made/m,
    );
    expect(judge(refused, { AUDIT_REQUIRED: '1' }).code).toBe(1);
  });

  it('treats output that is not a report as a skipped audit, not as a pass', () => {
    const { code, out } = judge('npm ERR! network request failed');
    expect(code).toBe(0);
    expect(out).toMatch(/npm audit: SKIPPED - npm audit gave no report/);
  });
});
