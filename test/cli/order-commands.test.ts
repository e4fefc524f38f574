import path from 'node:path';
import { Writable } from 'node:stream';
import qs from 'qs';
import { runCli } from '../../src/cli/commands';
import { startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';

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

  const register = (domain: string) =>
    h.http
      .post('/order/domains/register')
      .set(h.headers())
      .type('form')
      .send(
        qs.stringify({
          domain,
          regperiod: '1',
          nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
          contacts: {
            registrant: {
              firstname: 'A',
              lastname: 'B',
              email: 'a@b.co',
              address1: 'x',
              city: 'y',
              country: 'NL',
              postcode: '1',
              phonenumber: '2',
            },
          },
        }),
      );

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
});
