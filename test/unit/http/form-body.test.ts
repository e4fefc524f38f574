import { parseForm } from '../../../src/http/wire/form-body';

describe('parseForm (PHP-bracket bodies)', () => {
  it('nests brackets the way PHP does', () => {
    const body = parseForm(
      'nameservers%5Bns1%5D=ns1.example.com&contacts[registrant][firstname]=Ann&addons[idprotection]=1',
    );
    expect(JSON.parse(JSON.stringify(body))).toEqual({
      nameservers: { ns1: 'ns1.example.com' },
      contacts: { registrant: { firstname: 'Ann' } },
      addons: { idprotection: '1' },
    });
  });

  it.each([
    'tldsToInclude=.com&tldsToInclude=.net',
    'tldsToInclude[]=.com&tldsToInclude[]=.net',
    'tldsToInclude[0]=.com&tldsToInclude[1]=.net',
  ])('reads the list form %s', (text) => {
    expect(parseForm(text).tldsToInclude).toEqual(['.com', '.net']);
  });

  it('creates objects without a prototype', () => {
    const body = parseForm('a[b]=1');
    expect(Object.getPrototypeOf(body)).toBeNull();
  });

  it('refuses nesting deeper than five levels', () => {
    expect(() => parseForm('a[b][c][d][e][f][g]=1')).toThrow(/cannot be parsed/);
  });

  it('refuses more than 1000 parameters', () => {
    expect(() => parseForm(Array.from({ length: 1001 }, (_, i) => `p${i}=1`).join('&'))).toThrow(/cannot be parsed/);
  });

  it('never lets __proto__ reach Object.prototype', () => {
    parseForm('__proto__[polluted]=1&a[__proto__][polluted]=1');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
