import { parseDomainName } from '../../src/core/domain/domain-name';
import { givenDomain, platformRecord } from '../support/domains';
import { startHarness, type Harness } from '../support/harness';
import { form } from '../support/wire';

const REGISTRANT = {
  'First Name': 'Ada',
  'Last Name': 'Lovelace',
  'Email Address': 'Ada@Example.com',
  'Address 1': '1 Analytical Row',
  City: 'London',
  Postcode: 'N1 1AA',
  Country: 'gb',
  'Phone Number': '+44.2000000000',
};

describe('domain management endpoints', () => {
  let h: Harness;
  const post = (path: string, body: Record<string, unknown> = {}) =>
    h.http.post(path).set(h.headers()).type('form').send(form(body));
  const get = (path: string) => h.http.get(path).set(h.headers());
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  describe('GET /domains/{domain}/information', () => {
    it('answers docs/api.md#domain-information plus status, leaving unknown dates out', async () => {
      await givenDomain(h.module, 'info.com', { addons: { dnsManagement: true } });
      const res = await get('/domains/info.com/information');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        domain: 'info.com',
        nameservers: ['ns1.sandbox.test', 'ns2.sandbox.test'],
        transferLock: true,
        expiryDate: '2027-11-21T00:00:00Z',
        registrationStatus: 'Active',
        status: 'Active',
        restorable: false,
        renewBeforeExpiration: true,
        idProtectionStatus: false,
        dnsManagementStatus: true,
        emailForwardingStatus: false,
        irtpOptOutStatus: false,
        irtpTransferLock: false,
        domainContactChangePending: false,
        willDomainSuspend: false,
        isIrtpEnabled: false,
        irtpVerificationTriggerFields: [],
        registrantEmailAddress: 'ada@example.com',
      });
    });

    it.each([
      ['upper case', 'info-case.com', 'INFO-CASE.COM'],
      ['percent-encoded Unicode', 'bücher-encoded.com', encodeURIComponent('bücher-encoded.com')],
      ['punycode', 'bücher-puny.com', parseDomainName('bücher-puny.com').ascii],
      ['Unicode in upper case', 'bücher-raw.com', 'BÜCHER-RAW.COM'],
    ])('finds the domain whatever the form of the name in the path: %s', async (_label, name, inPath) => {
      await givenDomain(h.module, name);
      const res = await h.http.get(`/domains/${inPath}/information`).set(h.headers());
      expect(res.status).toBe(200);
      expect(res.body.domain).toBe(name);
    });

    it('records what the registrar said: nameservers, lock and expiry', async () => {
      await givenDomain(h.module, 'records.com', {
        nameservers: ['ns1.old.test', 'ns2.old.test'],
        expiryDate: null,
        atRegistrar: true,
      });
      await h.module.registrars
        .get('sandbox')
        .nameservers!.save(
          { domain: 'records.com', nameservers: ['ns1.new.test', 'ns2.new.test'] },
          { signal: new AbortController().signal, transactionId: 't' },
        );
      await get('/domains/records.com/information');
      expect(await platformRecord(h.module, 'records.com')).toMatchObject({
        nameservers: ['ns1.new.test', 'ns2.new.test'],
        transferLock: true,
        expiryDate: '2027-11-21',
      });
    });

    it('refuses an invalid domain in the path with 400', async () => {
      const res = await get('/domains/not_a_domain.com/information');
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/not a valid domain name/);
    });

    it('refuses a body domain that differs from the path with 400', async () => {
      await givenDomain(h.module, 'mismatch.com');
      const res = await h.http
        .post('/domains/mismatch.com/sync')
        .set(h.headers())
        .type('form')
        .send('domain=other.com');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'domain in the request ("other.com") differs from the domain in the path ("mismatch.com")',
      });
    });

    it('accepts a body domain that repeats the path in another form', async () => {
      await givenDomain(h.module, 'bücher-repeat.com');
      const res = await h.http
        .get(`/domains/${parseDomainName('bücher-repeat.com').ascii}/information`)
        .set(h.headers())
        .type('form')
        .send(`domain=${encodeURIComponent('BÜCHER-repeat.com')}`);
      expect(res.status).toBe(200);
    });

    it("answers 502 with the registrar's message when the registrar refuses", async () => {
      await givenDomain(h.module, 'unknown-there.com', { atRegistrar: false });
      const res = await get('/domains/unknown-there.com/information');
      expect(res.status).toBe(502);
      expect(res.body).toEqual({
        error: 'Registrar sandbox refused: unknown-there.com is not registered at the sandbox registry',
      });
    });
  });

  describe('DNS records', () => {
    it('saves one record sent without a list and reads it back', async () => {
      await givenDomain(h.module, 'dns-one.com');
      const saved = await post('/domains/dns-one.com/dns', {
        domain: 'dns-one.com',
        dnsrecords: { hostname: 'www', type: 'A', address: '192.0.2.10', priority: 'N/A' },
      });
      expect(saved.status).toBe(200);
      expect(saved.body).toEqual({ success: true });
      const res = await get('/domains/dns-one.com/dns');
      expect(res.body).toEqual([{ hostname: 'www', type: 'A', address: '192.0.2.10', priority: 'N/A', recid: '1' }]);
    });

    it('saves a list of every type, with billing-platform priorities and record ids, skipping blank rows', async () => {
      await givenDomain(h.module, 'dns-all.com');
      const records = [
        { hostname: '@', type: 'A', address: '192.0.2.1', priority: 'N/A', recid: '7' },
        { hostname: '@', type: 'AAAA', address: '2001:DB8::1', priority: '' },
        { hostname: 'www', type: 'CNAME', address: 'dns-all.com.', priority: 'N/A' },
        { hostname: '@', type: 'MX', address: 'mail.example.net', priority: '10' },
        { hostname: '@', type: 'TXT', address: 'v=spf1 -all', priority: 'N/A' },
        { hostname: 'sub', type: 'NS', address: 'ns1.example.net', priority: 'N/A' },
        { hostname: '_sip._tcp', type: 'SRV', address: '5 5060 sip.example.net', priority: '10' },
        { hostname: '@', type: 'CAA', address: '0 issue "letsencrypt.org"', priority: 'N/A' },
        { hostname: 'go', type: 'URL', address: 'https://example.net/landing', priority: 'N/A' },
        { hostname: 'frame', type: 'FRAME', address: 'example.net', priority: 'N/A' },
        { hostname: '', type: 'A', address: '', priority: 'N/A' },
      ];
      const saved = await post('/domains/dns-all.com/dns', { dnsrecords: records });
      expect(saved.status).toBe(200);
      const res = await get('/domains/dns-all.com/dns');
      expect(res.body).toEqual([
        { hostname: '@', type: 'A', address: '192.0.2.1', priority: 'N/A', recid: '7' },
        { hostname: '@', type: 'AAAA', address: '2001:db8::1', priority: 'N/A', recid: '1' },
        { hostname: 'www', type: 'CNAME', address: 'dns-all.com', priority: 'N/A', recid: '2' },
        { hostname: '@', type: 'MX', address: 'mail.example.net', priority: '10', recid: '3' },
        { hostname: '@', type: 'TXT', address: 'v=spf1 -all', priority: 'N/A', recid: '4' },
        { hostname: 'sub', type: 'NS', address: 'ns1.example.net', priority: 'N/A', recid: '5' },
        { hostname: '_sip._tcp', type: 'SRV', address: '5 5060 sip.example.net', priority: '10', recid: '6' },
        { hostname: '@', type: 'CAA', address: '0 issue "letsencrypt.org"', priority: 'N/A', recid: '7' },
        { hostname: 'go', type: 'URL', address: 'https://example.net/landing', priority: 'N/A', recid: '8' },
        { hostname: 'frame', type: 'FRAME', address: 'http://example.net/', priority: 'N/A', recid: '9' },
      ]);
    });

    it('clears the zone when no records are sent (PHP drops an empty list)', async () => {
      await givenDomain(h.module, 'dns-clear.com');
      await post('/domains/dns-clear.com/dns', { dnsrecords: [{ hostname: '@', type: 'A', address: '192.0.2.1' }] });
      expect((await post('/domains/dns-clear.com/dns', { domain: 'dns-clear.com' })).status).toBe(200);
      expect((await get('/domains/dns-clear.com/dns')).body).toEqual([]);
    });

    it.each([
      ['an A record with an IPv6 address', { hostname: '@', type: 'A', address: '2001:db8::1' }, /IPv4/],
      ['an AAAA record with an IPv4 address', { hostname: '@', type: 'AAAA', address: '192.0.2.1' }, /IPv6/],
      [
        'an MX record without a priority',
        { hostname: '@', type: 'MX', address: 'mail.example.net', priority: 'N/A' },
        /priority/,
      ],
      ['a CNAME at the apex', { hostname: '@', type: 'CNAME', address: 'example.net' }, /CNAME/],
      [
        'a CNAME to something that is not a host',
        { hostname: 'www', type: 'CNAME', address: 'not a host' },
        /host name/,
      ],
      [
        'an SRV record without port and target',
        { hostname: '_sip._tcp', type: 'SRV', address: '5', priority: '10' },
        /SRV/,
      ],
      ['a CAA record with an unknown tag', { hostname: '@', type: 'CAA', address: '0 issuer "ca.example"' }, /CAA/],
      ['a URL record that is not a web address', { hostname: 'go', type: 'URL', address: 'ftp://example.net' }, /http/],
      ['an unsupported type', { hostname: '@', type: 'PTR', address: 'example.net' }, /not supported/],
      ['a hostname with spaces', { hostname: 'a b', type: 'A', address: '192.0.2.1' }, /record name/],
      [
        'an out-of-range priority',
        { hostname: '@', type: 'MX', address: 'mail.example.net', priority: '70000' },
        /0 to 65535/,
      ],
    ])('refuses %s with 400', async (_label, record, message) => {
      await givenDomain(h.module, 'dns-bad.com').catch(() => undefined);
      const res = await post('/domains/dns-bad.com/dns', { dnsrecords: [record] });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^dnsrecords\[0\]: /);
      expect(res.body.error).toMatch(message);
    });
  });

  describe('sync and transfer sync', () => {
    it('answers docs/api.md#domain-sync with the expiry date', async () => {
      await givenDomain(h.module, 'sync.com');
      const res = await post('/domains/sync.com/sync', { domain: 'sync.com' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        active: true,
        expired: false,
        transferredAway: false,
        cancelled: false,
        expirydate: '2027-11-21',
      });
    });

    it('records the expiry the registrar holds', async () => {
      await givenDomain(h.module, 'sync-expiry.com', { expiryDate: '2027-01-01' });
      await post('/domains/sync-expiry.com/sync');
      expect(await platformRecord(h.module, 'sync-expiry.com')).toMatchObject({
        status: 'Active',
        expiryDate: '2027-11-21',
      });
    });

    it('marks a domain the registrar reports expired as Expired', async () => {
      await givenDomain(h.module, 'sync-expired.com');
      h.clock.set('2028-03-01T00:00:00Z');
      try {
        const res = await post('/domains/sync-expired.com/sync');
        expect(res.body).toMatchObject({ active: false, expired: true });
        expect(await platformRecord(h.module, 'sync-expired.com')).toMatchObject({ status: 'Expired' });
      } finally {
        h.clock.set('2026-11-21T10:30:00Z');
      }
    });

    it('answers transfer sync for a transfer the registrar completed', async () => {
      await givenDomain(h.module, 'transfer-sync.com');
      const res = await post('/domains/transfer-sync.com/transfersync');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ completed: true, failed: false, reason: '', expirydate: '2027-11-21' });
    });

    it.each([
      ['sync', 'domainSync'],
      ['transfersync', 'transferSync'],
    ] as const)(
      'asks the registrar once for 40 concurrent %s calls on one domain, and answers from that for a while',
      async (route, capability) => {
        const name = `hammered-${route}.com`;
        await givenDomain(h.module, name);
        const plugin = h.module.registrars.get('sandbox');
        const spy = jest.spyOn(plugin[capability]!, 'sync');
        try {
          const replies = await Promise.all(Array.from({ length: 40 }, () => post(`/domains/${name}/${route}`)));
          expect(new Set(replies.map((r) => `${r.status} ${JSON.stringify(r.body)}`)).size).toBe(1);
          expect(replies[0]!.status).toBe(200);
          expect((await post(`/domains/${name}/${route}`)).status).toBe(200);
          expect(spy).toHaveBeenCalledTimes(1);
          // Past the interval the registrar is asked again.
          h.clock.advance(11_000);
          expect((await post(`/domains/${name}/${route}`)).status).toBe(200);
          expect(spy).toHaveBeenCalledTimes(2);
        } finally {
          spy.mockRestore();
          h.clock.set('2026-11-21T10:30:00Z');
        }
      },
    );

    it('makes a Pending Transfer domain Active when the transfer completes', async () => {
      const ctx = { signal: new AbortController().signal, transactionId: 't' };
      await h.module.registrars.get('sandbox').transfer!.transfer(
        {
          domain: 'taken-incoming.com',
          period: 1,
          nameservers: [],
          contacts: {},
          addons: {},
          fields: {},
          eppCode: 'secret',
        },
        ctx,
      );
      await givenDomain(h.module, 'taken-incoming.com', { atRegistrar: false, status: 'Pending Transfer' });
      const res = await post('/domains/taken-incoming.com/transfersync');
      expect(res.body).toEqual({ completed: true, failed: false, reason: '', expirydate: '2027-11-21' });
      expect(await platformRecord(h.module, 'taken-incoming.com')).toMatchObject({
        status: 'Active',
        expiryDate: '2027-11-21',
      });
    });
  });

  describe('nameservers', () => {
    it('reads ns1 to ns5, unset ones empty', async () => {
      await givenDomain(h.module, 'ns-read.com');
      const res = await get('/domains/ns-read.com/nameservers');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ns1: 'ns1.sandbox.test', ns2: 'ns2.sandbox.test', ns3: '', ns4: '', ns5: '' });
    });

    it('saves ns1 to ns5 at the registrar and on the platform', async () => {
      await givenDomain(h.module, 'ns-save.com');
      const res = await post('/domains/ns-save.com/nameservers', {
        ns1: 'NS1.Example.NET',
        ns2: 'ns2.example.net.',
        ns3: 'ns3.example.net',
        ns4: '',
        ns5: '',
      });
      expect(res.status).toBe(200);
      expect(res.body).toBe('success');
      expect((await get('/domains/ns-save.com/nameservers')).body).toEqual({
        ns1: 'ns1.example.net',
        ns2: 'ns2.example.net',
        ns3: 'ns3.example.net',
        ns4: '',
        ns5: '',
      });
      expect((await platformRecord(h.module, 'ns-save.com'))?.nameservers).toEqual([
        'ns1.example.net',
        'ns2.example.net',
        'ns3.example.net',
      ]);
    });

    it('accepts positional nameservers[0] as well', async () => {
      await givenDomain(h.module, 'ns-positional.com');
      const res = await post('/domains/ns-positional.com/nameservers', {
        nameservers: ['ns1.example.net', 'ns2.example.net'],
      });
      expect(res.status).toBe(200);
    });

    it('refuses keyed nameservers mixed with another key instead of ignoring it', async () => {
      await givenDomain(h.module, 'ns-mixed.com');
      const res = await h.http
        .post('/domains/ns-mixed.com/nameservers')
        .set(h.headers())
        .type('form')
        .send('nameservers[ns1]=ns1.example.net&nameservers[ns2]=ns2.example.net&nameservers[0][]=ns3.example.net');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'nameservers: "0" is not a nameserver key; use ns1 to ns5' });
    });

    // What nameservers this route accepts and refuses: test/http/nameservers.test.ts, the same cases as ordering.
  });

  describe('child nameservers', () => {
    it('registers, modifies and deletes a host under the domain', async () => {
      await givenDomain(h.module, 'glue.com');
      expect(
        (await post('/domains/glue.com/nameservers/register', { nameserver: 'ns1.glue.com', ipaddress: '192.0.2.1' }))
          .body,
      ).toBe('success');
      expect(
        (
          await post('/domains/glue.com/nameservers/modify', {
            nameserver: 'ns1.glue.com',
            currentipaddress: '192.0.2.1',
            newipaddress: '2001:db8::53',
          })
        ).body,
      ).toBe('success');
      const deleted = await post('/domains/glue.com/nameservers/delete', { nameserver: 'ns1.glue.com' });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toBe('success');
    });

    it('refuses a host outside the domain with 400', async () => {
      await givenDomain(h.module, 'glue-outside.com');
      const res = await post('/domains/glue-outside.com/nameservers/register', {
        nameserver: 'ns1.elsewhere.com',
        ipaddress: '192.0.2.1',
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/under glue-outside.com/);
    });

    it('refuses a bad IP address with 400', async () => {
      await givenDomain(h.module, 'glue-ip.com');
      const res = await post('/domains/glue-ip.com/nameservers/register', {
        nameserver: 'ns1.glue-ip.com',
        ipaddress: '300.1.1.1',
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/ipaddress must be an IPv4 or IPv6 address/);
    });

    it('requires the nameserver to delete', async () => {
      await givenDomain(h.module, 'glue-missing.com');
      const res = await post('/domains/glue-missing.com/nameservers/delete', {});
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'nameserver is required' });
    });

    it("passes on the registrar's refusal with 502", async () => {
      await givenDomain(h.module, 'glue-refused.com');
      const res = await post('/domains/glue-refused.com/nameservers/delete', { nameserver: 'ns9.glue-refused.com' });
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ error: 'Registrar sandbox refused: ns9.glue-refused.com is not registered' });
    });
  });

  describe('registrar lock', () => {
    it('locks on lockstatus=locked and reads it back', async () => {
      await givenDomain(h.module, 'lock.com');
      await post('/domains/lock.com/lock', { lockstatus: 'unlocked' });
      const res = await post('/domains/lock.com/lock', { lockstatus: 'locked' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, lockstatus: 'locked' });
      expect((await get('/domains/lock.com/lock')).body).toBe('locked');
      expect((await platformRecord(h.module, 'lock.com'))?.transferLock).toBe(true);
    });

    it.each([
      ['locked', 'locked'],
      ['LOCKED', 'locked'],
      ['1', 'locked'],
      ['true', 'locked'],
      ['On', 'locked'],
      [' on ', 'locked'],
      ['unlocked', 'unlocked'],
      ['Unlocked', 'unlocked'],
      ['0', 'unlocked'],
      ['FALSE', 'unlocked'],
      ['off', 'unlocked'],
    ])('takes lockstatus=%j as a billing module sends it: %s', async (lockstatus, expected) => {
      await givenDomain(h.module, 'lock-spellings.com').catch(() => undefined);
      // Start from the opposite state, so that the change is visible.
      await post('/domains/lock-spellings.com/lock', { lockstatus: expected === 'locked' ? 'unlocked' : 'locked' });
      const res = await post('/domains/lock-spellings.com/lock', { lockstatus });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, lockstatus: expected });
      expect((await get('/domains/lock-spellings.com/lock')).body).toBe(expected);
      expect((await platformRecord(h.module, 'lock-spellings.com'))?.transferLock).toBe(expected === 'locked');
    });

    it.each([
      ['lockstatus=LOCK', 'lockstatus must be locked or unlocked (or 1/0, true/false, on/off)'],
      ['lockstatus=no', 'lockstatus must be locked or unlocked (or 1/0, true/false, on/off)'],
      ['lockstatus=2', 'lockstatus must be locked or unlocked (or 1/0, true/false, on/off)'],
      ['lockstatus=', 'lockstatus must be locked or unlocked (or 1/0, true/false, on/off)'],
      ['lockstatus[]=locked', 'lockstatus must be a single value, like locked'],
      ['lockstatus[0]=locked&lockstatus[1]=unlocked', 'lockstatus must be a single value, like locked'],
      ['lockstatus[state]=locked', 'lockstatus must be a single value, like locked'],
      ['lockstatus=locked&lockstatus=unlocked', 'lockstatus must be a single value, like locked'],
      ['', 'lockstatus is required'],
    ])('refuses %j with 400 and leaves the lock as it was', async (raw, error) => {
      await givenDomain(h.module, 'lock-refused.com').catch(() => undefined);
      await post('/domains/lock-refused.com/lock', { lockstatus: 'locked' });
      const res = await h.http.post('/domains/lock-refused.com/lock').set(h.headers()).type('form').send(raw);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error });
      expect((await get('/domains/lock-refused.com/lock')).body).toBe('locked');
      expect((await platformRecord(h.module, 'lock-refused.com'))?.transferLock).toBe(true);
    });
  });

  describe('ID protection', () => {
    it('enables with 1 and disables with 0, recording the addon', async () => {
      await givenDomain(h.module, 'idp.com');
      expect((await post('/domains/idp.com/protectid', { status: '1' })).body).toEqual({
        success: true,
        idprotection: true,
      });
      expect((await platformRecord(h.module, 'idp.com'))?.addons.idProtection).toBe(true);
      expect((await get('/domains/idp.com/information')).body.idProtectionStatus).toBe(true);
      expect((await post('/domains/idp.com/protectid', { status: '0' })).body).toEqual({
        success: true,
        idprotection: false,
      });
      expect((await platformRecord(h.module, 'idp.com'))?.addons.idProtection).toBe(false);
    });

    it.each([['yes'], ['true'], ['2'], ['']])('refuses status=%j with 400', async (status) => {
      await givenDomain(h.module, 'idp-bad.com').catch(() => undefined);
      const res = await post('/domains/idp-bad.com/protectid', { status });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'status must be 1 (enable ID protection) or 0 (disable it)' });
    });

    it('refuses a missing status with 400', async () => {
      await givenDomain(h.module, 'idp-missing.com');
      expect((await post('/domains/idp-missing.com/protectid', {})).status).toBe(400);
    });
  });

  describe('delete and release', () => {
    it('cancels the domain on the platform once the registrar accepts the deletion', async () => {
      await givenDomain(h.module, 'delete-me.com');
      const res = await post('/domains/delete-me.com/delete', { domain: 'delete-me.com' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, status: 'Cancelled' });
      expect((await platformRecord(h.module, 'delete-me.com'))?.status).toBe('Cancelled');
      expect((await post('/domains/delete-me.com/sync')).body).toMatchObject({ cancelled: true, active: false });
    });

    it('leaves the platform record alone when the registrar refuses the deletion', async () => {
      await givenDomain(h.module, 'undeletable.com', { atRegistrar: false });
      const res = await post('/domains/undeletable.com/delete');
      expect(res.status).toBe(502);
      expect((await platformRecord(h.module, 'undeletable.com'))?.status).toBe('Active');
    });

    it('releases with a transfer tag and marks the domain Transferred Away', async () => {
      await givenDomain(h.module, 'release.com');
      const res = await post('/domains/release.com/release', { transfertag: 'NEW-REGISTRAR' });
      expect(res.status).toBe(200);
      expect(res.body).toBe('success');
      expect((await platformRecord(h.module, 'release.com'))?.status).toBe('Transferred Away');
    });

    it('answers information on a deleted (Cancelled) domain from the platform record, not as a registrar fault', async () => {
      await givenDomain(h.module, 'info-deleted.com', { addons: { idProtection: true } });
      expect((await post('/domains/info-deleted.com/delete')).status).toBe(200);
      const res = await get('/domains/info-deleted.com/information');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        domain: 'info-deleted.com',
        nameservers: ['ns1.sandbox.test', 'ns2.sandbox.test'],
        transferLock: false,
        expiryDate: '2027-11-21T00:00:00Z',
        registrationStatus: 'Cancelled',
        status: 'Cancelled',
        restorable: false,
        renewBeforeExpiration: true,
        idProtectionStatus: true,
        dnsManagementStatus: false,
        emailForwardingStatus: false,
        irtpOptOutStatus: false,
        irtpTransferLock: false,
        domainContactChangePending: false,
        willDomainSuspend: false,
        isIrtpEnabled: false,
        irtpVerificationTriggerFields: [],
      });
    });

    it('answers information on a released (Transferred Away) domain from the platform record', async () => {
      await givenDomain(h.module, 'info-released.com');
      expect((await post('/domains/info-released.com/release', { transfertag: 'NEW-REGISTRAR' })).status).toBe(200);
      const res = await get('/domains/info-released.com/information');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        domain: 'info-released.com',
        nameservers: ['ns1.sandbox.test', 'ns2.sandbox.test'],
        registrationStatus: 'Transferred Away',
        status: 'Transferred Away',
        expiryDate: '2027-11-21T00:00:00Z',
      });
    });

    it('requires a well-formed transfer tag', async () => {
      await givenDomain(h.module, 'release-bad.com');
      expect((await post('/domains/release-bad.com/release', {})).body).toEqual({ error: 'transfertag is required' });
      expect((await post('/domains/release-bad.com/release', { transfertag: 'no spaces' })).status).toBe(400);
    });
  });

  describe('EPP code', () => {
    it('answers {eppcode}', async () => {
      await givenDomain(h.module, 'epp.com');
      const res = await get('/domains/epp.com/eppcode');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ eppcode: expect.stringMatching(/^\S{8,}$/) });
    });
  });

  describe('contact details', () => {
    it('saves contacts sent with display names and reads them back by role', async () => {
      await givenDomain(h.module, 'contacts.com');
      const saved = await post('/domains/contacts.com/contact', {
        contactdetails: {
          Registrant: REGISTRANT,
          Technical: { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' },
        },
      });
      expect(saved.status).toBe(200);
      expect(saved.body).toBe('success');
      const res = await get('/domains/contacts.com/contact');
      const empty = Object.fromEntries(
        [
          'First Name',
          'Last Name',
          'Company Name',
          'Email Address',
          'Address 1',
          'Address 2',
          'City',
          'State',
          'Postcode',
          'Country',
          'Phone Number',
        ].map((f) => [f, '']),
      );
      expect(res.body).toEqual({
        Registrant: {
          ...empty,
          'First Name': 'Ada',
          'Last Name': 'Lovelace',
          'Email Address': 'ada@example.com',
          'Address 1': '1 Analytical Row',
          City: 'London',
          Postcode: 'N1 1AA',
          Country: 'GB',
          'Phone Number': '+44.2000000000',
        },
        Admin: empty,
        Technical: { ...empty, 'First Name': 'Grace', 'Last Name': 'Hopper', 'Email Address': 'grace@example.com' },
        Billing: empty,
      });
    });

    it('refuses a registrant without what registries require', async () => {
      await givenDomain(h.module, 'contacts-short.com');
      const res = await post('/domains/contacts-short.com/contact', {
        contactdetails: { Registrant: { 'First Name': 'Ada' } },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(
        'the registrant contact needs firstname and lastname (or fullname), email, address1, city, country, postcode, phonenumber',
      );
    });

    it.each([
      [{ Owner: REGISTRANT }, /not a contact/],
      [{ Registrant: { ...REGISTRANT, Shoe: '42' } }, /not a contact field/],
      [{ Registrant: { ...REGISTRANT, Country: 'United Kingdom' } }, /two-letter/],
      [{ Registrant: { ...REGISTRANT, 'Email Address': 'nope' } }, /not a valid email/],
    ])('refuses bad contact details with 400 (%#)', async (contactdetails, message) => {
      await givenDomain(h.module, 'contacts-bad.com').catch(() => undefined);
      const res = await post('/domains/contacts-bad.com/contact', { contactdetails });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(message);
    });

    it('requires contactdetails', async () => {
      await givenDomain(h.module, 'contacts-none.com');
      expect((await post('/domains/contacts-none.com/contact', {})).body).toEqual({
        error: 'contactdetails is required',
      });
    });
  });

  describe('email forwarding', () => {
    it('saves prefix[] and forwardto[] pairs and lists them', async () => {
      await givenDomain(h.module, 'mail.com');
      const saved = await post('/domains/mail.com/email', {
        prefix: ['Info', 'sales'],
        forwardto: ['me@example.net', 'team@example.net'],
      });
      expect(saved.status).toBe(200);
      expect(saved.body).toBe('success');
      expect((await get('/domains/mail.com/email')).body).toEqual([
        { prefix: 'info', forwardto: 'me@example.net' },
        { prefix: 'sales', forwardto: 'team@example.net' },
      ]);
    });

    it('accepts repeated names for one pair', async () => {
      await givenDomain(h.module, 'mail-one.com');
      const res = await h.http
        .post('/domains/mail-one.com/email')
        .set(h.headers())
        .type('form')
        .send('prefix=info&forwardto=me%40example.net');
      expect(res.status).toBe(200);
      expect((await get('/domains/mail-one.com/email')).body).toEqual([
        { prefix: 'info', forwardto: 'me@example.net' },
      ]);
    });

    it.each([
      [{ prefix: ['info'], forwardto: [] }, 'prefix and forwardto must have the same number of entries'],
      [{ prefix: ['info'], forwardto: ['not-an-email'] }, /not a valid email/],
      [{ prefix: ['in fo'], forwardto: ['me@example.net'] }, /prefix\[0\]/],
      [{ prefix: ['a', 'a'], forwardto: ['me@example.net', 'me@example.net'] }, 'the prefix a is forwarded twice'],
    ])('refuses %j with 400', async (body, message) => {
      await givenDomain(h.module, 'mail-bad.com').catch(() => undefined);
      const res = await post('/domains/mail-bad.com/email', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(message);
    });
  });

  it('serves the domain routes under the configured base path too', async () => {
    const based = await startHarness({ settings: { basePath: '/modules/addons/DomainsReseller/api/index.php' } });
    try {
      await givenDomain(based.module, 'based.com');
      const res = await based.http
        .get('/modules/addons/DomainsReseller/api/index.php/domains/based.com/lock')
        .set(based.headers());
      expect(res.status).toBe(200);
      expect(res.body).toBe('locked');
    } finally {
      await based.close();
    }
  });
});
