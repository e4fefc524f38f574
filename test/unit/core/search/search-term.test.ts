import { parseSearchTerm } from '../../../../src/core/search/search-term';
import { isDomainError } from '../../../../src/core/common/errors';

const KNOWN = new Set(['.com', '.net', '.co.uk', '.uk', '.xn--p1ai']);
const parse = (input: { searchTerm?: string; punyCodeSearchTerm?: string }) =>
  parseSearchTerm(input, (tld) => KNOWN.has(tld));
const refusal = (input: { searchTerm?: string; punyCodeSearchTerm?: string }): string => {
  try {
    parse(input);
  } catch (error) {
    if (isDomainError(error) && error.code === 'validation_failed') return error.message;
    throw error;
  }
  throw new Error('expected a validation error');
};

describe('parseSearchTerm', () => {
  describe('when the term is a bare label', () => {
    it.each(['Bücher', 'BÜCHER', 'xn--bcher-kva', 'XN--BCHER-KVA', ' bücher '])(
      'should normalise %s with UTS-46 to both forms',
      (searchTerm) => {
        expect(parse({ searchTerm })).toEqual({
          label: { ascii: 'xn--bcher-kva', unicode: 'bücher' },
          words: ['bücher'],
        });
      },
    );

    it('should map full-width letters to ASCII', () => {
      expect(parse({ searchTerm: 'ＳＨＯＰ' }).label).toEqual({ ascii: 'shop', unicode: 'shop' });
    });

    it('should join words separated by spaces, underscores or punctuation and remember them', () => {
      expect(parse({ searchTerm: 'My Shop' })).toEqual({
        label: { ascii: 'myshop', unicode: 'myshop' },
        words: ['my', 'shop'],
      });
      expect(parse({ searchTerm: 'my_shop!' }).label.ascii).toBe('myshop');
    });

    it('should keep single hyphens, collapse runs and drop edge hyphens', () => {
      expect(parse({ searchTerm: '-my--shop-' })).toEqual({
        label: { ascii: 'my-shop', unicode: 'my-shop' },
        words: ['my', 'shop'],
      });
    });
  });

  describe('when both terms come', () => {
    it('should prefer punyCodeSearchTerm', () => {
      expect(parse({ searchTerm: 'books', punyCodeSearchTerm: 'xn--bcher-kva' }).label.unicode).toBe('bücher');
    });

    it('should fall back to searchTerm when punyCodeSearchTerm is blank', () => {
      expect(parse({ searchTerm: 'books', punyCodeSearchTerm: '  ' }).label.ascii).toBe('books');
    });
  });

  describe('when the term is a full name', () => {
    it('should split off the TLD', () => {
      expect(parse({ searchTerm: 'shop.com' })).toMatchObject({
        label: { ascii: 'shop' },
        tld: { ascii: '.com', unicode: '.com' },
      });
    });

    it('should prefer the longest known TLD', () => {
      expect(parse({ searchTerm: 'shop.co.uk' })).toMatchObject({ label: { ascii: 'shop' }, tld: { ascii: '.co.uk' } });
    });

    it('should take everything after the first label as an unknown TLD, to report it unsupported', () => {
      expect(parse({ searchTerm: 'shop.example' })).toMatchObject({
        label: { ascii: 'shop' },
        tld: { ascii: '.example' },
      });
    });

    it.each(['www.shop.com', 'https://www.shop.com/some/path?q=1', 'SHOP.COM.', 'ｓｈｏｐ。ｃｏｍ'])(
      'should read %s as shop and .com',
      (searchTerm) => {
        expect(parse({ searchTerm })).toMatchObject({ label: { ascii: 'shop' }, tld: { ascii: '.com' } });
      },
    );

    it('should read Unicode TLDs', () => {
      expect(parse({ searchTerm: 'пример.рф' })).toEqual({
        label: { ascii: 'xn--e1afmkfd', unicode: 'пример' },
        words: ['пример'],
        tld: { ascii: '.xn--p1ai', unicode: '.рф' },
      });
    });
  });

  describe('when the term is bad', () => {
    it.each([{}, { searchTerm: '' }, { searchTerm: '   ' }, { punyCodeSearchTerm: '' }])(
      'should say the term is required (%j)',
      (input) => {
        expect(refusal(input)).toBe('searchTerm is required');
      },
    );

    it.each([
      ['!!!', /no letters or digits/],
      ['---', /no letters or digits/],
      ['a'.repeat(254), /too long: at most 253 characters/],
      ['a'.repeat(64), /at most 63 characters/],
      ['ü'.repeat(60), /at most 63 characters \(in punycode\)/],
      ['a.b.shop.com', /one name/],
      ['shop.c0m', /cannot be a TLD/],
    ])('should refuse %s', (searchTerm, message) => {
      expect(refusal({ searchTerm })).toMatch(message);
    });

    it('should refuse broken punycode, naming the field', () => {
      expect(refusal({ punyCodeSearchTerm: 'xn--zz' })).toMatch(/^punyCodeSearchTerm .* not valid punycode/);
    });

    it('should refuse a label the IDNA rules forbid', () => {
      // A right-to-left label mixed with left-to-right digits at its start breaks the Bidi rule.
      expect(refusal({ searchTerm: '1שלום' })).toMatch(/IDNA/);
    });
  });
});
