import net from 'node:net';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import request from 'supertest';
import { computeToken } from '../../src/core/auth/api-token';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';

/** A TCP relay to MariaDB that can be cut: every connection dropped and new ones refused, as when the server goes down. */
async function cuttableRelay(target: URL): Promise<{ port: number; cut(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const [host, port] = [target.hostname, Number(target.port || 3306)];
  const relay = net.createServer((client) => {
    const upstream = net.connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    port: (relay.address() as AddressInfo).port,
    cut: async () => {
      const closed = new Promise<void>((resolve) => relay.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

/**
 * A database that stops answering (issue 26 item 12) is a 503 with Retry-After, the client's cue
 * to try again, never a 500; /readyz says which check fails.
 */
(TEST_ENGINE === 'mariadb' ? describe : describe.skip)('a database that stops answering (MariaDB)', () => {
  let db: TestDatabase;
  let module: ResellerModule;
  let server: ReturnType<Koa['listen']>;
  let headers: Record<string, string>;
  beforeAll(async () => {
    db = await createTestDatabase();
    const url = new URL(db.url);
    const relay = await cuttableRelay(url);
    url.port = String(relay.port);
    module = await createResellerModule({
      database: url.toString(),
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent', backgroundJobs: false },
    });
    await module.migrate();
    await module.services.resellers.createGroup('default');
    const { apiKey } = await module.services.resellers.create('down@example.com', 'default', 10_000);
    headers = { username: 'down@example.com', token: computeToken('down@example.com', apiKey, new Date()) };
    const app = new Koa();
    app.use(module.middleware({ ownAllPaths: true }));
    server = app.listen(0, '127.0.0.1');
    expect((await request(server).get('/billing/credits').set(headers)).status).toBe(200);
    await relay.cut();
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await module.close().catch(() => undefined);
    await db.drop();
  });

  it('answers an API request with 503 and Retry-After', async () => {
    const res = await request(server).get('/billing/credits').set(headers);
    expect([res.status, res.headers['retry-after'], res.body]).toEqual([
      503,
      '2',
      { error: 'The database is not answering; try again in a few seconds' },
    ]);
  });

  it('answers /readyz with 503 naming the database', async () => {
    const res = await request(server).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks.database).toMatch(/^unreachable \(/);
    expect(res.body.error).toMatch(/not ready: .*database: unreachable/);
  }, 20_000);
});
