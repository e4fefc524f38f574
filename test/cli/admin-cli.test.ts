import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { computeToken } from '../../src/core/auth/api-token';
import { TOKENS } from '../../src/core/tokens';
import { createResellerModule } from '../../src/module';
import { cli } from '../support/cli';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/**
 * Each test stands alone (run any one with `-t`): the database is migrated once, and every test
 * makes the groups and resellers it uses under names of its own.
 */
describe('reseller-admin', () => {
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    db = await createTestDatabase();
    env = { DATABASE_URL: db.url, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent' };
    expect((await cli(env, 'migrate')).code).toBe(0);
  });
  afterAll(async () => {
    await db.drop();
  });

  let serial = 0;
  /** A new group, named after the test's own word. */
  async function givenGroup(word: string): Promise<string> {
    const name = `${word}-${++serial}`;
    expect((await cli(env, 'group', 'create', name)).code).toBe(0);
    return name;
  }
  /** A new reseller in a group of its own, with the credit given; answers its email (lower case). */
  async function givenReseller(word: string, credit = '50.00'): Promise<string> {
    const group = await givenGroup(word);
    const created = await cli(
      env,
      'reseller',
      'create',
      `${word}-${serial}@example.com`,
      '--group',
      group,
      '--credit',
      credit,
    );
    expect(created.code).toBe(0);
    return created.json().email;
  }

  it('migrates a new database, then finds nothing left to do', async () => {
    const fresh = await createTestDatabase();
    try {
      const freshEnv = { ...env, DATABASE_URL: fresh.url };
      const first = await cli(freshEnv, 'migrate');
      expect(first.code).toBe(0);
      expect(first.json().applied.length).toBeGreaterThan(0);
      expect((await cli(freshEnv, 'migrate')).json()).toEqual({ applied: [] });
    } finally {
      await fresh.drop();
    }
  });

  it('creates a group and refuses a duplicate', async () => {
    const created = await cli(env, 'group', 'create', 'retail');
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ name: 'retail' });
    const again = await cli(env, 'group', 'create', 'retail');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
  });

  it('sets TLD prices, checking the registrar against the installed plugins', async () => {
    const retail = await givenGroup('prices');
    const set = await cli(
      env,
      'tld',
      'set',
      '.com',
      '--group',
      retail,
      '--registrar',
      'sandbox',
      '--register',
      '1=10.00,2=19.50',
      '--renew',
      '1=11.00',
    );
    expect(set.code).toBe(0);
    expect(set.json()).toMatchObject({
      tld: { tld: '.com', registrar: 'sandbox' },
      prices: { register: { 1: '10.00', 2: '19.50' }, renew: { 1: '11.00' } },
    });
    const unknown = await cli(
      env,
      'tld',
      'set',
      '.net',
      '--group',
      retail,
      '--registrar',
      'nosuch',
      '--register',
      '1=10',
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/"nosuch" is not an installed plugin; installed: .*sandbox/);
    const badPrices = await cli(
      env,
      'tld',
      'set',
      '.net',
      '--group',
      retail,
      '--registrar',
      'sandbox',
      '--register',
      '1=ten',
    );
    expect(badPrices.code).toBe(2); // a flag value it cannot read: a usage error
  });

  it('creates a reseller whose key works, once, and rotates it so old tokens stop working', async () => {
    const group = await givenGroup('keys');
    const created = await cli(env, 'reseller', 'create', 'Keys@Example.com', '--group', group, '--credit', '50.00');
    expect(created.code).toBe(0);
    const { email, apiKey } = created.json();
    expect(email).toBe('keys@example.com');
    expect(apiKey.length).toBeGreaterThanOrEqual(32);

    const module = await createResellerModule({
      database: db.url,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
    });
    try {
      const auth = module.container.get(TOKENS.authenticator);
      const credentials = (key: string) => ({
        username: email,
        token: computeToken(email, key, new Date()),
        timestamp: undefined,
        clientAddress: 'cli-test',
      });
      await expect(auth.authenticate(credentials(apiKey))).resolves.toMatchObject({ email });
      const rotated = await cli(env, 'reseller', 'rotate-key', email);
      const newKey = rotated.json().apiKey;
      expect(newKey).not.toBe(apiKey);
      await expect(auth.authenticate(credentials(apiKey))).rejects.toThrow('Invalid API Token provided');
      await expect(auth.authenticate(credentials(newKey))).resolves.toMatchObject({ email });
    } finally {
      await module.close();
    }
  });

  it('suspends and activates a reseller', async () => {
    const email = await givenReseller('status');
    expect((await cli(env, 'reseller', 'suspend', email)).json()).toEqual({ email, status: 'suspended' });
    expect((await cli(env, 'reseller', 'activate', email)).json()).toEqual({ email, status: 'active' });
  });

  it('adds credit, takes negative adjustments, and never goes below zero', async () => {
    const email = await givenReseller('credit', '50.00');
    expect((await cli(env, 'credit', 'add', email, '25.50', '--note', 'wire')).json()).toMatchObject({
      balance: '75.50',
      kind: 'top_up',
    });
    expect((await cli(env, 'credit', 'add', email, '-5.50')).json()).toMatchObject({
      balance: '70.00',
      kind: 'adjustment',
    });
    const overdraw = await cli(env, 'credit', 'add', email, '-70.01');
    expect(overdraw.code).toBe(1);
    expect(overdraw.stderr).toMatch(/below zero/);
    expect((await cli(env, 'credit', 'show', email)).json()).toMatchObject({
      balance: '70.00',
      consistent: true,
    });
  });

  it('sets the low-credit threshold, telling whether the balance is already below it, and turns it off with 0', async () => {
    const email = await givenReseller('lowcredit', '50.00');
    expect((await cli(env, 'reseller', 'set-low-credit', email, '20.00')).json()).toEqual({
      email,
      lowCreditThreshold: '20.00',
      balance: '50.00',
      isLow: false,
    });
    expect((await cli(env, 'reseller', 'set-low-credit', email, '60')).json()).toMatchObject({
      lowCreditThreshold: '60.00',
      isLow: true,
    });
    expect((await cli(env, 'reseller', 'set-low-credit', email, '0')).json()).toMatchObject({
      lowCreditThreshold: null,
      isLow: false,
    });
    const negative = await cli(env, 'reseller', 'set-low-credit', email, '-1.00');
    expect(negative.code).toBe(1);
    expect(negative.stderr).toMatch(/0\.00 or more/);
    const unknown = await cli(env, 'reseller', 'set-low-credit', 'nobody@example.com', '5.00');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no reseller with email/);
  });

  it('adds webhook endpoints (a reseller’s, or the operator’s), shows the secret once, lists, rotates and removes them', async () => {
    const email = await givenReseller('webhook');
    const added = await cli(
      env,
      'webhook',
      'add',
      email,
      'https://hooks.example.com/in',
      '--events',
      'order.completed,credit.low',
    );
    expect(added.code).toBe(0);
    const endpoint = added.json();
    expect(endpoint).toMatchObject({
      id: expect.stringMatching(/^whe_/),
      owner: email,
      url: 'https://hooks.example.com/in',
      events: ['order.completed', 'credit.low'],
      status: 'enabled',
      secret: expect.stringMatching(/^whsec_/),
    });
    const operator = (await cli(env, 'webhook', 'add', '--operator', 'https://ops.example.com/all')).json();
    expect(operator).toMatchObject({ owner: 'operator', events: 'all' });
    const listed = (await cli(env, 'webhook', 'list', '--reseller', email)).json();
    expect(listed).toEqual([expect.objectContaining({ id: endpoint.id, owner: email })]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    const rotated = (await cli(env, 'webhook', 'rotate-secret', endpoint.id)).json();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect((await cli(env, 'webhook', 'deliveries', '--endpoint', endpoint.id)).json()).toEqual([]);
    expect((await cli(env, 'webhook', 'remove', endpoint.id)).json()).toEqual({ id: endpoint.id, removed: true });
    expect((await cli(env, 'webhook', 'remove', operator.id)).code).toBe(0);
    const insecure = await cli(env, 'webhook', 'add', email, 'http://hooks.example.com/');
    expect(insecure.code).toBe(1);
    expect(insecure.stderr).toMatch(/must start with https/);
    const both = await cli(env, 'webhook', 'add', '--operator', email, 'https://hooks.example.com/');
    expect(both.code).toBe(2);
    const unknown = await cli(env, 'webhook', 'replay', 'nosuch');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no delivery nosuch/);
  });

  it('stores a default registrant contact for a group', async () => {
    const group = await givenGroup('contact');
    const file = path.join(os.tmpdir(), `contact-${process.pid}.json`);
    const complete = { address1: '1 Main St', city: 'Leeds', country: 'gb', postcode: 'LS1', phonenumber: '+44.1' };
    writeFileSync(file, JSON.stringify({ firstname: 'Ann', lastname: 'Lee', email: 'ann@example.com', ...complete }));
    expect((await cli(env, 'group', 'set-default-contact', group, file)).json()).toMatchObject({
      defaultContact: { firstname: 'Ann', country: 'GB' },
    });
    // Checked like an order's registrant: an incomplete one is refused, every missing field named.
    writeFileSync(file, JSON.stringify({ firstname: 'Ann', lastname: 'Lee', email: 'ann@example.com' }));
    const incomplete = await cli(env, 'group', 'set-default-contact', group, file);
    expect(incomplete.code).toBe(1);
    expect(incomplete.stderr).toContain('missing address1, city, country, postcode, phonenumber');
    writeFileSync(file, '[1,2]');
    expect((await cli(env, 'group', 'set-default-contact', group, file)).code).toBe(1);
  });

  it('refuses an incomplete default contact with the rules of orders, naming every missing field, and keeps the old one (issue 31, item 8)', async () => {
    const group = await givenGroup('incomplete');
    const file = path.join(os.tmpdir(), `contact-incomplete-${process.pid}.json`);
    writeFileSync(file, JSON.stringify({ 'First Name': 'Ops' }));
    const refused = await cli(env, 'group', 'set-default-contact', group, file);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'the default contact is missing firstname and lastname (or fullname), email, address1, city, country, postcode, phonenumber',
    );
    writeFileSync(
      file,
      JSON.stringify({
        fullname: 'Ops Team',
        email: 'ops@example.com',
        address1: '1 Main St',
        city: 'Springfield',
        country: 'Neverland',
        postcode: '12345',
        phonenumber: '+1.5555550100',
      }),
    );
    const badCountry = await cli(env, 'group', 'set-default-contact', group, file);
    expect(badCountry.code).toBe(1);
    expect(badCountry.stderr).toContain('country must be an ISO 3166 alpha-2 code');
    expect((await cli(env, 'group', 'show', group)).json().defaultContact).toBeNull();
  });

  it('lists domains and explains a domain that is not on the platform', async () => {
    const email = await givenReseller('domains');
    const list = await cli(env, 'domain', 'list', '--reseller', email);
    expect(list.code).toBe(0);
    expect(list.json()).toEqual([]);
    const show = await cli(env, 'domain', 'show', 'nothing-here.com');
    expect(show.code).toBe(1);
    expect(show.stderr).toMatch(/not on this platform/);
  });

  it('explains usage errors with exit code 2', async () => {
    const unknown = await cli(env, 'frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command/);
    const missing = await cli(env, 'reseller', 'create', 'x@example.com');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--group/);
  });

  it('reports a bad setting by name', async () => {
    const bad = await cli({ ...env, PORT: 'eighty' }, 'group', 'list');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/PORT/);
  });
});
