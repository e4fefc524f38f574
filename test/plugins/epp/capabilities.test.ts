import type { EppRegistrar } from '../../../plugins/epp/src/epp-registrar';
import { NS } from '../../../plugins/epp/src/xml';
import { makeTestCertificates, type TestCertificates } from '../../support/epp/certificates';
import { clTRIDFor, REGISTRANT, startEppFixture, type EppFixture } from '../../support/epp/epp-fixture';

const order = (domain: string, extra: Record<string, unknown> = {}) => ({
  domain,
  period: 1,
  nameservers: ['ns1.host.net', 'ns2.host.net'],
  contacts: { registrant: REGISTRANT },
  addons: {},
  fields: {},
  ...extra,
});

describe('EPP registrar capabilities against the test registry', () => {
  let f: EppFixture;
  let certificates: TestCertificates;
  beforeAll(() => {
    certificates = makeTestCertificates();
  });
  afterAll(() => certificates.remove());
  let plugin: EppRegistrar;
  beforeEach(async () => {
    f = await startEppFixture({ certificates, reserved: ['reserved.test'] });
    plugin = await f.plugin();
  });
  afterEach(async () => {
    const errors = f.server.protocolErrors;
    await f.close();
    expect(errors).toEqual([]);
  });

  const register = async (domain: string, extra: Record<string, unknown> = {}) => {
    const outcome = await plugin.register(order(domain, extra), f.ctx());
    expect(outcome).toMatchObject({ ok: true });
    return outcome;
  };

  describe('availability (domain check)', () => {
    it('checks many names in batches and keeps their order', async () => {
      f.server.registry.seedDomain('taken.test', { sponsor: 'registrar-b' });
      const names = ['taken.test', 'reserved.test', ...Array.from({ length: 10 }, (_, i) => `free${i}.test`)];
      const results = await plugin.checkAvailability(names, f.ctx());
      expect(results.map((r) => r.domain)).toEqual(names);
      expect(results.slice(0, 3).map((r) => r.status)).toEqual(['registered', 'reserved', 'available']);
      expect(f.server.commands('domain:check')).toHaveLength(3);
    });

    it('splits a batch the registry refuses as too large and answers every name', async () => {
      const wide = await f.plugin({ checkBatchSize: 10 });
      const results = await wide.checkAvailability(
        Array.from({ length: 8 }, (_, i) => `x${i}.test`),
        f.ctx(),
      );
      expect(new Set(results.map((r) => r.status))).toEqual(new Set(['available']));
      // Refused with a reason that names no name: halved into two checks of 4.
      expect(f.server.commands('domain:check').map((c) => c.code)).toEqual([2306, 1000, 1000]);
    });
  });

  describe('register (domain create)', () => {
    it('creates the contacts and external hosts first, then the domain', async () => {
      const ctx = f.ctx();
      await expect(plugin.register(order('shop.test', { period: 2 }), ctx)).resolves.toEqual({
        ok: true,
        expiryDate: '2028-11-21',
      });
      expect(f.server.received.map((r) => r.command)).toEqual([
        'login',
        'host:check',
        'host:create',
        'host:create',
        'contact:create',
        'domain:create',
      ]);
      const d = f.server.registry.domains.get('shop.test')!;
      expect(d.sponsor).toBe('registrar-a');
      expect(d.hostObjects).toEqual(['ns1.host.net', 'ns2.host.net']);
      // Admin and tech were left out, so the registrant's contact holds them.
      expect(d.contacts).toEqual([
        { type: 'admin', id: d.registrant },
        { type: 'tech', id: d.registrant },
        { type: 'billing', id: d.registrant },
      ]);
      const contact = await plugin.contacts.get({ domain: 'shop.test' }, f.ctx());
      expect(contact).toMatchObject({
        ok: true,
        contacts: {
          registrant: {
            fullname: 'Ada Lovelace',
            companyname: 'Analytical Engines Ltd',
            phonenumber: '+44.2071234567',
            country: 'GB',
            postcode: 'N1 1AA',
            address2: 'Floor 2',
          },
        },
      });
    });

    it('creates a separate contact for each different role', async () => {
      const tech = { ...REGISTRANT, firstname: 'Charles', lastname: 'Babbage', email: 'cb@example.com' };
      await register('roles.test', { contacts: { registrant: REGISTRANT, tech } });
      expect(f.server.commands('contact:create')).toHaveLength(2);
      const d = f.server.registry.domains.get('roles.test')!;
      expect(d.contacts.find((c) => c.type === 'tech')!.id).not.toBe(d.registrant);
    });

    it('reuses host objects that exist', async () => {
      await register('one.test');
      await register('two.test');
      expect(f.server.commands('host:create')).toHaveLength(2);
    });

    it('answers unavailable for a name that exists (2302)', async () => {
      f.server.registry.seedDomain('taken.test', { sponsor: 'registrar-b' });
      const outcome = await plugin.register(order('taken.test'), f.ctx());
      expect(outcome).toMatchObject({ ok: false, reason: 'unavailable' });
      expect(f.server.registry.contacts.size).toBe(0);
    });

    it("relays the registry's policy reason (2306) and removes the contacts it made", async () => {
      const outcome = await plugin.register(order('policy-name.test'), f.ctx());
      expect(outcome).toEqual({
        ok: false,
        reason: 'refused',
        message:
          'registry policy refused policy-name.test: Parameter value policy error: Names starting with policy- are not allowed here (EPP 2306)',
      });
      expect(f.server.registry.contacts.size).toBe(0);
    });

    it('answers pending (1001) for a registry that completes later, and sync settles it', async () => {
      const outcome = await plugin.register(order('pending-shop.test'), f.ctx());
      expect(outcome).toMatchObject({ ok: false, reason: 'pending' });
      await expect(plugin.domainSync.sync({ domain: 'pending-shop.test' }, f.ctx())).resolves.toMatchObject({
        ok: false,
        reason: 'pending',
      });
      f.server.registry.completePendingCreate('pending-shop.test', true);
      await expect(plugin.domainSync.sync({ domain: 'pending-shop.test' }, f.ctx())).resolves.toMatchObject({
        ok: true,
        active: true,
      });
    });

    it('reports a refused pending create as not at the registry, so the order can be refunded', async () => {
      await plugin.register(order('pending-no.test'), f.ctx());
      f.server.registry.completePendingCreate('pending-no.test', false);
      await expect(plugin.domainSync.sync({ domain: 'pending-no.test' }, f.ctx())).resolves.toEqual({
        ok: true,
        active: false,
        expired: false,
        transferredAway: false,
        cancelled: true,
      });
      const [message] = await plugin.pollMessages(f.ctx());
      expect(message).toBeUndefined(); // sync already took it off the queue
      expect(f.server.registry.queueLength('registrar-a')).toBe(0);
    });

    it('refuses a nameserver under the new domain that does not exist yet, before creating anything', async () => {
      const outcome = await plugin.register(
        order('glue.test', { nameservers: ['ns1.glue.test', 'ns2.host.net'] }),
        f.ctx(),
      );
      expect(outcome).toMatchObject({
        ok: false,
        reason: 'refused',
        message: expect.stringMatching(/ns1.glue.test is under glue.test/),
      });
      expect(f.server.commands('domain:create')).toHaveLength(0);
      expect(f.server.commands('contact:create')).toHaveLength(0);
    });

    it('refuses contact data the registry could not take, before sending anything', async () => {
      const outcome = await plugin.register(
        order('bad.test', { contacts: { registrant: { ...REGISTRANT, phonenumber: '020 7123 4567' } } }),
        f.ctx(),
      );
      expect(outcome).toMatchObject({
        ok: false,
        reason: 'refused',
        message: expect.stringMatching(/registrant phonenumber must be an international number/),
      });
      expect(f.server.received.filter((r) => r.command !== 'login')).toEqual([]);
    });

    it('refuses a registration without a registrant', async () => {
      await expect(plugin.register(order('nobody.test', { contacts: {} }), f.ctx())).resolves.toMatchObject({
        ok: false,
        message: 'a registrant contact is required',
      });
    });

    it('carries hostile contact text through exactly', async () => {
      const hostile = {
        ...REGISTRANT,
        companyname: '<script>alert("x")</script> & Co',
        address1: "O'Brien ]]> Street",
      };
      await register('hostile.test', { contacts: { registrant: hostile } });
      const back = await plugin.contacts.get({ domain: 'hostile.test' }, f.ctx());
      expect(back).toMatchObject({
        ok: true,
        contacts: { registrant: { companyname: hostile.companyname, address1: hostile.address1 } },
      });
    });

    it('sends DS records from the TLD fields (secDNS-1.1) and reads them back', async () => {
      await register('signed.test', {
        fields: { dsRecords: [{ keyTag: 2371, algorithm: 13, digestType: 2, digest: '1f987cc6583e92df0890718c42' }] },
      });
      const info = await plugin.domainInformation.get({ domain: 'signed.test' }, f.ctx());
      expect(info).toMatchObject({
        ok: true,
        extra: { dsRecords: [{ keyTag: 2371, algorithm: 13, digestType: 2, digest: '1F987CC6583E92DF0890718C42' }] },
      });
      await expect(plugin.saveDsRecords({ domain: 'signed.test', records: [] }, f.ctx())).resolves.toEqual({
        ok: true,
      });
      expect(f.server.registry.domains.get('signed.test')!.dsRecords).toEqual([]);
    });

    it('uses host attributes with a registry that has no host objects', async () => {
      await f.close();
      f = await startEppFixture({ certificates, hostObjects: false });
      plugin = await f.plugin();
      await register('attrs.test');
      expect(f.server.registry.domains.get('attrs.test')!.hostAttributes).toEqual(['ns1.host.net', 'ns2.host.net']);
      expect(f.server.received.some((r) => r.command.startsWith('host:'))).toBe(false);
      await expect(
        plugin.nameservers.save({ domain: 'attrs.test', nameservers: ['ns1.host.net', 'ns3.host.net'] }, f.ctx()),
      ).resolves.toEqual({ ok: true });
      await expect(plugin.nameservers.get({ domain: 'attrs.test' }, f.ctx())).resolves.toEqual({
        ok: true,
        nameservers: ['ns1.host.net', 'ns3.host.net'],
      });
      await expect(
        plugin.childHosts.register({ domain: 'attrs.test', host: 'ns1.attrs.test', ipAddress: '192.0.2.1' }, f.ctx()),
      ).resolves.toMatchObject({ ok: false, reason: 'refused' });
    });

    it('sends no contacts to a thin registry', async () => {
      await f.close();
      f = await startEppFixture({ certificates, contacts: false });
      plugin = await f.plugin();
      await register('thin.test');
      expect(f.server.registry.domains.get('thin.test')!.registrant).toBeUndefined();
      expect(f.server.commands('contact:create')).toHaveLength(0);
    });
  });

  describe('renew', () => {
    it('renews from the expiry date the registry holds', async () => {
      await register('renew.test');
      await expect(
        plugin.renew({ domain: 'renew.test', period: 2, currentExpiryDate: '2027-11-21' }, f.ctx()),
      ).resolves.toEqual({ ok: true, expiryDate: '2029-11-21' });
      // A stale platform date does not matter: the registry's is sent.
      await expect(
        plugin.renew({ domain: 'renew.test', period: 1, currentExpiryDate: '2020-01-01' }, f.ctx()),
      ).resolves.toEqual({ ok: true, expiryDate: '2030-11-21' });
    });

    it("refuses to renew another registrar's domain (2201)", async () => {
      f.server.registry.seedDomain('theirs.test', { sponsor: 'registrar-b' });
      await expect(
        plugin.renew({ domain: 'theirs.test', period: 1, currentExpiryDate: null }, f.ctx()),
      ).resolves.toMatchObject({ ok: false, reason: 'refused', message: expect.stringMatching(/authorisation/) });
    });

    it("relays the registry's refusal of a renewal past ten years", async () => {
      await register('long.test', { period: 9 });
      await expect(
        plugin.renew({ domain: 'long.test', period: 5, currentExpiryDate: null }, f.ctx()),
      ).resolves.toMatchObject({ ok: false, message: expect.stringMatching(/more than 10 years/) });
    });

    it('restores a deleted domain in redemption before renewing it', async () => {
      await register('back.test');
      await plugin.delete.delete({ domain: 'back.test' }, f.ctx());
      const ctx = f.ctx();
      await expect(
        plugin.renew({ domain: 'back.test', period: 1, currentExpiryDate: '2027-11-21' }, ctx),
      ).resolves.toEqual({ ok: true, expiryDate: '2028-11-21' });
      expect(f.server.commands('domain:renew')[0]!.clTRID).toMatch(clTRIDFor(ctx.transactionId));
      expect(f.server.registry.domains.get('back.test')!.statuses.has('pendingDelete')).toBe(false);
    });
  });

  describe('transfer and transfer sync (with poll)', () => {
    beforeEach(() => {
      f.server.registry.seedDomain('move.test', { sponsor: 'registrar-b', authInfo: 'Move#Me-2026' });
    });

    it('refuses a wrong EPP code (2202)', async () => {
      const outcome = await plugin.transfer.transfer({ ...order('move.test'), eppCode: 'wrong' }, f.ctx());
      expect(outcome).toMatchObject({
        ok: false,
        reason: 'refused',
        message: expect.stringMatching(/authorisation.*Invalid authorization information/),
      });
    });

    it('requests the transfer (pending) and completes it once approved', async () => {
      const ctx = f.ctx();
      await expect(
        plugin.transfer.transfer({ ...order('move.test'), eppCode: 'Move#Me-2026' }, ctx),
      ).resolves.toMatchObject({ ok: false, reason: 'pending' });
      expect(f.server.commands('domain:transfer')[0]!.clTRID).toMatch(clTRIDFor(ctx.transactionId));
      await expect(plugin.transferSync.sync({ domain: 'move.test' }, f.ctx())).resolves.toEqual({
        ok: true,
        completed: false,
        failed: false,
      });
      f.server.registry.resolveTransfer('move.test', 'clientApproved');
      await expect(plugin.transferSync.sync({ domain: 'move.test' }, f.ctx())).resolves.toEqual({
        ok: true,
        completed: true,
        failed: false,
        expiryDate: '2028-11-21',
      });
      expect(f.server.registry.domains.get('move.test')!.sponsor).toBe('registrar-a');
      expect(f.server.registry.queueLength('registrar-a')).toBe(0);
    });

    it('reports a rejected transfer as failed with the reason', async () => {
      await plugin.transfer.transfer({ ...order('move.test'), eppCode: 'Move#Me-2026' }, f.ctx());
      f.server.registry.resolveTransfer('move.test', 'clientRejected');
      await expect(plugin.transferSync.sync({ domain: 'move.test' }, f.ctx())).resolves.toEqual({
        ok: true,
        completed: false,
        failed: true,
        reason: 'the transfer was rejected by the losing registrar',
      });
    });

    it('reads and acknowledges poll messages about the transfer', async () => {
      await plugin.transfer.transfer({ ...order('move.test'), eppCode: 'Move#Me-2026' }, f.ctx());
      f.server.registry.resolveTransfer('move.test', 'serverApproved');
      const messages = await plugin.pollMessages(f.ctx());
      expect(messages).toEqual([
        expect.objectContaining({
          domain: 'move.test',
          transfer: expect.objectContaining({ status: 'serverApproved', requestedBy: 'registrar-a' }),
        }),
      ]);
      expect(f.server.registry.queueLength('registrar-a')).toBe(0);
      await expect(plugin.pollMessages(f.ctx())).resolves.toEqual([]);
    });

    it('answers sync on a domain still coming in by transfer with pending, not transferred away', async () => {
      await plugin.transfer.transfer({ ...order('move.test'), eppCode: 'Move#Me-2026' }, f.ctx());
      await expect(plugin.domainSync.sync({ domain: 'move.test' }, f.ctx())).resolves.toMatchObject({
        ok: false,
        reason: 'pending',
      });
    });

    it('reports a transfer nobody requested as failed', async () => {
      await expect(plugin.transferSync.sync({ domain: 'move.test' }, f.ctx())).resolves.toMatchObject({
        ok: true,
        completed: false,
        failed: true,
      });
    });
  });

  describe('lock, nameservers, child hosts, EPP code', () => {
    beforeEach(async () => {
      await register('manage.test');
    });

    it('locks and unlocks with clientTransferProhibited', async () => {
      await expect(plugin.registrarLock.save({ domain: 'manage.test', locked: true }, f.ctx())).resolves.toEqual({
        ok: true,
      });
      expect([...f.server.registry.domains.get('manage.test')!.statuses]).toEqual(['clientTransferProhibited']);
      await expect(plugin.registrarLock.get({ domain: 'manage.test' }, f.ctx())).resolves.toEqual({
        ok: true,
        locked: true,
      });
      await expect(plugin.registrarLock.save({ domain: 'manage.test', locked: true }, f.ctx())).resolves.toEqual({
        ok: true,
      });
      expect(f.server.commands('domain:update')).toHaveLength(1);
      await expect(plugin.registrarLock.save({ domain: 'manage.test', locked: false }, f.ctx())).resolves.toEqual({
        ok: true,
      });
      await expect(plugin.registrarLock.get({ domain: 'manage.test' }, f.ctx())).resolves.toEqual({
        ok: true,
        locked: false,
      });
    });

    it('locks with every configured status', async () => {
      const strict = await f.plugin({ lockStatuses: ['clientTransferProhibited', 'clientDeleteProhibited'] });
      await strict.registrarLock.save({ domain: 'manage.test', locked: true }, f.ctx());
      expect([...f.server.registry.domains.get('manage.test')!.statuses].sort()).toEqual([
        'clientDeleteProhibited',
        'clientTransferProhibited',
      ]);
      await expect(strict.delete.delete({ domain: 'manage.test' }, f.ctx())).resolves.toMatchObject({
        ok: false,
        message: expect.stringMatching(/status prohibits deletion/),
      });
    });

    it('replaces nameservers with one update, creating the new host objects', async () => {
      await expect(
        plugin.nameservers.save(
          { domain: 'manage.test', nameservers: ['ns2.host.net', 'ns3.other.net', 'NS4.Other.NET'] },
          f.ctx(),
        ),
      ).resolves.toEqual({ ok: true });
      await expect(plugin.nameservers.get({ domain: 'manage.test' }, f.ctx())).resolves.toEqual({
        ok: true,
        nameservers: ['ns2.host.net', 'ns3.other.net', 'ns4.other.net'],
      });
      expect(f.server.commands('domain:update')).toHaveLength(1);
    });

    it('registers, modifies and deletes child nameservers', async () => {
      await expect(
        plugin.childHosts.register(
          { domain: 'manage.test', host: 'ns1.manage.test', ipAddress: '192.0.2.53' },
          f.ctx(),
        ),
      ).resolves.toEqual({ ok: true });
      expect(f.server.registry.hosts.get('ns1.manage.test')!.addresses).toEqual([{ ip: 'v4', address: '192.0.2.53' }]);
      await expect(
        plugin.childHosts.modify(
          {
            domain: 'manage.test',
            host: 'ns1.manage.test',
            currentIpAddress: '192.0.2.53',
            newIpAddress: '2001:DB8::53',
          },
          f.ctx(),
        ),
      ).resolves.toEqual({ ok: true });
      expect(f.server.registry.hosts.get('ns1.manage.test')!.addresses).toEqual([
        { ip: 'v6', address: '2001:db8::53' },
      ]);
      await plugin.nameservers.save(
        { domain: 'manage.test', nameservers: ['ns1.manage.test', 'ns2.host.net'] },
        f.ctx(),
      );
      await expect(
        plugin.childHosts.delete({ domain: 'manage.test', host: 'ns1.manage.test' }, f.ctx()),
      ).resolves.toMatchObject({ ok: false, message: expect.stringMatching(/association.*nameserver of a domain/) });
      await plugin.nameservers.save({ domain: 'manage.test', nameservers: ['ns1.host.net', 'ns2.host.net'] }, f.ctx());
      await expect(
        plugin.childHosts.delete({ domain: 'manage.test', host: 'ns1.manage.test' }, f.ctx()),
      ).resolves.toEqual({ ok: true });
      expect(f.server.registry.hosts.has('ns1.manage.test')).toBe(false);
    });

    it('refuses a child nameserver outside the domain or with a bad address, without asking the registry', async () => {
      await expect(
        plugin.childHosts.register(
          { domain: 'manage.test', host: 'ns1.elsewhere.test', ipAddress: '192.0.2.1' },
          f.ctx(),
        ),
      ).resolves.toMatchObject({ ok: false, message: expect.stringMatching(/not under manage.test/) });
      await expect(
        plugin.childHosts.register({ domain: 'manage.test', host: 'ns1.manage.test', ipAddress: '300.1.1.1' }, f.ctx()),
      ).resolves.toMatchObject({ ok: false, message: expect.stringMatching(/not an IP address/) });
      expect(f.server.commands('host:create')).toHaveLength(2); // the two external hosts of the registration only
    });

    it('reads the EPP code, and sets one when the registry shows none', async () => {
      const { authInfo } = f.server.registry.domains.get('manage.test')!;
      await expect(plugin.eppCode.get({ domain: 'manage.test' }, f.ctx())).resolves.toEqual({
        ok: true,
        eppCode: authInfo,
      });
      f.server.registry.domains.get('manage.test')!.authInfo = '';
      const fresh = await plugin.eppCode.get({ domain: 'manage.test' }, f.ctx());
      expect(fresh).toMatchObject({ ok: true, eppCode: expect.stringMatching(/^.{24}$/) });
      expect(f.server.registry.domains.get('manage.test')!.authInfo).toBe((fresh as { eppCode: string }).eppCode);
    });

    it("refuses to show or change another registrar's domain", async () => {
      f.server.registry.seedDomain('other.test', { sponsor: 'registrar-b' });
      await expect(plugin.eppCode.get({ domain: 'other.test' }, f.ctx())).resolves.toMatchObject({
        ok: false,
        reason: 'refused',
      });
      await expect(plugin.registrarLock.save({ domain: 'other.test', locked: true }, f.ctx())).resolves.toMatchObject({
        ok: false,
        reason: 'refused',
      });
      await expect(plugin.nameservers.get({ domain: 'nowhere.test' }, f.ctx())).resolves.toMatchObject({
        ok: false,
        message: expect.stringMatching(/does not exist/),
      });
    });
  });

  describe('information and contacts', () => {
    beforeEach(async () => {
      await register('info.test');
    });

    it('gives the domain information of docs/api.md#domain-information', async () => {
      await plugin.registrarLock.save({ domain: 'info.test', locked: true }, f.ctx());
      await expect(plugin.domainInformation.get({ domain: 'info.test' }, f.ctx())).resolves.toMatchObject({
        ok: true,
        nameservers: ['ns1.host.net', 'ns2.host.net'],
        transferLock: true,
        expiryDate: '2027-11-21',
        registrationStatus: 'Active',
        restorable: false,
        registrantEmail: 'ada@example.com',
        extra: { eppStatuses: ['clientTransferProhibited'], rgpStatuses: ['addPeriod'] },
      });
    });

    it('updates the registrant contact in place and adds a new billing contact', async () => {
      const before = f.server.registry.domains.get('info.test')!.registrant;
      const billing = { ...REGISTRANT, firstname: 'Bill', lastname: 'Payer', email: 'bill@example.com' };
      await expect(
        plugin.contacts.save(
          { domain: 'info.test', contacts: { registrant: { ...REGISTRANT, email: 'new@example.com' }, billing } },
          f.ctx(),
        ),
      ).resolves.toEqual({ ok: true });
      expect(f.server.commands('contact:update')).toHaveLength(0); // shared by four roles: a new contact, not an edit
      const d = f.server.registry.domains.get('info.test')!;
      expect(d.registrant).not.toBe(before);
      const got = await plugin.contacts.get({ domain: 'info.test' }, f.ctx());
      expect(got).toMatchObject({
        ok: true,
        contacts: {
          registrant: { email: 'new@example.com' },
          billing: { fullname: 'Bill Payer' },
          admin: { email: 'ada@example.com' },
        },
      });
      await expect(
        plugin.contacts.save(
          { domain: 'info.test', contacts: { registrant: { ...REGISTRANT, city: 'Cambridge' } } },
          f.ctx(),
        ),
      ).resolves.toEqual({ ok: true });
      expect(f.server.commands('contact:update')).toHaveLength(1);
      expect(f.server.registry.domains.get('info.test')!.registrant).toBe(d.registrant);
      await expect(plugin.contacts.get({ domain: 'info.test' }, f.ctx())).resolves.toMatchObject({
        contacts: { registrant: { city: 'Cambridge' } },
      });
    });
  });

  describe('delete, restore and sync', () => {
    beforeEach(async () => {
      await register('gone.test');
    });

    it('deletes into the redemption period, which sync reports as cancelled', async () => {
      await expect(plugin.delete.delete({ domain: 'gone.test' }, f.ctx())).resolves.toEqual({ ok: true });
      await expect(plugin.domainSync.sync({ domain: 'gone.test' }, f.ctx())).resolves.toEqual({
        ok: true,
        active: false,
        expired: false,
        transferredAway: false,
        cancelled: true,
        expiryDate: '2027-11-21',
      });
      await expect(plugin.domainInformation.get({ domain: 'gone.test' }, f.ctx())).resolves.toMatchObject({
        registrationStatus: 'Redemption',
        restorable: true,
      });
      f.server.registry.purge('gone.test');
      await expect(plugin.domainSync.sync({ domain: 'gone.test' }, f.ctx())).resolves.toMatchObject({
        ok: true,
        cancelled: true,
        active: false,
      });
    });

    it('refuses to delete a domain with child nameservers (2305)', async () => {
      await plugin.childHosts.register({ domain: 'gone.test', host: 'ns1.gone.test', ipAddress: '192.0.2.1' }, f.ctx());
      await expect(plugin.delete.delete({ domain: 'gone.test' }, f.ctx())).resolves.toMatchObject({
        ok: false,
        reason: 'refused',
        message: expect.stringMatching(/Delete the child nameservers first/),
      });
    });

    it('restores a deleted domain (RGP request)', async () => {
      await plugin.delete.delete({ domain: 'gone.test' }, f.ctx());
      await expect(plugin.restore({ domain: 'gone.test' }, f.ctx())).resolves.toEqual({ ok: true });
      await expect(plugin.domainSync.sync({ domain: 'gone.test' }, f.ctx())).resolves.toMatchObject({
        ok: true,
        active: true,
        cancelled: false,
      });
      await expect(plugin.restore({ domain: 'gone.test' }, f.ctx())).resolves.toMatchObject({
        ok: false,
        message: expect.stringMatching(/not in its redemption period/),
      });
    });

    it('sends the restore report where the registry requires one', async () => {
      await f.close();
      f = await startEppFixture({ certificates, requireRestoreReport: true });
      const reporting = await f.plugin({ restoreReport: true });
      await expect(reporting.register(order('gone.test'), f.ctx())).resolves.toMatchObject({ ok: true });
      await reporting.delete.delete({ domain: 'gone.test' }, f.ctx());
      await expect(
        reporting.restore({ domain: 'gone.test', reason: 'Registrant asked for it back.' }, f.ctx()),
      ).resolves.toEqual({ ok: true });
      expect(f.server.commands('domain:update')).toHaveLength(2);
      expect(f.server.registry.domains.get('gone.test')!.rgp.size).toBe(0);
    });

    it('reports an expired domain', async () => {
      f.clock.set('2028-01-10T00:00:00Z');
      await expect(plugin.domainSync.sync({ domain: 'gone.test' }, f.ctx())).resolves.toEqual({
        ok: true,
        active: false,
        expired: true,
        transferredAway: false,
        cancelled: false,
        expiryDate: '2027-11-21',
      });
    });

    it('reports a domain another registrar took away, and takes the poll message about it off the queue', async () => {
      f.server.registry.transferAway('gone.test', 'registrar-b');
      await expect(plugin.domainSync.sync({ domain: 'gone.test' }, f.ctx())).resolves.toEqual({
        ok: true,
        active: false,
        expired: false,
        transferredAway: true,
      });
      expect(f.server.registry.queueLength('registrar-a')).toBe(0);
    });
  });

  it('logs in with the RGP and DNSSEC extensions the registry offers', async () => {
    await register('ext.test');
    expect(f.server.registry.logins[0]!.extensions).toEqual([NS.secDNS, NS.rgp]);
  });
});
