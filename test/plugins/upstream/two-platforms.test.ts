import { isResellerApiError, type ResellerApiError } from '../../../src/client';
import { eventually, startUpstreamPair, urlOf, type UpstreamPair } from '../../support/upstream-pair';

/**
 * End to end, two platforms in one process: A sells .com through the upstream plugin to B, which
 * registers with its sandbox. Everything A's reseller does goes through A's HTTP API (with the
 * client SDK); what B did is read through B's HTTP API with A's operator account, and from B's
 * records. Runs on SQLite and, with TEST_DB=mariadb, on MariaDB (two databases).
 */

const REGISTRANT = {
  firstname: 'Ada',
  lastname: 'Lovelace',
  email: 'ada@example.com',
  address1: '1 Analytical Way',
  city: 'London',
  postcode: 'N1 1AA',
  country: 'GB',
  phonenumber: '+44.2071234567',
};
const NAMESERVERS = ['ns1.host.net', 'ns2.host.net'];
const order = (domain: string) => ({
  domain,
  period: 1,
  nameservers: NAMESERVERS,
  contacts: { registrant: REGISTRANT },
});

const addYears = (date: string, years: number) => `${Number(date.slice(0, 4)) + years}${date.slice(4)}`;

async function failure(promise: Promise<unknown>): Promise<ResellerApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isResellerApiError(error))
    throw new Error(`expected the call to fail with a ResellerApiError, got ${String(error)}`);
  return error;
}

/** Lets A's reconciliation claim its pending orders (A's clock is fixed; its deadline is in its settings). */
const reconcileA = (p: UpstreamPair) => {
  p.a.clock.advance(p.a.module.settings.registrarTimeoutMs + 1_000);
  return p.a.module.reconcile();
};

/** B runs on real time; a few seconds ahead its own orders are claimable, and A's signed requests still fall within its 60 s tolerance. */
const reconcileB = (p: UpstreamPair) => {
  p.b.clock.advance(p.b.module.settings.registrarTimeoutMs + 1_000);
  return p.b.module.reconcile();
};

const resultsOf = (report: { orders: ReadonlyArray<{ domain: string; result: string }> }) =>
  Object.fromEntries(report.orders.map((o) => [o.domain, o.result]));

