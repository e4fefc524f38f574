import Router from '@koa/router';
import Koa from 'koa';
import request from 'supertest';
import { computeToken } from '../../src/core/auth/api-token';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { givenGroupSellingCom } from '../support/domains';

describe('embedding the module in a host Koa app', () => {
  let db: TestDatabase;
  let module: ResellerModule;
  let app: Koa;
  let apiKey: string;
  const email = 'host-reseller@example.com';
  const headers = () => ({ username: email, token: computeToken(email, apiKey, new Date()) });

  beforeAll(async () => {
    db = await createTestDatabase();
    module = await createResellerModule({
      database: db.url,
      settings: {
        masterKey: TEST_MASTER_KEY,
        logLevel: 'silent',
        basePath: '/modules/addons/DomainsReseller/api/index.php',
      },
    });
    await module.migrate();
    await givenGroupSellingCom(module, 'hosted', { prices: { register: { 1: 800 } } });
    ({ apiKey } = await module.services.resellers.create(email, 'hosted', 500));

    app = new Koa();
    const hostRoutes = new Router();
    hostRoutes.get('/dashboard', (ctx) => {
      ctx.body = 'host dashboard';
    });
    app.use(module.middleware({ prefix: '/reseller-api' }));
    app.use(hostRoutes.routes());
  });
  afterAll(async () => {
    await module.close();
    await db.drop();
  });

  it('serves the API under the mount prefix', async () => {
    const res = await request(app.callback()).get('/reseller-api/billing/credits').set(headers());
    expect(res.status).toBe(200);
    expect(res.body).toBe('5.00');
  });

  it('also serves it under the configured drop-in base path', async () => {
    const res = await request(app.callback())
      .get('/reseller-api/modules/addons/DomainsReseller/api/index.php/tlds')
      .set(headers());
    expect(res.status).toBe(200);
    expect(res.body).toEqual(['.com']);
  });

  it("leaves the host's own routes alone", async () => {
    const res = await request(app.callback()).get('/dashboard');
    expect(res.status).toBe(200);
    expect(res.text).toBe('host dashboard');
  });

  it('answers unknown paths under its prefix with a 404 JSON error, and only those', async () => {
    const inside = await request(app.callback()).get('/reseller-api/nope');
    expect(inside.status).toBe(404);
    expect(inside.body).toEqual({ error: 'No route for GET /reseller-api/nope' });
    const outside = await request(app.callback()).get('/elsewhere');
    expect(outside.status).toBe(404);
    expect(outside.headers['content-type']).not.toMatch(/json/);
  });
});
