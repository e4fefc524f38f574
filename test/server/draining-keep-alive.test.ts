import http from 'node:http';
import { computeToken } from '../../src/core/auth/api-token';
import { loadSettings } from '../../src/config/settings';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { startServer } from '../../src/server';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/**
 * Graceful stop with clients that keep their connections busy (issue 26 item 11): every
 * connection is reused at once for the next request, so it is never idle when the server looks.
 * The server must still stop within its deadline, answering what it has in hand with
 * `Connection: close`, and report a clean stop (exit code 0 in main.ts).
 */
describe('graceful stop with busy keep-alive clients', () => {
  let db: TestDatabase;
  let module: ResellerModule;
  beforeAll(async () => {
    db = await createTestDatabase();
    module = await createResellerModule({
      database: db.url,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent', backgroundJobs: false },
    });
    await module.migrate();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('closes every keep-alive connection after its current reply (Connection: close) and stops in time', async () => {
    await module.services.resellers.createGroup('default');
    const { apiKey } = await module.services.resellers.create('busy@example.com', 'default', 10_000);
    const settings = loadSettings({
      DATABASE_URL: db.url,
      MASTER_KEY: TEST_MASTER_KEY,
      PORT: '0',
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      // The load balancer's grace: the listener stays open, so requests keep coming while draining.
      SHUTDOWN_DELAY_MS: '300',
      SHUTDOWN_TIMEOUT_MS: '4000',
      BACKGROUND_JOBS: 'false',
    });
    const running = await startServer(module, settings);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 6 });
    const headers = { username: 'busy@example.com', token: computeToken('busy@example.com', apiKey, new Date()) };
    let stopping = false;
    const afterStop: Array<string | undefined> = [];
    const get = () =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = http.get(
          { host: '127.0.0.1', port: running.port, path: '/billing/credits', headers, agent },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
          },
        );
        req.on('error', reject);
      });
    // Each client sends its next request the moment the previous answer ends, until the server refuses.
    const client = async () => {
      let served = 0;
      for (;;) {
        const sentAfterStop = stopping;
        const reply = await get().catch(() => undefined);
        if (!reply) return served;
        expect(reply.status).toBe(200);
        served += 1;
        if (sentAfterStop) afterStop.push(reply.connection);
      }
    };
    const clients = Array.from({ length: 6 }, client);
    await new Promise((resolve) => setTimeout(resolve, 300));
    stopping = true;
    const finished = await running.shutdown('SIGTERM');
    const served = await Promise.all(clients);
    agent.destroy();

    expect(finished).toBe(true);
    expect(served.every((n) => n > 0)).toBe(true);
    // Requests sent while draining were answered, each with its connection closed after it.
    expect(afterStop.length).toBeGreaterThan(0);
    expect(afterStop.filter((connection) => connection !== 'close')).toEqual([]);
  }, 30_000);
});
