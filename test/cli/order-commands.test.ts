import path from 'node:path';
import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/commands';
import { startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';
import { placeRegister } from '../support/wire';

const PLUGINS_DIR = path.join(__dirname, '..', 'fixtures', 'plugins');

function sink(): Writable & { text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  return Object.assign(stream, { text: () => Buffer.concat(chunks).toString('utf8') });
}

describe('reseller-admin order commands', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ pluginsDir: PLUGINS_DIR, registrar: 'scripted', settings: { registrarTimeoutMs: 100 } });
  });
  afterAll(async () => {
    await h.close();
  });

  async function admin(...argv: string[]): Promise<{ code: number; json: any; stderr: string }> {
    const stdout = sink();
    const stderr = sink();
    const env = { DATABASE_URL: h.databaseUrl, MASTER_KEY: TEST_MASTER_KEY, PLUGINS_DIR, LOG_LEVEL: 'silent' };
    const code = await runCli(argv, { stdout, stderr, env });
    return { code, json: code === 0 ? JSON.parse(stdout.text()) : undefined, stderr: stderr.text() };
  }

  const register = (domain: string) => placeRegister(h, domain);

  it('sets yearly addon prices per group', async () => {
    const { code, json } = await admin(
      'group',
      'set-addon-prices',
      'default',
      '--addons',
      'idprotection=2.00,dnsmanagement=0.50',
    );
    expect(code).toBe(0);
    expect(json).toEqual({
      group: 'default',
      addons: { dnsmanagement: '0.50', emailforwarding: '0.00', idprotection: '2.00' },
    });
    const bad = await admin('group', 'set-addon-prices', 'default', '--addons', 'parking=1.00');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/unknown addon "parking"/);
    await admin('group', 'set-addon-prices', 'default', '--addons', 'idprotection=0,dnsmanagement=0');
  });

  it('sets, shows and removes a group premium rule (a markup or a fixed table)', async () => {
    const markup = await admin('group', 'set-premium-rule', 'default', '--markup', '12.5');
    expect(markup.code).toBe(0);
    expect(markup.json).toEqual({ group: 'default', premium: 'markup 12.50%' });
    const table = await admin('group', 'set-premium-rule', 'default', '--table', '100.00=150.00,500=650.00');
    expect(table.json).toEqual({ group: 'default', premium: 'table 100.00=150.00,500.00=650.00' });
    const below = await admin('group', 'set-premium-rule', 'default', '--table', '100.00=90.00');
    expect(below.code).toBe(1);
    expect(below.stderr).toMatch(/the premium price for costs up to 100.00 is below that cost/);
    const both = await admin('group', 'set-premium-rule', 'default', '--markup', '5', '--none');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/exactly one of --markup, --table or --none/);
    const none = await admin('group', 'set-premium-rule', 'default', '--none');
    expect(none.json).toEqual({ group: 'default', premium: 'none (premium names are not sold)' });
  });

  it('reconciles pending orders from `reconcile` and from `sync`, refunding once', async () => {
    expect((await register('lost-cli.com')).body).toBe('success');
    expect((await register('lost-cli2.com')).body).toBe('success');
    // The CLI runs on the system clock: let the request leases have run out.
    await h.module.knex('orders').where({ status: 'pending' }).update({ lease_until: 0 });
    const reconcile = await admin('reconcile');
    expect(reconcile.code).toBe(0);
    expect(reconcile.json).toMatchObject({ checked: 2, refunded: 2, completed: 0 });
    const sync = await admin('sync');
    expect(sync.json).toMatchObject({ reconciliation: { checked: 0, refunded: 0 } });
    expect((await h.http.get('/billing/credits').set(h.headers())).body).toBe('100.00');
  });

  it('lists and shows orders', async () => {
    await register('listed.com');
    const list = await admin('order', 'list', '--domain', 'listed.com');
    expect(list.json).toEqual([
      expect.objectContaining({ domain: 'listed.com', action: 'register', status: 'completed', price: '10.00' }),
    ]);
    const show = await admin('order', 'show', list.json[0].id);
    expect(show.json).toMatchObject({
      id: list.json[0].id,
      request: { nameservers: ['ns1.example.net', 'ns2.example.net'] },
    });
    expect((await admin('order', 'list', '--status', 'weird')).code).toBe(2);
  });

  describe('order settle: the operator settles a pending order by hand (issue 16)', () => {
    const pendingOrder = async (domain: string) => {
      expect((await register(domain)).body).toBe('success');
      const [found] = (await admin('order', 'list', '--domain', domain, '--status', 'pending')).json;
      return found;
    };

    it('lists a pending order with its age and the reason it is still pending', async () => {
      const listed = await pendingOrder('lost-aged.com');
      expect(listed).toMatchObject({
        domain: 'lost-aged.com',
        status: 'pending',
        reason: expect.stringMatching(/no definite answer from the registrar/),
        needsOperator: false,
      });
      expect(listed.age).toMatch(/^\d+[dhms]( \d+[hms])?$/);
      await admin('order', 'settle', listed.id, '--refund', '--note', 'cleaning up');
    });

    it('refunds exactly once, keeping the domain as Cancelled for the reseller', async () => {
      const before = (await h.http.get('/billing/credits').set(h.headers())).body;
      const listed = await pendingOrder('lost-settle.com');
      const settled = await admin(
        'order',
        'settle',
        listed.id,
        '--refund',
        '--note',
        'registrar ticket 42: never received',
      );
      expect(settled.code).toBe(0);
      expect(settled.json).toMatchObject({
        id: listed.id,
        status: 'failed',
        note: 'operator: registrar ticket 42: never received',
      });
      expect((await h.http.get('/billing/credits').set(h.headers())).body).toBe(before);
      expect(await h.module.knex('domains').where({ name: 'lost-settle.com' }).first()).toMatchObject({
        status: 'Cancelled',
      });
      const again = await admin('order', 'settle', listed.id, '--refund', '--note', 'twice');
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/already failed; nothing was changed/);
      const refunds = await h.module.knex('credit_entries').where({ order_id: listed.id, kind: 'order_refund' });
      expect(refunds).toHaveLength(1);
    });

    it('completes with the expiry the registrar gave, and the domain becomes Active', async () => {
      const before = (await h.http.get('/billing/credits').set(h.headers())).body;
      const listed = await pendingOrder('lost-done.com');
      const settled = await admin(
        'order',
        'settle',
        listed.id,
        '--complete',
        '--expiry',
        '2027-12-01',
        '--note',
        'registered, seen in the registrar panel',
      );
      expect(settled.code).toBe(0);
      expect(settled.json).toMatchObject({ status: 'completed', expiryDate: '2027-12-01' });
      expect(await h.module.knex('domains').where({ name: 'lost-done.com' }).first()).toMatchObject({
        status: 'Active',
        expiry_date: '2027-12-01',
      });
      expect(Number(before) - Number((await h.http.get('/billing/credits').set(h.headers())).body)).toBe(10);
      expect((await admin('order', 'settle', listed.id, '--refund', '--note', 'late')).code).toBe(1);
    });

    it("refuses while the request's lease runs, and an expiry that contradicts the order (issue 26)", async () => {
      const listed = await pendingOrder('lost-early.com');
      // The CLI runs on the system clock: the request's lease runs 45 s more from now.
      await h.module
        .knex('orders')
        .where({ id: listed.id })
        .update({ lease_until: Date.now() + 45_000 });
      const early = await admin('order', 'settle', listed.id, '--refund', '--note', 'looks stuck');
      expect(early.code).toBe(1);
      expect(early.stderr).toMatch(
        /the request that placed it may still be waiting for the registrar \(its lease runs until .*, 4[45] s from now\); settle it after that; nothing was changed/,
      );
      await h.module.knex('orders').where({ id: listed.id }).update({ lease_until: 0 });
      const past = await admin('order', 'settle', listed.id, '--complete', '--expiry', '1970-01-01', '--note', 'x');
      expect(past.code).toBe(1);
      expect(past.stderr).toMatch(/the expiry date 1970-01-01 is in the past .*; nothing was changed/);
      expect((await admin('order', 'show', listed.id)).json).toMatchObject({ status: 'pending' });
      await admin('order', 'settle', listed.id, '--refund', '--note', 'cleaning up');
    });

    it('refuses a command line without exactly one outcome or without a note', async () => {
      const listed = await pendingOrder('lost-usage.com');
      expect((await admin('order', 'settle', listed.id, '--note', 'which?')).code).toBe(2);
      expect((await admin('order', 'settle', listed.id, '--complete', '--refund', '--note', 'both')).code).toBe(2);
      expect((await admin('order', 'settle', listed.id, '--refund')).code).toBe(2);
      expect((await admin('order', 'settle', listed.id, '--complete', '--expiry', 'soon', '--note', 'x')).code).toBe(2);
      expect((await admin('order', 'settle', 'no-such-order', '--refund', '--note', 'x')).code).toBe(1);
      expect((await admin('order', 'show', listed.id)).json).toMatchObject({ status: 'pending' });
      await admin('order', 'settle', listed.id, '--refund', '--note', 'cleaning up');
    });
  });
});
