import * as frames from '../../../plugins/epp/src/frames';
import { encodeFrame, FrameError, FrameReader } from '../../../plugins/epp/src/framing';
import { DEFAULT_AUTH_CODE_POLICY, parseOptions } from '../../../plugins/epp/src/options';
import { toContactData, toE164, ContactInputError, newAuthCode, newContactId } from '../../../plugins/epp/src/contacts';
import { refusalOf } from '../../../plugins/epp/src/outcomes';
import { parseServerFrame, type EppResponse } from '../../../plugins/epp/src/responses';
import { child, childText, NS, parseXml, XmlParseError, XmlValueError } from '../../../plugins/epp/src/xml';
import { validateEpp } from '../../support/epp/xml-schema';

const HOSTILE = 'Ada <b>&amp; "Lovelace"\' ]]> </epp><x/>';
const contact = toContactData(
  {
    fullname: HOSTILE,
    companyname: 'A & B <Ltd>',
    email: 'ada@example.com',
    address1: '1 "Way"',
    city: 'London',
    country: 'gb',
    phonenumber: '+44.2071234567',
    postcode: 'N1 1AA',
  },
  'registrant',
  'auto',
);

// Every frame the plugin can send, built with hostile values where a value is free text.
const SENT: Record<string, string> = {
  hello: frames.helloFrame(),
  login: frames.loginFrame(
    {
      clientId: 'registrar-a',
      password: 'pass<&>word',
      newPassword: 'new"pass"word',
      language: 'en',
      objectUris: [NS.domain, NS.host, NS.contact],
      extensionUris: [NS.secDNS, NS.rgp],
    },
    'trid-login',
  ),
  logout: frames.logoutFrame('trid-logout'),
  'poll req': frames.pollRequestFrame('trid-poll'),
  'poll ack': frames.pollAckFrame('12<3>', 'trid-ack'),
  'domain check': frames.domainCheckFrame(['a.test', 'b.test', 'c.example'], 'trid-check'),
  'domain create (host objects, DS)': frames.domainCreateFrame(
    {
      name: 'a.test',
      years: 2,
      nameservers: { hostObjects: ['ns1.host.net', 'ns2.host.net'] },
      registrant: 'RS1',
      contacts: [
        { type: 'admin', id: 'RS1' },
        { type: 'tech', id: 'RS2' },
        { type: 'billing', id: 'RS1' },
      ],
      authInfo: 'a<&>"b',
      dsRecords: [{ keyTag: 12345, algorithm: 13, digestType: 2, digest: 'ABCDEF0123' }],
    },
    'trid-create',
  ),
  'domain create (host attributes, thin)': frames.domainCreateFrame(
    { name: 'a.test', years: 1, nameservers: { hostAttributes: ['ns1.host.net'] }, contacts: [], authInfo: 'x' },
    'trid-create2',
  ),
  'domain info': frames.domainInfoFrame('a.test', 'trid-info', 'code&'),
  'domain renew': frames.domainRenewFrame('a.test', '2027-11-21', 3, 'trid-renew'),
  'domain transfer request': frames.domainTransferFrame('request', 'a.test', 'trid-tr', {
    years: 1,
    authInfo: '<code>',
  }),
  'domain transfer query': frames.domainTransferFrame('query', 'a.test', 'trid-trq'),
  'domain update (ns, contacts, statuses, registrant, authInfo)': frames.domainUpdateFrame(
    {
      name: 'a.test',
      add: {
        nameservers: { hostObjects: ['ns3.host.net'] },
        contacts: [{ type: 'tech', id: 'RS3' }],
        statuses: ['clientTransferProhibited', 'clientDeleteProhibited'],
      },
      rem: {
        nameservers: { hostObjects: ['ns1.host.net'] },
        contacts: [{ type: 'tech', id: 'RS2' }],
        statuses: ['clientUpdateProhibited'],
      },
      chg: { registrant: 'RS4', authInfo: 'new&code' },
    },
    'trid-update',
  ),
  'domain update (host attributes)': frames.domainUpdateFrame(
    { name: 'a.test', add: { nameservers: { hostAttributes: ['ns3.host.net'] } } },
    'trid-update2',
  ),
  'domain update (DS replace)': frames.domainUpdateFrame(
    { name: 'a.test', dsRecords: [{ keyTag: 1, algorithm: 8, digestType: 1, digest: 'AA' }] },
    'trid-ds',
  ),
  'domain update (DS remove all)': frames.domainUpdateFrame({ name: 'a.test', dsRecords: [] }, 'trid-ds2'),
  'rgp restore request': frames.domainUpdateFrame({ name: 'a.test', restore: { op: 'request' } }, 'trid-restore'),
  'rgp restore report': frames.domainUpdateFrame(
    {
      name: 'a.test',
      restore: {
        op: 'report',
        report: {
          preData: HOSTILE,
          postData: HOSTILE,
          deletedAt: '2026-11-01T00:00:00.000Z',
          restoredAt: '2026-11-21T10:30:00.000Z',
          reason: 'Registrant error.',
          statements: ['one <&>', 'two'],
          other: 'x',
        },
      },
    },
    'trid-report',
  ),
  'domain delete': frames.domainDeleteFrame('a.test', 'trid-delete'),
  'host check': frames.hostCheckFrame(['ns1.a.test', 'ns2.a.test'], 'trid-hcheck'),
  'host create': frames.hostCreateFrame(
    'ns1.a.test',
    [
      { ip: 'v4', address: '192.0.2.1' },
      { ip: 'v6', address: '2001:db8::1' },
    ],
    'trid-hcreate',
  ),
  'host create (external)': frames.hostCreateFrame('ns1.host.net', [], 'trid-hcreate2'),
  'host info': frames.hostInfoFrame('ns1.a.test', 'trid-hinfo'),
  'host update': frames.hostUpdateFrame(
    'ns1.a.test',
    { add: [{ ip: 'v6', address: '2001:db8::2' }], rem: [{ ip: 'v4', address: '192.0.2.1' }] },
    'trid-hupdate',
  ),
  'host delete': frames.hostDeleteFrame('ns1.a.test', 'trid-hdelete'),
  'contact check': frames.contactCheckFrame(['RS1', 'RS2'], 'trid-ccheck'),
  'contact create': frames.contactCreateFrame('RS1', contact, 'auth&<code>', 'trid-ccreate'),
  'contact info': frames.contactInfoFrame('RS1', 'trid-cinfo'),
  'contact update': frames.contactUpdateFrame('RS1', contact, 'trid-cupdate'),
  'contact delete': frames.contactDeleteFrame('RS1', 'trid-cdelete'),
};

