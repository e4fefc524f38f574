import qs from 'qs';
import { WHMCS_REGISTRANT } from '../../support/wire';
import { parseAnyForm, parseForm, parseSimpleForm } from '../../../src/http/wire/form-body';

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

describe('the direct reading of simple forms', () => {
  /** A plain copy with every object's prototype named, for comparing two readings exactly. */
  const shape = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) return value.map(shape);
    const out: Record<string, unknown> = { '(prototype)': Object.getPrototypeOf(value) === null ? 'none' : 'Object' };
    for (const key of Object.keys(value)) out[`.${key}`] = shape((value as Record<string, unknown>)[key]);
    return out;
  };

  it("reads an order's form as qs does", () => {
    const text =
      'domain=example.com&regperiod=1&nameservers[ns1]=ns1.example.net&nameservers[ns2]=ns2.example.net' +
      '&contacts[Registrant][firstname]=Ann+Lee&contacts[Registrant][email]=ann%40example.com&addons[dnsmanagement]=0';
    const simple = parseSimpleForm(text);
    expect(simple).toBeDefined();
    expect(shape(simple)).toEqual(shape(parseAnyForm(text)));
  });

  it("reads a WHMCS order's form with its brackets and spaces percent-encoded, as PHP's http_build_query sends it", () => {
    const text = qs.stringify({
      domain: 'example.com',
      regperiod: '1',
      nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
      contacts: { Registrant: WHMCS_REGISTRANT },
    });
    expect(text).toContain('nameservers%5Bns1%5D=');
    expect(text).toContain('%5BFirst%20Name%5D=');
    const simple = parseSimpleForm(text);
    expect(simple).toBeDefined();
    expect(shape(simple)).toEqual(shape(parseAnyForm(text)));
    const lowerCase = text.replace(/%5B/g, '%5b').replace(/%5D/g, '%5d');
    expect(shape(parseSimpleForm(lowerCase))).toEqual(shape(parseAnyForm(lowerCase)));
  });

  it.each([
    'a=1&a=2',
    'a[]=1',
    'a[0]=1',
    'a=1&a[b]=2',
    'a[b]=2&a=1',
    'a%5B%5D=1',
    'a%5B0%5D=1',
    'a=x%5D=y',
    'a=x]=y',
    '__proto__[x]=1',
    'a[toString]=1',
    'a[b][c][d][e][f][g]=1',
    'a&b=1',
    'a=1&&b=2',
    'a[01]=1',
    '',
  ])('leaves %j to qs', (text) => {
    expect(parseSimpleForm(text)).toBeUndefined();
  });

  it.each([
    'a.b=1',
    '?a=1',
    'First+Name=Ada',
    'contacts[Registrant][First%20Name]=Ada&contacts[Registrant][Last+Name]=Lovelace',
    'a%2Bb=1',
    'a%zz=1',
    'a[%C3%A9t%C3%A9]=1',
    'a[-1]=1',
  ])('reads %j directly, as qs reads it', (text) => {
    const simple = parseSimpleForm(text);
    expect(simple).toBeDefined();
    expect(shape(simple)).toEqual(shape(parseAnyForm(text)));
  });

  it('answers what qs answers for every form it reads, over many generated forms', () => {
    const pieces = [
      'a',
      'b',
      'B_1',
      'x-y',
      '0',
      '12',
      'toString',
      'constructor',
      '%5B',
      '%5D',
      '[',
      ']',
      '[]',
      '=',
      '&',
      '+',
      '%20',
      '%',
      '%zz',
      '%C3%A9',
      '.',
      'é',
      '?',
      ']=',
    ];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const word = () => Array.from({ length: 1 + random(3) }, () => pieces[random(pieces.length)]).join('');
    const names = [
      'a',
      'b',
      'c',
      'd',
      'e',
      'ns1',
      'ns2',
      'Registrant',
      'Admin',
      '7',
      'x_y',
      'first-name',
      'email',
      'First+Name',
      'First%20Name',
      'Phone Number',
      'a%2Bb',
      'x.y',
      '%zz',
      '%C3%A9t%C3%A9',
      '01',
    ];
    const name = () => names[random(names.length)]!;
    // Brackets as PHP's http_build_query sends them (percent-encoded), or literal.
    const open = () => ['[', '[', '%5B', '%5b'][random(4)];
    const close = () => [']', ']', '%5D', '%5d'][random(4)];
    let read = 0;
    for (let i = 0; i < 20_000; i++) {
      const pairs = Array.from({ length: 1 + random(4) }, () => {
        const key =
          random(10) === 0
            ? word()
            : `${name()}${Array.from({ length: random(7) }, () => `${open()}${random(20) === 0 ? word() : name()}${close()}`).join('')}`;
        return random(20) === 0 ? key : `${key}=${random(2) === 0 ? word() : name()}`;
      });
      const text = pairs.join('&');
      const simple = parseSimpleForm(text);
      if (simple === undefined) continue;
      read++;
      expect([text, shape(simple)]).toEqual([text, shape(parseAnyForm(text))]);
    }
    // The generator reaches the direct reading often, not only the forms it leaves to qs.
    expect(read).toBeGreaterThan(2_000);
  });
});
