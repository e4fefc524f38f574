import fc from 'fast-check';
import { toASCII } from 'tr46';
import { generateLabels, PREFIXES, SUFFIXES } from '../../../../src/core/search/candidate-generator';
import { parseSearchTerm } from '../../../../src/core/search/search-term';
import { splitWords } from '../../../../src/core/search/words';

const term = (searchTerm: string) => parseSearchTerm({ searchTerm }, () => false);
const labels = (searchTerm: string) => generateLabels(term(searchTerm)).map((g) => g.label.unicode);

describe('splitWords', () => {
  it('should split a run-together label into known words', () => {
    expect(splitWords('bestcoffeeshop')).toEqual(['best', 'coffee', 'shop']);
  });

  it('should prefer the fewest words', () => {
    expect(splitWords('expertsexchange')).toEqual(['experts', 'exchange']);
  });

  it.each(['carpet', 'therapist', 'shop', 'qwerty', 'shop24', 'bücher'])('should leave %s whole', (label) => {
    expect(splitWords(label)).toBeNull();
  });
});

describe('generateLabels', () => {
  it('should offer the hyphenated words first', () => {
    const generated = generateLabels(term('bestcoffee'));
    expect(generated[0]).toMatchObject({ label: { unicode: 'best-coffee' }, kind: 'words', base: 90 });
  });

  it('should offer the words joined when the term is hyphenated', () => {
    expect(labels('my-garden')).toContain('mygarden');
  });

  it('should offer typed words hyphenated', () => {
    expect(labels('Green Garden')[0]).toBe('green-garden');
  });

  it('should add common prefixes and suffixes', () => {
    expect(labels('bakery')).toEqual(
      expect.arrayContaining([...PREFIXES.map((p) => `${p}bakery`), ...SUFFIXES.map((s) => `bakery${s}`)]),
    );
  });

  it('should join affixes with a hyphen on a hyphenated label', () => {
    expect(labels('green-garden')).toEqual(expect.arrayContaining(['get-green-garden', 'green-garden-hq']));
  });

  it('should never repeat an affix the label already has, nor stack on one', () => {
    const generated = labels('myshop');
    expect(generated).not.toContain('mymyshop');
    expect(generated).not.toContain('themyshop');
    expect(labels('shoponline').some((l) => SUFFIXES.some((s) => l === `shoponline${s}`))).toBe(false);
    expect(labels('getfit')).not.toContain('getgetfit');
  });

  it('should put no Latin affix on a non-Latin label', () => {
    expect(labels('пример')).toEqual([]);
    expect(labels('книжный магазин')).toEqual(['книжный-магазин']);
  });

  it('should put affixes on Latin labels with accents', () => {
    expect(labels('bücher')).toContain('getbücher');
  });

  it('should not lengthen long labels with affixes', () => {
    expect(labels('averyveryverylongname')).toEqual([]);
  });

  it('should not decorate digits or a single letter', () => {
    expect(labels('123')).toEqual([]);
    expect(labels('a')).toEqual([]);
  });

  it('should order by base score, then shorter first', () => {
    const generated = generateLabels(term('bakery'));
    for (let i = 1; i < generated.length; i++) {
      const [a, b] = [generated[i - 1], generated[i]];
      expect(a.base > b.base || (a.base === b.base && a.label.unicode.length <= b.label.unicode.length)).toBe(true);
    }
  });

  it('should only ever produce distinct, valid labels other than the term, whatever the term', () => {
    const termText = fc.oneof(
      fc.string({ minLength: 1, maxLength: 30 }),
      fc
        .array(fc.constantFrom('best', 'shop', 'my', 'ü', 'x', '-', ' ', 'пр', '1', 'online', 'get'), {
          minLength: 1,
          maxLength: 8,
        })
        .map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(termText, (text) => {
        let parsed;
        try {
          parsed = parseSearchTerm({ searchTerm: text }, () => false);
        } catch {
          return; // refused terms are the parser's business
        }
        const generated = generateLabels(parsed);
        const ascii = generated.map((g) => g.label.ascii);
        expect(new Set(ascii).size).toBe(ascii.length);
        expect(ascii).not.toContain(parsed.label.ascii);
        for (const g of generated) {
          expect(g.label.ascii).toMatch(/^(?!-)[a-z0-9-]{1,63}(?<!-)$/);
          expect(
            toASCII(g.label.unicode, {
              checkHyphens: true,
              checkBidi: true,
              checkJoiners: true,
              useSTD3ASCIIRules: true,
              verifyDNSLength: true,
            }),
          ).toBe(g.label.ascii);
        }
      }),
      { numRuns: 300 },
    );
  });
});