describe('EPP frames the plugin sends', () => {
  it.each(Object.entries(SENT))('%s validates against the RFC schemas', async (_name, xml) => {
    await expect(validateEpp(xml)).resolves.toBeUndefined();
  });

  it('carries hostile text as text: it parses back to exactly what was given', () => {
    const root = parseXml(SENT['contact create']!);
    const create = child(child(child(root, NS.epp, 'command'), NS.epp, 'create'), NS.contact, 'create');
    const postal = child(create, NS.contact, 'postalInfo');
    expect(childText(postal, NS.contact, 'name')).toBe(HOSTILE);
    expect(childText(postal, NS.contact, 'org')).toBe('A & B <Ltd>');
    expect(postal?.children.map((c) => c.name)).toEqual(['name', 'org', 'addr']);
  });

  it('refuses characters XML cannot carry instead of sending them', () => {
    expect(() => frames.domainInfoFrame('a.test', 'trid', 'bad\u0001code')).toThrow(XmlValueError);
  });
});

describe('reading server frames', () => {
  it('resolves namespaces whatever prefixes the server chose', () => {
    const xml = `<?xml version="1.0"?><e:epp xmlns:e="urn:ietf:params:xml:ns:epp-1.0"><e:response><e:result code="1000"><e:msg>ok</e:msg></e:result>
      <e:resData><infData xmlns="urn:ietf:params:xml:ns:domain-1.0"><name>a.test</name></infData></e:resData>
      <e:extension><x:infData xmlns:x="urn:ietf:params:xml:ns:rgp-1.0"><x:rgpStatus s="redemptionPeriod"/></x:infData></e:extension>
      <e:trID><e:clTRID>abc</e:clTRID><e:svTRID>sv-1</e:svTRID></e:trID></e:response></e:epp>`;
    const frame = parseServerFrame(xml);
    expect(frame.kind).toBe('response');
    const r = (frame as { response: EppResponse }).response;
    expect(r).toMatchObject({ code: 1000, clientTransactionId: 'abc', serverTransactionId: 'sv-1' });
    expect(childText(child(r.resData, NS.domain, 'infData'), NS.domain, 'name')).toBe('a.test');
    expect(child(child(r.extension, NS.rgp, 'infData'), NS.rgp, 'rgpStatus')?.attrs.s).toBe('redemptionPeriod');
  });

  it('reads the reasons of a failure from value and extValue', () => {
    const r = (
      parseServerFrame(`<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><response><result code="2306"><msg>Parameter value policy error</msg>
      <extValue><value><d:name xmlns:d="urn:ietf:params:xml:ns:domain-1.0">x.test</d:name></value><reason>Name is on the blocklist</reason></extValue></result>
      <trID><svTRID>s</svTRID></trID></response></epp>`) as { response: EppResponse }
    ).response;
    expect(r.results[0]!.reasons).toEqual(['Name is on the blocklist']);
    expect(refusalOf(r, 'x.test')).toEqual({
      ok: false,
      reason: 'refused',
      message: 'registry policy refused x.test: Parameter value policy error: Name is on the blocklist (EPP 2306)',
    });
  });

  it('refuses a DOCTYPE (entity expansion) outright', () => {
    expect(() =>
      parseXml('<?xml version="1.0"?><!DOCTYPE epp [<!ENTITY a "aaaa">]><epp xmlns="urn:ietf:params:xml:ns:epp-1.0"/>'),
    ).toThrow(XmlParseError);
    expect(() => parseServerFrame('<!DOCTYPE x><epp/>')).toThrow(/DOCTYPE/);
  });

  it('refuses malformed XML and frames that are not EPP', () => {
    expect(() => parseServerFrame('<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><response>')).toThrow(/malformed/);
    expect(() => parseServerFrame('<other/>')).toThrow(/not <epp>/);
  });
});

