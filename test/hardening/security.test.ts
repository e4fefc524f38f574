import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Koa from 'koa';
import qs from 'qs';
import request from 'supertest';
import { computeToken } from '../../src/core/auth/api-token';
import { createLogger } from '../../src/infra/logging';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { cli } from '../support/cli';
import { givenDomain } from '../support/domains';
import { startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';
import { REGISTRANT as SHARED_REGISTRANT } from '../support/wire';

/**
 * The security half of the hardening suite. Already covered elsewhere, and not repeated here:
 * throttling per address and username (test/http/authentication.test.ts), the same 409 for another reseller's
 * domain on every route (test/http/domain-ownership.test.ts), a rotated key refused by the process
 * that rotated it (authentication.test.ts) and by a running server (test/cli/admin-cli.test.ts).
 */

const listening = async (server: http.Server) => {
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
  return (server.address() as AddressInfo).port;
};

/** A GET from a given loopback address (Linux routes all of 127/8 to lo), as another client would send it. */
function getFrom(
  localAddress: string,
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, localAddress, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('brute force from one address', () => {
  let h: Harness;
  let port: number;
  beforeAll(async () => {
    h = await startHarness({ settings: { authMaxFailures: 5, authFailureWindowSeconds: 60, authBlockSeconds: 120 } });
    port = await listening(h.server);
  });
  afterAll(async () => {
    await h.close();
  });

  it('blocks an address that tries many usernames, even for a correct token, and no other address; the block ends in time', async () => {
    // AUTH_MAX_FAILURES is 5 per (address, username); an address gets five times that across usernames.
    for (let i = 0; i < 25; i++) {
      const guess = await getFrom('127.0.0.2', port, '/billing/credits', {
        username: `guess${i}@example.com`,
        token: `${'A'.repeat(86)}==`,
      });
      expect(guess.status).toBe(401);
      expect(JSON.parse(guess.body)).toEqual({ error: 'Invalid API Token provided' });
    }
    const blocked = await getFrom('127.0.0.2', port, '/billing/credits', h.headers());
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(blocked.body)).toEqual({ error: 'Too many failed authentication attempts; try again later' });
    // The reseller itself, from its own address, is not locked out by someone else's scan.
    expect((await getFrom('127.0.0.3', port, '/billing/credits', h.headers())).status).toBe(200);
    h.clock.advance(121_000);
    expect((await getFrom('127.0.0.2', port, '/billing/credits', h.headers())).status).toBe(200);
  });

  it("slows only the attacker guessing a reseller's token: the reseller's own platform on its address still gets 200", async () => {
    const answers = new Set<string>();
    const guesses = [
      'x',
      `${'B'.repeat(86)}==`,
      computeToken(h.reseller.email, 'wrong-key', h.clock.now()),
      'é'.repeat(10),
      'D'.repeat(88),
    ];
    const attacker = '127.0.1.1';
    const victim = '127.0.2.1';
    for (const token of guesses) {
      const res = await getFrom(attacker, port, '/billing/credits', { username: h.reseller.email, token });
      answers.add(`${res.status} ${res.body}`);
    }
    expect([...answers]).toEqual(['401 {"error":"Invalid API Token provided"}']);
    // The attacker, from its address, is throttled for this username, even were its next guess right.
    const attackerAgain = await getFrom(attacker, port, '/billing/credits', h.headers());
    expect(attackerAgain.status).toBe(429);
    // The reseller's billing platform, from its own address and with its key, is served during the attack.
    for (let i = 0; i < 3; i++) {
      const res = await getFrom(victim, port, '/billing/credits', h.headers());
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toBe('100.00');
      const more = await getFrom(attacker, port, '/billing/credits', {
        username: h.reseller.email,
        token: `${'C'.repeat(86)}==`,
      });
      expect(more.status).toBe(429);
    }
  });
});

describe('token replay', () => {
  let h: Harness;
  let other: { module: ResellerModule; server: http.Server; http: ReturnType<typeof request> };
  beforeAll(async () => {
    h = await startHarness({ settings: { authMaxFailures: 1000 } });
    // A second server process on the same database, as behind a load balancer.
    const module = await createResellerModule({
      database: h.databaseUrl,
      clock: h.clock,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent', authMaxFailures: 1000 },
    });
    const app = new Koa();
    app.use(module.middleware({ ownAllPaths: true }));
    const server = app.listen(0, '127.0.0.1');
    other = { module, server, http: request(server) };
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => other.server.close(() => resolve()));
    await other.module.close();
    await h.close();
  });

  it('refuses a token captured in one hour once that hour and its 60 s of skew are over', async () => {
    const captured = h.headers();
    expect((await h.http.get('/billing/credits').set(captured)).status).toBe(200);
    h.clock.advance(31 * 60_000); // 11:01:00, past the minute of grace after 11:00
    const replay = await h.http.get('/billing/credits').set(captured);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ error: 'Invalid API Token provided' });
  });

  it('refuses a token replayed with a timestamp header more than 60 s old, though its HMAC is right for that hour', async () => {
    const at = h.clock.now();
    const captured = {
      username: h.reseller.email,
      token: computeToken(h.reseller.email, h.reseller.apiKey, at),
      timestamp: String(Math.floor(at.getTime() / 1000)),
    };
    expect((await h.http.get('/billing/credits').set(captured)).status).toBe(200);
    h.clock.advance(61_000);
    expect((await h.http.get('/billing/credits').set(captured)).status).toBe(401);
  });

  it('refuses the old key on every server at once after a rotation, and the new key works at once on both', async () => {
    const old = h.headers();
    expect((await other.http.get('/billing/credits').set(old)).status).toBe(200);
    const newKey = await h.module.services.resellers.rotateKey(h.reseller.email);
    const fresh = { username: h.reseller.email, token: computeToken(h.reseller.email, newKey, h.clock.now()) };
    expect((await h.http.get('/billing/credits').set(old)).status).toBe(401);
    expect((await h.http.get('/billing/credits').set(fresh)).status).toBe(200);
    expect((await other.http.get('/billing/credits').set(fresh)).status).toBe(200);
    const replay = await other.http.get('/billing/credits').set(old);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ error: 'Invalid API Token provided' });
  });
});

