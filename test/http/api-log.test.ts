import knex from 'knex';
import { TOKENS } from '../../src/core/tokens';
import { cli } from '../support/cli';
import { givenDomain } from '../support/domains';
import { NOW, startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';
import { TEST_ENGINE } from '../support/test-database';

const EPP_SENT = 'Epp-Sent-7788';
const PASSWORD_SENT = 'hunter2-sent';

describe('the reseller API log', () => {
  let h: Harness;
  const env = () => ({ DATABASE_URL: h.databaseUrl, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent' });
  beforeAll(async () => {
    h = await startHarness();
    await givenDomain(h.module, 'audited.com');
    await h.http.get('/billing/credits').set(h.headers());
    await h.http.get('/domains/AUDITED.com/lock').set(h.headers());
    await h.http.get('/domains/not-mine.com/lock').set(h.headers());
    await h.http.post('/domains/audited.com/lock').set(h.headers()).type('form').send('lockstatus=locked');
    await h.http.get('/domains/audited.com/eppcode').set(h.headers());
    await h.http
      .post('/order/domains/transfer')
      .set(h.headers())
      .type('form')
      .send(`domain=moving-in.com&regperiod=1&eppcode=${EPP_SENT}&password=${PASSWORD_SENT}&note=${'x'.repeat(6000)}`);
    // Unidentified callers are nobody's calls: not logged.
    await h.http.get('/billing/credits').set({ ...h.headers(), token: 'x'.repeat(88) });
    await h.http.get('/billing/credits');
    await h.module.flushApiLog();
  });
  afterAll(async () => {
    await h.close();
  });

  it('keeps every call of a reseller: time, route, domain, status, duration, error, request id; newest first', async () => {
    const result = await cli(env(), 'log', h.reseller.email, '--since', '2026-11-21', '--limit', '10');
    expect(result.code).toBe(0);
    const entries = result.json().slice(2);
    expect(entries).toEqual([
      {
        at: NOW.replace('Z', '.000Z'),
        method: 'POST',
        route: '/domains/:domain/lock',
        domain: 'audited.com',
        status: 200,
        ms: expect.any(Number),
        error: null,
        requestId: expect.any(String),
        clientIp: expect.stringMatching(/127\.0\.0\.1/),
      },
      expect.objectContaining({
        method: 'GET',
        route: '/domains/:domain/lock',
        domain: 'not-mine.com',
        status: 409,
        error: 'The domain not-mine.com is not in your account',
      }),
      expect.objectContaining({
        method: 'GET',
        route: '/domains/:domain/lock',
        domain: 'audited.com',
        status: 200,
        error: null,
      }),
      expect.objectContaining({ method: 'GET', route: '/billing/credits', domain: null, status: 200 }),
    ]);
  });

  it('filters by domain (in any form) and by time', async () => {
    const byDomain = (await cli(env(), 'log', h.reseller.email, '--domain', 'Audited.COM')).json();
    expect(byDomain.map((e: { method: string }) => e.method)).toEqual(['GET', 'POST', 'GET']);
    expect((await cli(env(), 'log', h.reseller.email, '--since', '2026-11-21')).json()).toHaveLength(6);
    expect((await cli(env(), 'log', h.reseller.email, '--since', '2026-11-22T00:00:00Z')).json()).toHaveLength(0);
    expect((await cli(env(), 'log', h.reseller.email, '--limit', '1')).json()).toHaveLength(1);
    const bad = await cli(env(), 'log', h.reseller.email, '--since', 'yesterday');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since must be a date like 2026-11-21/);
  });

  it('keeps the request and the reply, capped, without the token, the API key, a password or an EPP code', async () => {
    const entries = await h.module.services.apiLog.find(
      (await h.module.services.resellers.byEmail(h.reseller.email)).id,
    );
    const lock = entries.find((e) => e.method === 'POST' && e.route === '/domains/:domain/lock')!;
    expect([lock.requestBody, lock.replyBody]).toEqual([
      JSON.stringify({ lockstatus: 'locked' }),
      expect.stringContaining('"success":true'),
    ]);
    const credits = entries.find((e) => e.route === '/billing/credits')!;
    expect([credits.requestBody, credits.replyBody]).toEqual([null, JSON.stringify('100.00')]);
    const epp = entries.find((e) => e.route === '/domains/:domain/eppcode')!;
    expect(epp.status).toBe(200);
    expect(epp.replyBody).toBe(JSON.stringify({ eppcode: '[redacted]' }));
    const transfer = entries.find((e) => e.route === '/order/domains/transfer')!;
    expect(transfer.requestBody).toContain('"eppcode":"[redacted]","password":"[redacted]"');
    expect(transfer.requestBody!.length).toBeLessThan(4200);
    expect(transfer.requestBody).toMatch(/… \[\d+ more characters not kept\]$/);
  });

  it('stores no token, API key, password or EPP code', async () => {
    const db =
      TEST_ENGINE === 'sqlite'
        ? knex({
            client: 'better-sqlite3',
            connection: { filename: h.databaseUrl.slice('sqlite:'.length) },
            useNullAsDefault: true,
          })
        : knex({ client: 'mysql2', connection: h.databaseUrl });
    try {
      const rows = JSON.stringify(await db('api_log').select('*'));
      expect(rows).not.toContain(h.headers().token);
      expect(rows).not.toContain(h.reseller.apiKey);
      expect(rows).not.toContain(EPP_SENT);
      expect(rows).not.toContain(PASSWORD_SENT);
      const { eppcode } = (await h.http.get('/domains/audited.com/eppcode').set(h.headers())).body;
      expect(rows).not.toContain(eppcode);
    } finally {
      await db.destroy();
    }
  });

  it('purges entries older than the retention (or a date) with log purge', async () => {
    const reseller = await h.module.services.resellers.byEmail(h.reseller.email);
    // Earlier tests' calls are written in batches: everything is written before the count.
    await h.module.flushApiLog();
    const kept = (await cli(env(), 'log', h.reseller.email)).json().length;
    const old = {
      resellerId: reseller.id,
      method: 'GET',
      route: '/tlds',
      domain: null,
      status: 200,
      durationMs: 3,
      error: null,
      requestId: 'old',
      clientIp: null,
    };
    await h.module.container.get(TOKENS.apiLogRepository).insertMany([
      { ...old, at: new Date('2026-01-01T00:00:00Z') },
      { ...old, at: new Date('2026-02-01T00:00:00Z') },
    ]);
    const purged = await cli(env(), 'log', 'purge', '--before', '2026-06-01');
    expect(purged.json()).toEqual({ deleted: 2, before: '2026-06-01T00:00:00.000Z' });
    expect((await cli(env(), 'log', h.reseller.email)).json()).toHaveLength(kept);
    // With the module's clock at NOW and 90 days' retention, nothing from today is old.
    expect(await h.module.services.apiLog.purge()).toEqual({ deleted: 0, before: '2026-08-23T10:30:00.000Z' });
  });
});
