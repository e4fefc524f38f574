import { Writable } from 'node:stream';
import qs from 'qs';
import { createLogger } from '../../src/infra/logging';
import { startHarness, type Harness } from '../support/harness';
import { REGISTRANT } from '../support/wire';

const DEADLINE_MS = 250;

/**
 * docs/operations.md#10-logs: every line written during a background pass carries its `job`, as
 * every line written while a request is served carries its `reqId`. A `slow-` sandbox name leaves
 * its order pending; the reconciliation job, run by the scheduler, then settles it.
 */
describe('log lines of background passes', () => {
  const lines: Array<Record<string, unknown>> = [];
  let h: Harness;
  beforeAll(async () => {
    const capture = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    h = await startHarness({
      logger: createLogger('info', capture as never),
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
      .send(
        qs.stringify({
          domain: 'slow-logged.com',
          regperiod: '1',
          nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
          contacts: { registrant: REGISTRANT },
        }),
      );
    expect(res.status).toBe(200);
    h.clock.advance(DEADLINE_MS + 1);
    h.module.startBackgroundJobs();
    const reconciled = () => lines.find((l) => l.msg === 'order reconciled');
    for (let waited = 0; !reconciled() && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));

    expect(reconciled()).toMatchObject({ job: 'order-reconciliation' });
    expect(reconciled()).not.toHaveProperty('reqId');
    const pending = lines.find((l) => l.domain === 'slow-logged.com' && l.reqId !== undefined && l.msg !== 'request');
    expect(pending).toBeDefined();
    expect(pending).not.toHaveProperty('job');
  });
});
