import { parseDomainName, parseTld, splitRegistrable } from '../../../../src/core/domain/domain-name';

describe('parseDomainName', () => {
  it.each([
    ['example.com', 'example.com', 'example.com'],
    ['EXAMPLE.Com.', 'example.com', 'example.com'],
    ['bücher.de', 'xn--bcher-kva.de', 'bücher.de'],
    ['XN--BCHER-KVA.de', 'xn--bcher-kva.de', 'bücher.de'],
    ['пример.рф', 'xn--e1afmkfd.xn--p1ai', 'пример.рф'],
    ['ＥＸＡＭＰＬＥ．ｃｏｍ', 'example.com', 'example.com'],
    ['a-b.co.uk', 'a-b.co.uk', 'a-b.co.uk'],
  ])('normalises %s to %s', (input, ascii, unicode) => {
    expect(parseDomainName(input)).toMatchObject({ ascii, unicode });
  });

  it.each([
    ['a_b.com'],
    ['-a.com'],
    ['a-.com'],
    ['a..b.com'],
    ['1.2.3.4'],
    [`${'a'.repeat(64)}.com`],
    ['com'],
    [''],
    ['exa mple.com'],
    ['example.c0m1'],
    ['ab--cd.com'],
    [`${'a.'.repeat(130)}com`],
    ['xn--zz.com'],
  ])('rejects %s', (input) => {
    expect(() => parseDomainName(input)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
  });

  it('rejects absurdly long input before doing any work on it', () => {
    expect(() => parseDomainName(`${'a'.repeat(5000)}.com`)).toThrow(/too long/);
  });
});

describe('parseDomainName, asked again', () => {
  it('gives the same answer for the same input, which nobody can change', () => {
    const first = parseDomainName('Bücher.DE');
    const again = parseDomainName('Bücher.DE');
    expect(again).toEqual({ ascii: 'xn--bcher-kva.de', unicode: 'bücher.de', labels: ['xn--bcher-kva', 'de'] });
    expect(again).toBe(first);
    expect(Object.isFrozen(again) && Object.isFrozen(again.labels)).toBe(true);
  });

  it('keeps the minimum label count part of the question', () => {
    expect(parseDomainName('com', { minLabels: 1 }).ascii).toBe('com');
    expect(() => parseDomainName('com')).toThrow(/needs a name and a TLD/);
    expect(parseDomainName('com', { minLabels: 1 }).ascii).toBe('com');
  });

  it('answers a long input that UTS-46 maps down to a short name, the same each time', () => {
    // U+00AD (soft hyphen) maps to nothing: 600 of them in front of "a" still make a.com.
    const padded = `${'\u00ad'.repeat(600)}a.com`;
    expect(parseDomainName(padded).ascii).toBe('a.com');
    expect(parseDomainName(padded)).toEqual(parseDomainName('a.com'));
  });

  it('refuses a bad input every time it is asked', () => {
    for (let i = 0; i < 3; i++) expect(() => parseDomainName('a_b.com')).toThrow(/not a valid domain name/);
  });

  it('stays right past the number of names it remembers', () => {
    for (let i = 0; i < 10_000; i++) {
      const name = parseDomainName(`Name-${i}.Example`);
      expect(name.ascii).toBe(`name-${i}.example`);
    }
    expect(parseDomainName('bücher.de').ascii).toBe('xn--bcher-kva.de');
  });
});

describe('parseTld', () => {
  it('accepts the TLD with or without its dot, in any case, and IDN TLDs', () => {
    expect(parseTld('COM').ascii).toBe('.com');
    expect(parseTld('.co.uk').ascii).toBe('.co.uk');
    expect(parseTld('.рф')).toEqual({ ascii: '.xn--p1ai', unicode: '.рф' });
  });

  it('rejects what cannot be a TLD', () => {
    expect(() => parseTld('.1')).toThrow(/not a valid TLD/);
    expect(() => parseTld('')).toThrow(/required/);
  });
});

describe('splitRegistrable', () => {
  const known = new Set(['.uk', '.co.uk', '.com']);
  it('picks the longest known TLD', () => {
    expect(splitRegistrable(parseDomainName('shop.co.uk'), (t) => known.has(t))).toMatchObject({
      sld: 'shop',
      tld: '.co.uk',
    });
  });

  it('returns null for an unknown TLD', () => {
    expect(splitRegistrable(parseDomainName('shop.net'), (t) => known.has(t))).toBeNull();
  });

  it('refuses names with extra labels in front of the SLD', () => {
    expect(() => splitRegistrable(parseDomainName('www.shop.com'), (t) => known.has(t))).toThrow(
      /not a registrable name/,
    );
  });
});
