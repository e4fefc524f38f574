import { computeToken } from '../../src/core/auth/api-token';
import { givenDomain } from '../support/domains';
import { startHarness, type Harness } from '../support/harness';
import { placeRegister } from '../support/wire';

/**
 * docs/api.md#account-lists: a reseller's own domains, orders and statement as JSON pages.
 * Reseller A (the harness reseller) and reseller B share the platform; every list and lookup of
 * B is tried with A's identifiers, and answers as if A's rows did not exist.
 */
describe('the account lists', () => {
  let h: Harness;
  let b: { email: string; apiKey: string };
  const register = (who: { email: string; apiKey: string }, domain: string) => placeRegister(h, domain, {}, who);
  const get = (who: { email: string; apiKey: string }, path: string, query: Record<string, unknown> = {}) =>
    h.http
      .get(path)
      .query(query)
      .set({ username: who.email, token: computeToken(who.email, who.apiKey, h.clock.now()) });

  beforeAll(async () => {
    h = await startHarness();
    const created = await h.module.services.resellers.create('b@example.com', 'default', 5_000);
    b = { email: 'b@example.com', apiKey: created.apiKey };
    // A: four domains with known expiry dates (today is 2026-11-21), one of them an IDN, one Expired.
    await givenDomain(h.module, 'alpha.com', { expiryDate: '2026-12-01' });
    await givenDomain(h.module, 'bücher.com', { expiryDate: '2026-11-25' });
    await givenDomain(h.module, 'gamma.net', { expiryDate: '2027-06-01' });
    await givenDomain(h.module, 'old.org', { expiryDate: '2026-10-01', status: 'Expired' });
    // B: a domain of its own.
    await givenDomain(h.module, 'bee.com', { owner: 'b@example.com', expiryDate: '2026-11-30' });
    // A's orders: one completed, then (a minute later) one refused and refunded.
    expect((await register(h.reseller, 'ordered.com')).status).toBe(200);
    h.clock.advance(60_000);
    expect((await register(h.reseller, 'fail-ordered.com')).status).toBe(502);
    h.clock.advance(60_000);
    await h.module.services.credit.adjust(
      (await h.module.services.resellers.byEmail(h.reseller.email)).id,
      2_500,
      'top-up by bank transfer',
    );
    h.clock.advance(60_000);
  });
  afterAll(() => h.close());

  describe('GET /account/domains', () => {
    it("lists the reseller's own domains by name, with their status, expiry, nameservers and add-ons", async () => {
      const res = await get(h.reseller, '/account/domains');
      expect(res.status).toBe(200);
      expect(res.body.domains.map((d: { punycode: string }) => d.punycode)).toEqual([
        'alpha.com',
        'gamma.net',
        'old.org',
        'ordered.com',
        'xn--bcher-kva.com',
      ]);
      expect(res.body.next).toBeUndefined();
      const bucher = res.body.domains.find((d: { punycode: string }) => d.punycode === 'xn--bcher-kva.com');
      expect(bucher).toEqual({
        domain: 'bücher.com',
        punycode: 'xn--bcher-kva.com',
        tld: '.com',
        status: 'Active',
        expiryDate: '2026-11-25',
        nameservers: ['ns1.sandbox.test', 'ns2.sandbox.test'],
        addons: { dnsmanagement: false, emailforwarding: false, idprotection: false },
        createdAt: expect.stringMatching(/^2026-11-21T\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
    });

    it('filters by status, TLD, expiry window and part of the name (Unicode or ASCII)', async () => {
      const names = async (query: Record<string, unknown>) => {
        const res = await get(h.reseller, '/account/domains', query);
        expect(res.status).toBe(200);
        return res.body.domains.map((d: { punycode: string }) => d.punycode);
      };
      expect(await names({ status: 'expired' })).toEqual(['old.org']);
      expect(await names({ status: 'Active,Expired', tld: 'net' })).toEqual(['gamma.net']);
      expect(await names({ expiringWithinDays: '10' })).toEqual(['alpha.com', 'xn--bcher-kva.com']);
      expect(await names({ expiringWithinDays: '4' })).toEqual(['xn--bcher-kva.com']);
      expect(await names({ search: 'BÜCH' })).toEqual(['xn--bcher-kva.com']);
      expect(await names({ search: 'xn--b' })).toEqual(['xn--bcher-kva.com']);
      // LIKE's wildcards are taken literally.
      expect(await names({ search: '%' })).toEqual([]);
      expect(await names({ search: 'a_p' })).toEqual([]);
    });

    it('pages with a cursor, by name and by soonest expiry, without repeating or skipping a domain', async () => {
      for (const sort of ['name', 'expiry']) {
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const res = await get(h.reseller, '/account/domains', { sort, limit: 2, ...(cursor ? { cursor } : {}) });
          expect(res.status).toBe(200);
          expect(res.body.domains.length).toBeLessThanOrEqual(2);
          seen.push(...res.body.domains.map((d: { punycode: string }) => d.punycode));
          cursor = res.body.next;
        } while (cursor);
        expect(seen).toEqual(
          sort === 'name'
            ? ['alpha.com', 'gamma.net', 'old.org', 'ordered.com', 'xn--bcher-kva.com']
            : // ordered.com's expiry is a year from today; unknown expiries would come last.
              ['old.org', 'xn--bcher-kva.com', 'alpha.com', 'gamma.net', 'ordered.com'],
        );
      }
    });

    it("never shows another reseller's domain, whatever the filter", async () => {
      // 'e' is in A's gamma.net and old.org too.
      const res = await get(b, '/account/domains', { search: 'e' });
      expect(res.body.domains.map((d: { punycode: string }) => d.punycode)).toEqual(['bee.com']);
      const all = await get(b, '/account/domains', { limit: 200 });
      expect(all.body).toEqual({ domains: [expect.objectContaining({ punycode: 'bee.com' })] });
    });

    it.each([
      [{ limit: '0' }, 'limit must be a whole number from 1 to 200'],
      [{ limit: '201' }, 'limit must be at most 200'],
      [{ status: 'Sleeping' }, 'status "Sleeping" is not one of'],
      [{ sort: 'price' }, 'sort must be name or expiry'],
      [{ expiringWithinDays: '-1' }, 'expiringWithinDays must be a whole number'],
      [{ tld: '..' }, 'is not a valid TLD'],
      [{ cursor: 'bm90LWEtY3Vyc29y' }, 'cursor is not one this list gave'],
      [{ cursor: '!!' }, 'cursor is not one this list gave'],
    ])('refuses %j with a 400 naming the problem', async (query, message) => {
      const res = await get(h.reseller, '/account/domains', query);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(message);
    });

    it('refuses a cursor of another list (an orders cursor) rather than reading what it says', async () => {
      const orders = await get(h.reseller, '/account/orders', { limit: 1 });
      const res = await get(h.reseller, '/account/domains', { cursor: orders.body.next });
      expect(res.status).toBe(400);
    });

    it('is authenticated like every route', async () => {
      expect((await h.http.get('/account/domains')).status).toBe(401);
      const bad = await h.http.get('/account/domains').set({ username: h.reseller.email, token: 'x'.repeat(88) });
      expect(bad.status).toBe(401);
      expect(bad.body).toEqual({ error: 'Invalid API Token provided' });
    });
  });

  describe('GET /account/orders', () => {
    it('lists the orders newest first with amount, status and refund', async () => {
      const res = await get(h.reseller, '/account/orders');
      expect(res.status).toBe(200);
      expect(res.body.orders).toEqual([
        {
          id: expect.stringMatching(/^[0-9A-Z]{26}$/),
          action: 'register',
          domain: 'fail-ordered.com',
          period: 1,
          amount: '10.00',
          status: 'failed',
          refunded: '10.00',
          placedAt: '2026-11-21T10:31:00.000Z',
          settledAt: '2026-11-21T10:31:00.000Z',
        },
        {
          id: expect.stringMatching(/^[0-9A-Z]{26}$/),
          action: 'register',
          domain: 'ordered.com',
          period: 1,
          amount: '10.00',
          status: 'completed',
          expiryDate: '2027-11-21',
          placedAt: '2026-11-21T10:30:00.000Z',
          settledAt: '2026-11-21T10:30:00.000Z',
        },
      ]);
    });

    it('filters by status, action, domain and day, and pages with a cursor', async () => {
      const ids = async (query: Record<string, unknown>) =>
        (await get(h.reseller, '/account/orders', query)).body.orders.map((o: { domain: string }) => o.domain);
      expect(await ids({ status: 'completed' })).toEqual(['ordered.com']);
      expect(await ids({ action: 'renew' })).toEqual([]);
      expect(await ids({ domain: 'FAIL-ordered.com' })).toEqual(['fail-ordered.com']);
      expect(await ids({ from: '2026-11-21', to: '2026-11-21' })).toHaveLength(2);
      expect(await ids({ from: '2026-11-22' })).toEqual([]);
      expect(await ids({ to: '2026-11-20' })).toEqual([]);
      const first = await get(h.reseller, '/account/orders', { limit: 1 });
      expect(first.body.orders[0].domain).toBe('fail-ordered.com');
      const second = await get(h.reseller, '/account/orders', { limit: 1, cursor: first.body.next });
      expect(second.body.orders.map((o: { domain: string }) => o.domain)).toEqual(['ordered.com']);
      expect(second.body.next).toBeUndefined();
    });

    it('refuses a day that is not YYYY-MM-DD, and a range that ends before it starts', async () => {
      expect((await get(h.reseller, '/account/orders', { from: '21/11/2026' })).body.error).toBe(
        'from must be a date written YYYY-MM-DD',
      );
      expect((await get(h.reseller, '/account/orders', { from: '2026-02-30' })).status).toBe(400);
      expect((await get(h.reseller, '/account/orders', { from: '2026-11-21', to: '2026-11-20' })).body.error).toBe(
        'to must not be before from',
      );
    });

    it("answers one order by its id, and another reseller's order exactly like one that does not exist", async () => {
      const [latest] = (await get(h.reseller, '/account/orders')).body.orders;
      const own = await get(h.reseller, `/account/orders/${latest.id}`);
      expect(own.status).toBe(200);
      expect(own.body).toEqual(latest);
      expect((await get(h.reseller, `/account/orders/${latest.id.toLowerCase()}`)).body).toEqual(latest);

      const foreign = await get(b, `/account/orders/${latest.id}`);
      const missing = await get(b, '/account/orders/01JZZZZZZZZZZZZZZZZZZZZZZZ');
      const garbage = await get(b, '/account/orders/not-an-id');
      for (const res of [foreign, missing, garbage]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'There is no such order' });
      }
      // An id in the query or the body that differs from the path is refused, never read instead.
      const repeated = await get(b, `/account/orders/01JZZZZZZZZZZZZZZZZZZZZZZZ`, { id: latest.id });
      expect(repeated.status).toBe(400);
    });

    it("never lists another reseller's orders, whatever the filter", async () => {
      const res = await get(b, '/account/orders', { domain: 'ordered.com' });
      expect(res.body).toEqual({ orders: [] });
      expect((await get(b, '/account/orders')).body).toEqual({ orders: [] });
    });
  });

  describe('GET /account/statement', () => {
    it('lists ledger entries oldest first with the running balance, opening and closing balances', async () => {
      const res = await get(h.reseller, '/account/statement');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        currency: 'USD',
        openingBalance: '0.00',
        closingBalance: '115.00',
        entries: [
          expect.objectContaining({
            kind: 'top_up',
            amount: '100.00',
            balance: '100.00',
            description: 'opening credit',
          }),
          expect.objectContaining({ kind: 'order_debit', amount: '-10.00', balance: '90.00' }),
          expect.objectContaining({ kind: 'order_debit', amount: '-10.00', balance: '80.00' }),
          expect.objectContaining({ kind: 'order_refund', amount: '10.00', balance: '90.00' }),
          expect.objectContaining({
            kind: 'top_up',
            amount: '25.00',
            balance: '115.00',
            description: 'top-up by bank transfer',
            at: '2026-11-21T10:32:00.000Z',
          }),
        ],
      });
      const credits = await get(h.reseller, '/billing/credits');
      expect(credits.body).toBe('115.00');
      const debits = res.body.entries.filter((e: { kind: string }) => e.kind !== 'top_up');
      for (const entry of debits) expect(entry.orderId).toMatch(/^[0-9A-Z]{26}$/);
    });

    it('carries the balance across pages: each page opens where the last one closed', async () => {
      let cursor: string | undefined;
      let closing = '0.00';
      const balances: string[] = [];
      do {
        const res = await get(h.reseller, '/account/statement', { limit: 2, ...(cursor ? { cursor } : {}) });
        expect(res.body.openingBalance).toBe(closing);
        balances.push(...res.body.entries.map((e: { balance: string }) => e.balance));
        closing = res.body.closingBalance;
        cursor = res.body.next;
      } while (cursor);
      expect(balances).toEqual(['100.00', '90.00', '80.00', '90.00', '115.00']);
    });

    it('opens a date range with the balance before its first day', async () => {
      h.clock.advance(86_400_000);
      const id = (await h.module.services.resellers.byEmail(h.reseller.email)).id;
      await h.module.services.credit.adjust(id, -500, 'correction');
      const res = await get(h.reseller, '/account/statement', { from: '2026-11-22', to: '2026-11-22' });
      expect(res.body).toMatchObject({
        openingBalance: '115.00',
        closingBalance: '110.00',
        entries: [{ kind: 'adjustment', amount: '-5.00', balance: '110.00', description: 'correction' }],
      });
      const before = await get(h.reseller, '/account/statement', { to: '2026-11-21' });
      expect(before.body.closingBalance).toBe('115.00');
      expect(before.body.entries).toHaveLength(5);
    });

    it('shows another reseller only its own entries', async () => {
      const res = await get(b, '/account/statement');
      expect(res.body).toEqual({
        currency: 'USD',
        openingBalance: '0.00',
        closingBalance: '50.00',
        entries: [expect.objectContaining({ kind: 'top_up', amount: '50.00', balance: '50.00' })],
      });
    });
  });
});
