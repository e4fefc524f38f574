import { computeToken } from '../../src/core/auth/api-token';
import { parseForm } from '../../src/http/wire/form-body';
import { apiToken, apiTokenHour, encodeDomainFields, encodeForm } from '../../src/client';

describe('encodeForm', () => {
  it('nests objects and lists with PHP brackets', () => {
    const text = encodeForm({
      nameservers: { ns1: 'a.ns', ns2: 'b.ns' },
      dnsrecords: [{ hostname: 'www', type: 'A' }],
    });
    expect(decodeURIComponent(text)).toBe(
      'nameservers[ns1]=a.ns&nameservers[ns2]=b.ns&dnsrecords[0][hostname]=www&dnsrecords[0][type]=A',
    );
  });

  it('repeats the name for the lists the contract sends that way', () => {
    expect(encodeForm({ tldsToInclude: ['.com', '.net'] }, { repeat: ['tldsToInclude'] })).toBe(
      'tldsToInclude=.com&tldsToInclude=.net',
    );
  });

  it('leaves out null, undefined and empty lists, as PHP clients do', () => {
    expect(encodeForm({ a: null, b: undefined, c: [], d: {}, e: '' })).toBe('e=');
  });

  it('writes booleans as true/false and refuses non-finite numbers', () => {
    expect(encodeForm({ premiumEnabled: true, isIdnDomain: false, regperiod: 2 })).toBe(
      'premiumEnabled=true&isIdnDomain=false&regperiod=2',
    );
    expect(() => encodeForm({ regperiod: Number.NaN })).toThrow(/finite/);
  });

  it('escapes every reserved character so values cannot inject parameters', () => {
    const hostile = 'a&b=c[d]%25+ é\n';
    const text = encodeForm({ contacts: { Registrant: { firstname: hostile } }, 'odd key&x=1': 'v' });
    const parsed = parseForm(text) as Record<string, any>;
    expect(parsed.contacts.Registrant.firstname).toBe(hostile);
    expect(parsed['odd key&x=1']).toBe('v');
    expect(Object.keys(parsed)).toHaveLength(2);
  });
});

describe('encodeDomainFields', () => {
  it('writes base64 of a PHP-serialized array, measuring strings in UTF-8 bytes', () => {
    const encoded = encodeDomainFields({ 'Legal Type': 'Company', Name: 'Müller', 0: 1, flag: true });
    expect(Buffer.from(encoded, 'base64').toString('utf8')).toBe(
      'a:4:{i:0;i:1;s:10:"Legal Type";s:7:"Company";s:4:"Name";s:7:"Müller";s:4:"flag";b:1;}',
    );
  });
});

describe('apiToken', () => {
  it('matches the known-answer vector of the token (docs/api.md#authentication)', () => {
    const at = new Date('2026-11-21T10:59:59Z');
    expect(apiTokenHour(at)).toBe('26-11-21 10');
    const token = apiToken('reseller@example.com', 'secret-key', at);
    expect(token).toHaveLength(88);
    expect(token).toBe(computeToken('reseller@example.com', 'secret-key', at));
    expect(Buffer.from(token, 'base64').toString('utf8')).toMatch(/^[0-9a-f]{64}$/);
  });
});
