import request from 'supertest';
import { parseSettings } from '../../src/config/settings';
import { startServer, type RunningServer } from '../../src/server';
import { startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';
import { createResellerModule, type ResellerModule } from '../../src/module';

/**
 * Issue 31, item 12: /metrics was open on the API port. The stand-alone server serves it on a
 * listener of its own (METRICS_HOST:METRICS_PORT, loopback by default), optionally behind a
 * bearer token, and the API port answers 404 for it.
 */
describe('the stand-alone server’s metrics', () => {
  let h: Harness;
  let module: ResellerModule;
  let running: RunningServer | undefined;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await running?.shutdown('test');
    running = undefined;
  });
  afterAll(async () => {
    await h.close();
  });

  async function serve(settings: Record<string, unknown>): Promise<RunningServer> {
    const all = parseSettings({
      databaseUrl: h.databaseUrl,
      masterKey: TEST_MASTER_KEY,
      logLevel: 'silent',
      port: 0,
      host: '127.0.0.1',
      metricsPort: 0,
      backgroundJobs: false,
      ...settings,
    });
    module = await createResellerModule({ settings: { ...all } });
    running = await startServer(module, all);
    return running;
  }

  it('are not served on the API port', async () => {
    const server = await serve({});
    const reply = await request(`http://127.0.0.1:${server.port}`).get('/metrics');
    expect(reply.status).toBe(404);
  });

  it('are served on their own loopback listener, without any reseller or money per reseller', async () => {
    const server = await serve({});
    await request(`http://127.0.0.1:${server.port}`).get('/billing/credits').set(h.headers());
    expect(server.metricsPort).toEqual(expect.any(Number));
    const reply = await request(`http://127.0.0.1:${server.metricsPort}`).get('/metrics');
    expect(reply.status).toBe(200);
    expect(reply.text).toMatch(
      /^reseller_http_requests_total\{method="GET",route="\/billing\/credits",status="401"\} 1$/m,
    );
    expect(reply.text).not.toContain(h.reseller.email);
    expect(reply.text).not.toMatch(/\{[^}]*reseller[^}]*\}/);
    expect((await request(`http://127.0.0.1:${server.metricsPort}`).get('/billing/credits')).status).toBe(404);
  });

  it('ask for METRICS_TOKEN as a bearer token when it is set', async () => {
    const token = 'a-long-enough-scrape-token';
    const server = await serve({ metricsToken: token });
    const metrics = request(`http://127.0.0.1:${server.metricsPort}`);
    expect((await metrics.get('/metrics')).status).toBe(401);
    expect((await metrics.get('/metrics').set('authorization', 'Bearer wrong-token-of-some-length')).status).toBe(401);
    expect((await metrics.get('/metrics').set('authorization', `Bearer ${token}`)).status).toBe(200);
  });

  it('are not served at all with METRICS=false', async () => {
    const server = await serve({ metrics: false });
    expect(server.metricsPort).toBeUndefined();
  });
});
