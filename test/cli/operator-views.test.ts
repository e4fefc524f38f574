import { cli, harnessForCli } from '../support/cli';
import type { Harness } from '../support/harness';
import { placeRegister } from '../support/wire';

/** Issue 31, item 9: an operator sees what is set, as JSON for scripts and as tables for people. */
describe('reseller-admin views', () => {
  const setup = harnessForCli();
  let h: Harness;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    ({ h, env } = setup);
    expect((await cli(env, 'group', 'set-addon-prices', 'default', '--addons', 'idprotection=2.00')).code).toBe(0);
    expect((await cli(env, 'group', 'set-premium-rule', 'default', '--markup', '20')).code).toBe(0);
    const ordered = await placeRegister(h, 'viewed.com');
    expect(ordered.status).toBe(200);
  });

  it('shows a group: its prices per TLD, addon prices, premium rule and resellers', async () => {
    const run = await cli(env, 'group', 'show', 'default');
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      name: 'default',
      resellers: 1,
      premium: 'markup 20.00%',
      addonPrices: { idprotection: '2.00' },
      prices: expect.arrayContaining([
        { tld: '.com', register: '1y 10.00, 2y 19.50, 5y 45.00', renew: '1y 12.00, 2y 23.00', transfer: '1y 9.00' },
      ]),
    });
  });

  it('lists groups with their premium rule and addon prices', async () => {
    const run = await cli(env, 'group', 'list');
    expect(run.json()).toEqual([
      expect.objectContaining({ name: 'default', premium: 'markup 20.00%', addonPrices: { idprotection: '2.00' } }),
    ]);
  });

  it('shows a TLD and lists TLDs with their prices per group', async () => {
    const shown = await cli(env, 'tld', 'show', 'com');
    expect(shown.json()).toMatchObject({
      tld: '.com',
      registrar: 'sandbox',
      prices: [
        {
          group: 'default',
          register: '1y 10.00, 2y 19.50, 5y 45.00',
          renew: '1y 12.00, 2y 23.00',
          transfer: '1y 9.00',
        },
      ],
    });
    const listed = await cli(env, 'tld', 'list');
    expect(listed.json()).toContainEqual({
      tld: '.net',
      registrar: 'sandbox',
      group: 'default',
      register: '1y 10.00, 2y 19.50, 5y 45.00',
      renew: '1y 12.00, 2y 23.00',
      transfer: '1y 9.00',
    });
    expect((await cli(env, 'tld', 'show', '.nosuch')).stderr).toMatch(/\.nosuch is not on sale/);
  });

  it('shows a reseller: status, group, balance and allow-list', async () => {
    const run = await cli(env, 'reseller', 'show', h.reseller.email);
    expect(run.json()).toMatchObject({
      email: h.reseller.email,
      status: 'active',
      group: 'default',
      balance: '90.00',
      allowedNetworks: [],
    });
  });

  it('names the reseller of each order, and takes --limit and --since', async () => {
    const listed = await cli(env, 'order', 'list', '--limit', '1');
    expect(listed.json()).toEqual([expect.objectContaining({ domain: 'viewed.com', reseller: h.reseller.email })]);
    const shown = await cli(env, 'order', 'show', listed.json()[0].id);
    expect(shown.json()).toMatchObject({ reseller: h.reseller.email });
    expect((await cli(env, 'order', 'list', '--since', '2999-01-01')).json()).toEqual([]);
    expect((await cli(env, 'order', 'list', '--limit', '0')).code).toBe(2);
  });

  it('prints a table for people with --format table, and JSON by default', async () => {
    const table = await cli(env, '--format', 'table', 'reseller', 'list');
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^email\s+status\s+balance$/);
    expect(table.stdout).toMatch(new RegExp(`^${h.reseller.email.replace('.', '\\.')}\\s+active\\s+90\\.00$`, 'm'));
    const shown = await cli(env, 'group', 'show', 'default', '--format', 'table');
    expect(shown.stdout).toMatch(/^premium\s+markup 20\.00%$/m);
    expect(shown.stdout).toMatch(/\nprices:\ntld\s+register\s+renew\s+transfer\n/);
    expect(() => JSON.parse(shown.stdout)).toThrow();
    expect(JSON.parse((await cli(env, 'reseller', 'list')).stdout)).toHaveLength(1);
  });
});