describe('no secrets in logs', () => {
  let h: Harness;
  let log = '';
  const capture = new Writable({
    write(chunk, _enc, done) {
      log += String(chunk);
      done();
    },
  });
  const SECRETS = {
    registrantEmail: 'very-private-registrant@example.org',
    registrantPhone: '+44.7700900123',
    eppCode: 'EPP-SECRET-4711-xyz',
  };
  /** The shared registrant, with the personal data the log must never show. */
  const REGISTRANT = { ...SHARED_REGISTRANT, email: SECRETS.registrantEmail, phonenumber: SECRETS.registrantPhone };
  const sent: string[] = [];

  beforeAll(async () => {
    // Everything logged, at the most talkative level, through the production logger and its redaction.
    h = await startHarness({
      logger: createLogger('trace', capture),
      settings: { registrarTimeoutMs: 200, authMaxFailures: 1000 },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  const post = (path: string, body: object, headers: Record<string, string> = h.headers()) => {
    sent.push(headers.token ?? '');
    return h.http.post(path).set(headers).type('form').send(qs.stringify(body));
  };
  const get = (path: string, headers: Record<string, string> = h.headers()) => {
    sent.push(headers.token ?? '');
    return h.http.get(path).set(headers);
  };

  it('logs requests, failures, faults and unexpected errors without keys, tokens, EPP codes or contacts', async () => {
    // Authentication, good and bad.
    expect((await get('/billing/credits')).status).toBe(200);
    expect(
      (
        await get('/billing/credits', {
          username: h.reseller.email,
          token: computeToken(h.reseller.email, 'a-wrong-key', h.clock.now()),
        })
      ).status,
    ).toBe(401);
    expect((await get('/billing/credits', { username: 'nobody@example.com', token: h.headers().token })).status).toBe(
      401,
    );
    // Orders: one that works, one the registrar refuses, one it never answers (reconciled later), a transfer with its EPP code.
    const contacts = { Registrant: REGISTRANT };
    const register = (domain: string) =>
      post('/order/domains/register', {
        domain,
        regperiod: '1',
        nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
        contacts,
      });
    expect((await register('logged.com')).status).toBe(200);
    expect((await register('fail-logged.com')).status).toBe(502);
    expect((await register('lost-logged.com')).status).toBe(200);
    expect(
      (
        await post('/order/domains/transfer', {
          domain: 'moved-in.com',
          regperiod: '1',
          eppcode: SECRETS.eppCode,
          nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
          contacts,
        })
      ).status,
    ).toBe(200);
    h.clock.advance(200 + 60_000 + 1);
    await h.module.reconcile();
    // Domain management that carries secrets both ways.
    await givenDomain(h.module, 'managed.com');
    const epp = await get('/domains/managed.com/eppcode');
    expect(epp.status).toBe(200);
    const returnedEppCode = epp.body.eppcode as string;
    expect(
      (
        await post('/domains/managed.com/contact', {
          contactdetails: { Registrant: { ...REGISTRANT, 'Email Address': SECRETS.registrantEmail } },
        })
      ).status,
    ).toBe(200);
    // A new key.
    const newKey = await h.module.services.resellers.rotateKey(h.reseller.email);
    const rotated = { email: h.reseller.email, apiKey: newKey };
    expect((await get('/billing/credits', h.headers(rotated))).status).toBe(200);
    // An unexpected error in the middle of an order: the orders table is gone; the failed SQL is logged.
    await h.module.knex.schema.renameTable('orders', 'orders_away');
    let broken;
    try {
      broken = await post(
        '/order/domains/register',
        {
          domain: 'broken.com',
          regperiod: '1',
          nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
          contacts,
        },
        h.headers(rotated),
      );
    } finally {
      await h.module.knex.schema.renameTable('orders_away', 'orders');
    }
    expect(broken.status).toBe(500);
    expect(broken.body.error).toMatch(/^Internal server error \(request id [\w-]+\)$/);

    const sealed: Array<{ sealed_api_key: string }> = await h.module.knex('resellers').select('sealed_api_key');
    const masterKey = Buffer.from(TEST_MASTER_KEY, 'base64');
    const secrets = [
      h.reseller.apiKey,
      newKey,
      ...sent.filter((t) => t.length > 20),
      ...sealed.map((r) => r.sealed_api_key),
      TEST_MASTER_KEY,
      masterKey.toString('hex'),
      SECRETS.eppCode,
      returnedEppCode,
      SECRETS.registrantEmail,
      SECRETS.registrantPhone,
    ];
    // The log is there and says what happened...
    expect(log).toMatch(/"msg":"request"/);
    expect(log).toMatch(/unexpected error/);
    expect(log).toMatch(/order placed/);
    expect(log.split('\n').length).toBeGreaterThan(20);
    // ...and none of the secrets, in any form.
    if (process.env.SECRETS_VERBOSE)
      for (const line of log.split('\n'))
        if (secrets.some((x) => line.includes(x))) process.stderr.write(`LEAK: ${line}\n`);
    for (const secret of secrets) {
      expect(log.includes(secret) ? `the log contains ${secret}` : 'absent').toBe('absent');
      expect(
        log.includes(JSON.stringify(secret).slice(1, -1)) ? `the log contains ${secret} (escaped)` : 'absent',
      ).toBe('absent');
    }
  });

  it('keeps keys off the CLI error stream while printing them once on stdout', async () => {
    const env = { DATABASE_URL: h.databaseUrl, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'trace' };
    const created = await cli(env, 'reseller', 'create', 'cli-secret@example.com', '--group', 'default');
    const rotated = await cli(env, 'reseller', 'rotate-key', 'cli-secret@example.com');
    const shown = [created.json().apiKey as string, rotated.json().apiKey as string];
    for (const key of shown) {
      expect(created.stderr + rotated.stderr).not.toContain(key);
    }
    expect(created.stdout).toContain(shown[0]);
  });
});
