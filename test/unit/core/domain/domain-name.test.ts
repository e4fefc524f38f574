import { toASCII, toUnicode } from 'tr46';

// The real UTS-46, watched: a plain ASCII name must not need it.
jest.mock('tr46', () => {
  const actual = jest.requireActual('tr46');
  return { ...actual, toASCII: jest.fn(actual.toASCII) };
});
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

describe('parseDomainName on plain ASCII names (answered without the UTS-46 passes)', () => {
  /** What UTS-46 itself answers, with the options parseDomainName uses, or null when it refuses. */
  const uts46 = (input: string) => {
    const options = { checkHyphens: true, checkBidi: true, checkJoiners: true, useSTD3ASCIIRules: true };
    const ascii = toASCII(input.trim().replace(/\.$/, ''), {
      ...options,
      verifyDNSLength: true,
      transitionalProcessing: false,
    });
    if (ascii === null) return null;
    const { domain, error } = toUnicode(ascii, { ...options, transitionalProcessing: false });
    return error ? null : { ascii, unicode: domain };
  };
  const answerOf = (input: string, minLabels = 2) => {
    try {
      const { ascii, unicode, labels } = parseDomainName(input, { minLabels });
      return { ascii, unicode, labels };
    } catch (error) {
      return { refused: (error as Error).message };
    }
  };

  it.each([
    'Example.COM',
    'a.b.c.example.com',
    'x-y--z.com',
    'ab--cd.com',
    'xn--bcher-kva.de',
    'XN--BCHER-KVA.DE',
    'xn--zz.com',
    'a.xn--p1ai',
    '123.com',
    'example.123',
    '-a.com',
    'a-.com',
    'a..com',
    '.a.com',
    `${'a'.repeat(63)}.com`,
    `${'a'.repeat(64)}.com`,
    `${'a.'.repeat(125)}com`,
    `${'a.'.repeat(126)}com`,
    'example.com.',
  ])('answers %s as UTS-46 does', (input) => {
    const expected = uts46(input);
    const answer = answerOf(input);
    if (expected === null) expect(answer).toHaveProperty('refused');
    else if (!('refused' in answer)) expect(answer).toMatchObject(expected);
  });

  it('asks UTS-46 nothing for a plain name, and asks it for any other', () => {
    jest.mocked(toASCII).mockClear();
    expect(parseDomainName('Never-Seen-Before-1.com').ascii).toBe('never-seen-before-1.com');
    expect(toASCII).not.toHaveBeenCalled();
    expect(parseDomainName('never-seen-bücher.de').ascii).toBe('xn--never-seen-bcher-uzb.de');
    expect(toASCII).toHaveBeenCalled();
  });

  it('answers random ASCII names exactly as the full path does', () => {
    // The same input behind a character UTS-46 maps to nothing is not plain ASCII: its answer
    // comes from the full path, and must be the answer for the input.
    const alphabet = 'abcXYZ019-.';
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 3000; i++) {
      const input = Array.from({ length: 1 + random(20) }, () => alphabet[random(alphabet.length)]).join('');
      const full = answerOf(`\u00ad${input}`);
      const fast = answerOf(input);
      if ('refused' in full) expect(fast).toHaveProperty('refused');
      else expect(fast).toEqual(full);
    }
  });
});