describe('the upstream plugin: platform A sells through platform B', () => {
  let p: UpstreamPair;
  // B's sandbox keeps slow- and lost- names waiting for B's deadline; A waits longer than that.
  beforeAll(async () => {
    p = await startUpstreamPair({ aTimeoutMs: 10_000, bTimeoutMs: 600 });
  });
  afterAll(async () => {
    await p.close();
  });

  it('registers, renews, reads and changes a domain at B through A, each platform charging its own price', async () => {
    const [resellerBefore, operatorBefore] = [await p.resellerBalance(), await p.operatorBalance()];

    await p.reseller.register(order('bakery.com'));
    const atB = await p.b.module.services.domains.show('bakery.com');
    expect(atB).toMatchObject({
      status: 'Active',
      resellerId: p.operatorId,
      registrar: 'sandbox',
      nameservers: NAMESERVERS,
    });
    expect(await p.a.module.services.domains.show('bakery.com')).toMatchObject({
      status: 'Active',
      registrar: 'upstream',
      expiryDate: atB.expiryDate,
    });
    expect(await p.resellerBalance()).toBe(resellerBefore - 1000);
    expect(await p.operatorBalance()).toBe(operatorBefore - 800);

    await p.reseller.renew({ domain: 'bakery.com', period: 1 });
    const renewedAtB = await p.b.module.services.domains.show('bakery.com');
    expect(renewedAtB.expiryDate).toBe(addYears(atB.expiryDate!, 1));
    expect((await p.a.module.services.domains.show('bakery.com')).expiryDate).toBe(renewedAtB.expiryDate);
    expect(await p.resellerBalance()).toBe(resellerBefore - 1000 - 1200);
    expect(await p.operatorBalance()).toBe(operatorBefore - 800 - 900);

    const information = await p.reseller.information('bakery.com');
    expect(information).toMatchObject({
      domain: 'bakery.com',
      nameservers: NAMESERVERS,
      transferLock: true,
      expiryDate: `${renewedAtB.expiryDate}T00:00:00Z`,
      registrationStatus: 'Active',
      registrantEmailAddress: 'ada@example.com',
    });

    await p.reseller.saveNameservers('bakery.com', ['ns3.host.net', 'ns4.host.net']);
    expect(await p.operator.nameservers('bakery.com')).toEqual({
      ns1: 'ns3.host.net',
      ns2: 'ns4.host.net',
      ns3: '',
      ns4: '',
      ns5: '',
    });
    expect(await p.reseller.nameservers('bakery.com')).toMatchObject({ ns1: 'ns3.host.net', ns2: 'ns4.host.net' });

    await expect(p.reseller.saveLock('bakery.com', false)).resolves.toEqual({ success: true, lockstatus: 'unlocked' });
    expect(await p.operator.lock('bakery.com')).toBe('unlocked');
    expect(await p.reseller.lock('bakery.com')).toBe('unlocked');

    expect(await p.reseller.sync('bakery.com')).toEqual({
      active: true,
      expired: false,
      transferredAway: false,
      cancelled: false,
      expirydate: renewedAtB.expiryDate,
    });
    // Nothing else moved money on either side.
    expect(await p.resellerBalance()).toBe(resellerBefore - 2200);
    expect(await p.operatorBalance()).toBe(operatorBefore - 1700);
  });

  it('offers the rest of the API through B: search, child hosts, DNS, ID protection, EPP code, contacts, forwarding, deletion', async () => {
    await p.reseller.register(order('florist.com'));

    const found = await p.reseller.lookup({ searchTerm: 'florist', tldsToInclude: ['.com', '.net'] });
    expect(found.map((s) => [s.domainName, s.status])).toEqual([
      ['florist.com', 'registered'],
      ['florist.net', 'available for registration'],
    ]);
    const suggested = await p.reseller.suggestions({ searchTerm: 'florist', tldsToInclude: ['.com'] });
    expect(suggested.length).toBeGreaterThan(1);

    await p.reseller.registerNameserver('florist.com', 'ns1.florist.com', '192.0.2.1');
    await p.reseller.modifyNameserver('florist.com', 'ns1.florist.com', '192.0.2.1', '192.0.2.2');
    await p.reseller.deleteNameserver('florist.com', 'ns1.florist.com');
    await expect(p.operator.deleteNameserver('florist.com', 'ns1.florist.com')).rejects.toMatchObject({ status: 502 });

    await p.reseller.saveDnsRecords('florist.com', [
      { hostname: '@', type: 'A', address: '192.0.2.10' },
      { hostname: '@', type: 'MX', address: 'mail.florist.com', priority: 10 },
    ]);
    expect(await p.operator.dnsRecords('florist.com')).toEqual([
      { hostname: '@', type: 'A', address: '192.0.2.10', priority: 'N/A', recid: '1' },
      { hostname: '@', type: 'MX', address: 'mail.florist.com', priority: '10', recid: '2' },
    ]);
    expect(await p.reseller.dnsRecords('florist.com')).toEqual(await p.operator.dnsRecords('florist.com'));

    await p.reseller.saveIdProtection('florist.com', true);
    expect((await p.operator.information('florist.com')).idProtectionStatus).toBe(true);

    expect(await p.reseller.eppCode('florist.com')).toBe(await p.operator.eppCode('florist.com'));

    await p.reseller.saveContacts('florist.com', { registrant: { ...REGISTRANT, firstname: 'Augusta' } });
    expect((await p.operator.contacts('florist.com')).Registrant).toMatchObject({
      'First Name': 'Augusta',
      'Last Name': 'Lovelace',
    });
    expect((await p.reseller.contacts('florist.com')).Registrant).toMatchObject({
      'First Name': 'Augusta',
      Country: 'GB',
    });

    await p.reseller.saveEmailForwarding('florist.com', [{ prefix: 'info', forwardTo: 'ada@example.com' }]);
    expect(await p.operator.emailForwarding('florist.com')).toEqual([{ prefix: 'info', forwardto: 'ada@example.com' }]);
    expect(await p.reseller.emailForwarding('florist.com')).toEqual([{ prefix: 'info', forwardto: 'ada@example.com' }]);

    await expect(p.reseller.delete('florist.com')).resolves.toMatchObject({ success: true, status: 'Cancelled' });
    expect((await p.b.module.services.domains.show('florist.com')).status).toBe('Cancelled');
    expect((await p.a.module.services.domains.show('florist.com')).status).toBe('Cancelled');
  });

  it('transfers a domain in through B: pending at both until the transfer completes, charged once on each side', async () => {
    const [resellerBefore, operatorBefore] = [await p.resellerBalance(), await p.operatorBalance()];
    await p.reseller.transfer({ ...order('taken-mill.com'), eppCode: 'AUTH-CODE' });
    // B's sandbox completes a transfer at the first transfer sync, which the plugin asks for straight away.
    expect(await p.a.module.services.domains.show('taken-mill.com')).toMatchObject({
      status: 'Active',
      registrar: 'upstream',
    });
    expect((await p.operator.transferSync('taken-mill.com')).completed).toBe(true);
    expect(await p.resellerBalance()).toBe(resellerBefore - 900);
    expect(await p.operatorBalance()).toBe(operatorBefore - 700);
    // B's own order was left pending by its sandbox's "pending" answer; the transfer sync A asked B for settled it
    // through B's order flow, so B's reconciliation finds nothing left and nothing is charged again.
    expect(await p.b.module.services.orders.list({ domain: 'taken-mill.com' })).toMatchObject([
      { status: 'completed', note: 'transfer sync: the transfer completed' },
    ]);
    expect(resultsOf(await reconcileB(p))).not.toHaveProperty(['taken-mill.com']);
    expect(await p.operatorBalance()).toBe(operatorBefore - 700);
  });

  describe('refusals at B refund at A', () => {
    it('a name B says is taken: 400 at A, nothing charged on either side', async () => {
      const [resellerBefore, operatorBefore] = [await p.resellerBalance(), await p.operatorBalance()];
      const error = await failure(p.reseller.register(order('taken-cafe.com')));
      expect(error.status).toBe(400);
      expect(error.serverMessage).toMatch(/^taken-cafe\.com is not available: .*taken-cafe\.com is not available/);
      expect(await p.resellerBalance()).toBe(resellerBefore);
      expect(await p.operatorBalance()).toBe(operatorBefore);
      await expect(p.a.module.services.domains.show('taken-cafe.com')).rejects.toThrow();
      expect(await p.a.module.services.orders.list({ domain: 'taken-cafe.com' })).toMatchObject([{ status: 'failed' }]);
    });

    it("a registration B's registrar refuses (a 502 from B): refunded at A at once, since B holds nothing for it", async () => {
      const [resellerBefore, operatorBefore] = [await p.resellerBalance(), await p.operatorBalance()];
      const error = await failure(p.reseller.register(order('fail-cafe.com')));
      expect(error.status).toBe(502);
      expect(error.serverMessage).toMatch(
        /^The registrar refused the registration of fail-cafe\.com: .*Sandbox registry error/,
      );
      expect(await p.resellerBalance()).toBe(resellerBefore);
      expect(await p.operatorBalance()).toBe(operatorBefore);
      expect(await p.a.module.services.orders.list({ domain: 'fail-cafe.com' })).toMatchObject([{ status: 'failed' }]);
    });

    it("a renewal B's registrar refuses: refunded at A, the expiry unchanged on both sides", async () => {
      await p.reseller.register(order('bistro.com'));
      const expiry = (await p.a.module.services.domains.show('bistro.com')).expiryDate;
      const [resellerBefore, operatorBefore] = [await p.resellerBalance(), await p.operatorBalance()];
      // B's price list has no 5-year renewal: B refuses before charging; A (which prices it) refunds.
      await p.a.module.services.catalogue.setTld({
        tld: '.com',
        group: 'default',
        registrar: 'upstream',
        prices: { register: { 1: 1000, 2: 1950, 5: 4500 }, renew: { 1: 1200, 2: 2300, 5: 5500 }, transfer: { 1: 900 } },
      });
      const error = await failure(p.reseller.renew({ domain: 'bistro.com', period: 5 }));
      expect(error.status).toBe(502);
      expect(error.serverMessage).toMatch(
        /^The registrar refused the renewal of bistro\.com: regperiod must be one of 1, 2/,
      );
      expect(await p.resellerBalance()).toBe(resellerBefore);
      expect(await p.operatorBalance()).toBe(operatorBefore);
      expect((await p.a.module.services.domains.show('bistro.com')).expiryDate).toBe(expiry);
      expect((await p.b.module.services.domains.show('bistro.com')).expiryDate).toBe(expiry);
    });

    it("an operator account at B without enough credit: A's reseller is refunded and told why", async () => {
      const operatorBalance = await p.operatorBalance();
      await p.b.module.services.credit.adjust(p.operatorId, -(operatorBalance - 500), 'test: drain');
      try {
        const resellerBefore = await p.resellerBalance();
        const error = await failure(p.reseller.register(order('patisserie.com')));
        expect(error.status).toBe(502);
        expect(error.serverMessage).toMatch(
          /^The registrar refused the registration of patisserie\.com: Insufficient credit/,
        );
        expect(await p.resellerBalance()).toBe(resellerBefore);
        expect(await p.operatorBalance()).toBe(500);
      } finally {
        await p.b.module.services.credit.adjust(p.operatorId, operatorBalance - 500, 'test: refill');
      }
    });
  });

  describe('orders B accepts but has not finished', () => {
    it("relays B's pending registration: A's order stays pending until B settles it, then A settles the same way", async () => {
      const [resellerBefore, operatorBefore] = [await p.resellerBalance(), await p.operatorBalance()];
      // B's sandbox holds lost- and slow- names past B's deadline, so B answers "success" with its orders pending.
      await p.reseller.register(order('lost-bakery.com'));
      await p.reseller.register(order('slow-bakery.com'));

      // slow-: B's registry has the name, so A's check after B's "success" finds it registered.
      expect(await p.a.module.services.domains.show('slow-bakery.com')).toMatchObject({ status: 'Active' });
      // lost-: B cannot show it, so A's order stays pending with the money reserved.
      expect(await p.a.module.services.domains.show('lost-bakery.com')).toMatchObject({
        status: 'Pending Registration',
      });
      expect(await p.a.module.services.orders.list({ domain: 'lost-bakery.com' })).toMatchObject([
        { status: 'pending' },
      ]);
      expect(await p.resellerBalance()).toBe(resellerBefore - 2000);
      expect(await p.operatorBalance()).toBe(operatorBefore - 1600);

      // Before B has settled, A's reconciliation cannot tell, and leaves the order alone.
      expect(resultsOf(await reconcileA(p))).toEqual({ 'lost-bakery.com': 'unresolved' });
      expect(await p.resellerBalance()).toBe(resellerBefore - 2000);

      expect(resultsOf(await reconcileB(p))).toEqual({ 'lost-bakery.com': 'refunded', 'slow-bakery.com': 'completed' });
      expect(resultsOf(await reconcileA(p))).toEqual({ 'lost-bakery.com': 'refunded' });
      expect(await p.resellerBalance()).toBe(resellerBefore - 1000);
      expect(await p.operatorBalance()).toBe(operatorBefore - 800);
      // Kept for the reseller as Cancelled, so that its billing platform's sync learns the name is not registered.
      expect(await p.a.module.services.domains.show('lost-bakery.com')).toMatchObject({ status: 'Cancelled' });
    });
  });

  describe('B unreachable', () => {
    it("refuses A's order with nothing charged while B cannot be reached (A cannot learn whether the name is premium), and takes it once B is back", async () => {
      const resellerBefore = await p.resellerBalance();
      const port = Number(new URL(urlOf(p.b)).port);
      await new Promise<void>((resolve) => {
        p.b.server.close(() => resolve());
        p.b.server.closeAllConnections();
      });
      try {
        // Before any money moves, A asks B whether the name is premium; with no answer it sells nothing.
        // (A registration that B stops answering after that question is "started": test/hardening/registrar-faults.test.ts.)
        await expect(p.reseller.register(order('unreachable.com'))).rejects.toThrow(
          /whether unreachable\.com is a premium name .*nothing was charged/,
        );
        expect(await p.resellerBalance()).toBe(resellerBefore);
        expect(await p.a.module.services.orders.list({ domain: 'unreachable.com' })).toEqual([]);
      } finally {
        await new Promise<void>((resolve) => p.b.server.listen(port, '127.0.0.1', () => resolve()));
      }
      await p.reseller.register(order('unreachable.com'));
      expect(await p.a.module.services.domains.show('unreachable.com')).toMatchObject({ status: 'Active' });
      expect(await p.resellerBalance()).toBe(resellerBefore - 1000);
    });
  });

  describe('idempotency', () => {
    it("sends A's order id as B's Idempotency-Key, so a repeated call is charged once at B", async () => {
      await p.reseller.register(order('keyed.com'));
      const [aOrder] = await p.a.module.services.orders.list({ domain: 'keyed.com' });
      const keys = await p.b.module.knex('idempotency_keys').where({ reseller_id: p.operatorId, idem_key: aOrder!.id });
      expect(keys).toHaveLength(1);

      const operatorBefore = await p.operatorBalance();
      const plugin = p.a.module.registrars.get('upstream');
      const input = { ...order('repeated.com'), contacts: { registrant: REGISTRANT }, addons: {}, fields: {} };
      const ctx = { signal: new AbortController().signal, transactionId: 'a-order-repeated-1' };
      const first = await plugin.register(input, ctx);
      const second = await plugin.register(input, ctx);
      expect(first).toMatchObject({ ok: true });
      expect(second).toEqual(first);
      expect(await p.operatorBalance()).toBe(operatorBefore - 800);
      expect(await p.b.module.services.orders.list({ domain: 'repeated.com' })).toHaveLength(1);
    });
  });
});