describe('RFC 5730 result codes', () => {
  const response = (code: number): EppResponse => ({
    code,
    message: 'msg',
    results: [{ code, message: 'msg', reasons: ['why'] }],
  });
  it.each([
    [2302, 'unavailable', /already exists/],
    [2303, 'refused', /does not exist/],
    [2201, 'refused', /authorisation/],
    [2202, 'refused', /authorisation/],
    [2304, 'refused', /policy.*msg: why/],
    [2305, 'refused', /policy.*msg: why/],
    [2306, 'refused', /policy.*msg: why/],
    [2004, 'refused', /refused a.test: msg: why \(EPP 2004\)/],
  ])('maps %i to %s', (code, reason, message) => {
    const outcome = refusalOf(response(code), 'a.test');
    expect(outcome.reason).toBe(reason);
    expect(outcome.message).toMatch(message);
  });
});

describe('RFC 5734 framing', () => {
  it('reassembles frames however TCP splits or joins them', () => {
    const a = encodeFrame('<epp>é</epp>');
    const b = encodeFrame('<epp>second</epp>');
    const all = Buffer.concat([a, b]);
    const reader = new FrameReader();
    const out: string[] = [];
    for (let i = 0; i < all.length; i += 3) out.push(...reader.push(all.subarray(i, i + 3)));
    expect(out).toEqual(['<epp>é</epp>', '<epp>second</epp>']);
    expect(a.readUInt32BE(0)).toBe(a.length);
  });

  it('refuses a length that counts less than the header or more than the limit', () => {
    const tiny = Buffer.from([0, 0, 0, 3]);
    expect(() => new FrameReader().push(tiny)).toThrow(FrameError);
    const huge = Buffer.from([0x7f, 0, 0, 0]);
    expect(() => new FrameReader(1024).push(huge)).toThrow(FrameError);
  });
});