/** Issue 31, item 9: the operator actions that were missing. */
describe('reseller-admin operator actions', () => {
  const setup = harnessForCli();
  let h: Harness;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    ({ h, env } = setup);
  });

  it('changes a TLD’s prices without repeating --registrar, and still wants one for a new TLD', async () => {
    const run = await cli(env, 'tld', 'set', '.com', '--group', 'default', '--renew', '1=13.00');
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ tld: { registrar: 'sandbox' }, prices: { renew: { 1: '13.00' } } });
    const fresh = await cli(env, 'tld', 'set', '.dev', '--group', 'default', '--register', '1=12.00');
    expect(fresh.code).toBe(1);
    expect(fresh.stderr).toMatch(/\.dev is new: give the registrar plugin that serves it/);
  });

  it("removes one period's price, keeping the others, and refuses a period that is not priced", async () => {
    const removeTwoYears = () =>
      cli(env, 'tld', 'remove-price', '.net', '--group', 'default', '--action', 'register', '--period', '2');
    const run = await removeTwoYears();
    expect(run.code).toBe(0);
    expect(run.json().prices.register).toEqual({ 1: '10.00', 5: '45.00' });
    const again = await removeTwoYears();
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/has no register price for \.net for 2 year/);
  });

  it('stops selling a TLD to a group, keeping its renewals', async () => {
    const run = await cli(env, 'tld', 'stop-selling', '.org', '--group', 'default');
    expect(run.code).toBe(0);
    const shown = (await cli(env, 'tld', 'show', '.org')).json();
    expect(shown.prices).toEqual([{ group: 'default', register: null, renew: '1y 12.00, 2y 23.00', transfer: null }]);
  });

  it('moves a reseller to another group and changes its email', async () => {
    expect((await cli(env, 'group', 'create', 'wholesale')).code).toBe(0);
    const moved = await cli(env, 'reseller', 'move', h.reseller.email, '--group', 'wholesale');
    expect(moved.code).toBe(0);
    const changed = await cli(env, 'reseller', 'change-email', h.reseller.email, 'renamed@example.com');
    expect(changed.json()).toEqual({ email: 'renamed@example.com', previousEmail: h.reseller.email });
    expect((await cli(env, 'reseller', 'show', 'renamed@example.com')).json()).toMatchObject({ group: 'wholesale' });
    expect((await cli(env, 'reseller', 'move', 'renamed@example.com', '--group', 'nosuch')).code).toBe(1);
  });
});

describe('reseller-admin group rename and delete', () => {
  const setup = harnessForCli();
  let h: Harness;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    ({ h, env } = setup);
  });

  it('renames a group, keeping its resellers and prices, and refuses a name in use', async () => {
    expect((await cli(env, 'group', 'create', 'taken')).code).toBe(0);
    expect((await cli(env, 'group', 'rename', 'default', 'taken')).stderr).toMatch(/group "taken" already exists/);
    expect((await cli(env, 'group', 'rename', 'default', 'retail')).json()).toMatchObject({ name: 'retail' });
    expect((await cli(env, 'reseller', 'show', h.reseller.email)).json()).toMatchObject({ group: 'retail' });
    expect((await cli(env, 'group', 'show', 'retail')).json().prices).toHaveLength(3);
  });

  it('refuses to delete a group that has resellers, naming them, and deletes one that has none, prices and all', async () => {
    const refused = await cli(env, 'group', 'delete', 'retail');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`still has 1 reseller(s) (${h.reseller.email}): move them first`);
    expect((await cli(env, 'tld', 'set', '.com', '--group', 'taken', '--register', '1=10.00')).code).toBe(0);
    expect((await cli(env, 'group', 'delete', 'taken')).json()).toEqual({ deleted: 'taken' });
    expect((await cli(env, 'group', 'show', 'taken')).code).toBe(1);
    expect((await cli(env, 'tld', 'show', '.com')).json().prices).toEqual([
      expect.objectContaining({ group: 'retail' }),
    ]);
  });
});
