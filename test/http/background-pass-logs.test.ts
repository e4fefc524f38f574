import { startHarness, type Harness } from '../support/harness';
import { captureLogs } from '../support/logs';
import { registerForm } from '../support/wire';

const DEADLINE_MS = 250;

/**
 * docs/operations.md#10-logs: every line written during a background pass carries its `job`, as
 * every line written while a request is served carries its `reqId`. A `slow-` sandbox name leaves
 * its order pending; the reconciliation job, run by the scheduler, then settles it.
 */
describe('log lines of background passes', () => {
  const logs = captureLogs('info');
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      logger: logs.logger,
      settings: { registrarTimeoutMs: DEADLINE_MS, reconcileIntervalMs: 100, reconcileAfterMs: 0 },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it("name their job on the lines the services write during the pass, and the request's lines name the request", async () => {
    const res = await h.http
      .post('/order/domains/register')
      .set(h.headers())
      .type('form')
      .send(registerForm('slow-logged.com'));
    expect(res.status).toBe(200);
    h.clock.advance(DEADLINE_MS + 1);
    h.module.startBackgroundJobs();
    const reconciled = () => logs.lines().find((l) => l.msg === 'order reconciled');
    for (let waited = 0; !reconciled() && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));

    expect(reconciled()).toMatchObject({ job: 'order-reconciliation' });
    expect(reconciled()).not.toHaveProperty('reqId');
    const pending = logs
      .lines()
      .find((l) => l.domain === 'slow-logged.com' && l.reqId !== undefined && l.msg !== 'request');
    expect(pending).toBeDefined();
    expect(pending).not.toHaveProperty('job');
  });
});