describe('contacts', () => {
  it.each([
    ['+44.2071234567', undefined, '+44.2071234567'],
    ['+44 20 7123 4567', undefined, '+44.2071234567'],
    ['+1 (555) 123-4567', undefined, '+1.5551234567'],
    ['0049 30 1234567', undefined, '+49.301234567'],
    ['+353 1 234 5678', undefined, '+353.12345678'],
    ['5551234567', '1', '+1.5551234567'],
  ])('writes the phone number %s (calling code %s) as %s', (raw, cc, expected) => {
    expect(toE164(raw, cc, 'phone')).toBe(expected);
  });

  it('refuses a local number it would have to guess', () => {
    expect(() => toE164('020 7123 4567', undefined, 'registrant phonenumber')).toThrow(ContactInputError);
  });

  it('uses the loc postal form for non-ASCII contacts and refuses them in int', () => {
    const data = {
      firstname: 'Zoë',
      lastname: 'Müller',
      email: 'z@example.de',
      address1: 'Straße 1',
      city: 'Köln',
      country: 'DE',
    };
    expect(toContactData(data, 'registrant', 'auto').postalType).toBe('loc');
    expect(() => toContactData(data, 'registrant', 'int')).toThrow(/non-ASCII/);
  });

  it('names each missing or oversized field', () => {
    expect(() => toContactData({ firstname: 'A', email: 'a@b.c', country: 'GB' }, 'admin', 'auto')).toThrow(
      /admin contact needs a city/,
    );
    expect(() => toContactData({ firstname: 'A', email: 'a@b.c', city: 'X', country: 'GBR' }, 'tech', 'auto')).toThrow(
      /two-letter/,
    );
    expect(() =>
      toContactData(
        { firstname: 'A', email: 'a@b.c', city: 'X', country: 'GB', postcode: 'x'.repeat(17) },
        'registrant',
        'auto',
      ),
    ).toThrow(/postcode/);
  });

  it('makes contact ids and auth codes the schemas accept', () => {
    for (let i = 0; i < 50; i++) {
      const id = newContactId('RS');
      expect(id).toMatch(/^RS[0-9A-Z]{3,14}$/);
      expect(id.length).toBeLessThanOrEqual(16);
      const code = newAuthCode(DEFAULT_AUTH_CODE_POLICY);
      expect(code).toHaveLength(24);
      expect(code).toMatch(/[a-z]/);
      expect(code).toMatch(/[A-Z]/);
      expect(code).toMatch(/[0-9]/);
    }
  });
});

describe('plugin options', () => {
  it('loads unconfigured when no options are given', () => {
    expect(parseOptions({})).toEqual({ isConfigured: false });
  });

  it('lists every problem at once', () => {
    expect(() =>
      parseOptions({
        host: 'epp.example',
        port: 'x',
        sessions: 0,
        hostMode: 'both',
        lockStatuses: ['serverHold'],
        surprise: 1,
      }),
    ).toThrow(
      /clientId is required.*password \(or passwordEnv\) is required.*cert \(or certFile\) is required.*key \(or keyFile\) is required.*lockStatuses.*port must be.*sessions must be.*hostMode must be.*unknown option surprise/,
    );
  });

  it('never repeats a password put by mistake where the variable name goes', () => {
    const base = { host: 'h', clientId: 'abc', cert: 'c', key: 'k' };
    expect(() => parseOptions({ ...base, passwordEnv: 'Regi5try-Passw0rd' }, {})).toThrow(
      'passwordEnv names an environment variable that is empty or not set (the name is not repeated: it may be the password itself)',
    );
    expect(() => parseOptions({ ...base, passwordEnv: 'Regi5try-Passw0rd' }, {})).not.toThrow('Regi5try');
    expect(() => parseOptions({ ...base, passwordEnv: 'EPP_PW' }, {})).toThrow(
      'the environment variable EPP_PW (passwordEnv) is empty',
    );
  });

  it('reads the password from the environment variable named by passwordEnv', () => {
    const parsed = parseOptions(
      { host: 'h', clientId: 'abc', passwordEnv: 'EPP_PW', cert: 'c', key: 'k' },
      { EPP_PW: 'secret-password' },
    );
    expect(parsed).toMatchObject({
      isConfigured: true,
      options: { password: 'secret-password', verifyServerCertificate: true, port: 700 },
    });
  });
});