describe('the upstream plugin when A stops waiting before B answers', () => {
  let p: UpstreamPair;
  // A's deadline fires long before B's sandbox lets slow- and lost- names go.
  beforeAll(async () => {
    p = await startUpstreamPair({ aTimeoutMs: 300, bTimeoutMs: 1_500 });
  });
  afterAll(async () => {
    await p.close();
  });

  const settledAtB = (domain: string) =>
    eventually(async () => {
      const [o] = await p.b.module.services.orders.list({ domain });
      return o !== undefined && (o.status !== 'pending' || o.note !== null);
    }, `B to finish its call for ${domain}`);

  it('leaves timed-out orders pending, and reconciliation settles them as B did: completed for slow-, refunded for lost-', async () => {
    const [resellerBefore, operatorBefore] = [await p.resellerBalance(), await p.operatorBalance()];
    await Promise.all([p.reseller.register(order('slow-oven.com')), p.reseller.register(order('lost-oven.com'))]);
    expect(await p.a.module.services.orders.list({ status: 'pending' })).toHaveLength(2);
    expect(await p.resellerBalance()).toBe(resellerBefore - 2000);

    await Promise.all([settledAtB('slow-oven.com'), settledAtB('lost-oven.com')]);
    // B's registry has the slow- name: done. B has not settled lost-: A cannot tell yet.
    expect(resultsOf(await reconcileA(p))).toEqual({ 'slow-oven.com': 'completed', 'lost-oven.com': 'unresolved' });
    expect(resultsOf(await reconcileB(p))).toEqual({ 'slow-oven.com': 'completed', 'lost-oven.com': 'refunded' });
    expect(resultsOf(await reconcileA(p))).toEqual({ 'lost-oven.com': 'refunded' });

    expect(await p.resellerBalance()).toBe(resellerBefore - 1000);
    expect(await p.operatorBalance()).toBe(operatorBefore - 800);
    expect((await p.a.module.services.domains.show('slow-oven.com')).expiryDate).toBe(
      (await p.b.module.services.domains.show('slow-oven.com')).expiryDate,
    );
  });

  it('completes a timed-out renewal once B shows the new expiry, charging once on each side', async () => {
    const before = (await p.a.module.services.domains.show('slow-oven.com')).expiryDate!;
    const [resellerBefore, operatorBefore] = [await p.resellerBalance(), await p.operatorBalance()];
    await p.reseller.renew({ domain: 'slow-oven.com', period: 1 });
    expect(await p.a.module.services.orders.list({ domain: 'slow-oven.com', status: 'pending' })).toHaveLength(1);

    expect(resultsOf(await reconcileA(p))).toEqual({ 'slow-oven.com': 'completed' });
    expect((await p.a.module.services.domains.show('slow-oven.com')).expiryDate).toBe(addYears(before, 1));
    await eventually(
      async () =>
        (await p.b.module.services.orders.list({ domain: 'slow-oven.com', status: 'pending' })).every(
          (o) => o.note !== null,
        ),
      'B to finish the renewal call',
    );
    expect(resultsOf(await reconcileB(p))).toEqual({ 'slow-oven.com': 'completed' });
    expect(await p.resellerBalance()).toBe(resellerBefore - 1200);
    expect(await p.operatorBalance()).toBe(operatorBefore - 900);
  });
});
