import path from 'node:path';
import type { Response } from 'supertest';
import type { FixtureRegistrar } from '../fixtures/fixture-registrar';
import type { PremiumRule } from '../../src/core/catalogue/premium';
import { startHarness, type Harness } from '../support/harness';

const FIXTURES = path.resolve(__dirname, '../fixtures/registrars');
const SUGGESTIONS = '/domains/lookup/suggestions';
const LOOKUP = '/domains/lookup';

interface Element {
  domainName: string;
  idnDomainName: string;
  idnSld: string;
  tld: string;
  status: string;
  score: number;
  isPremium: boolean;
  isAvailable: boolean;
  [key: string]: unknown;
}

/** docs/api.md#suggestion-element: every field, always present, with its type. */
const SPEC_TYPES: Record<string, string> = {
  domainName: 'string',
  idnDomainName: 'string',
  tld: 'string',
  tldNoDots: 'string',
  sld: 'string',
  idnSld: 'string',
  status: 'string',
  legacyStatus: 'string',
  score: 'integer',
  isRegistered: 'boolean',
  isAvailable: 'boolean',
  isValidDomain: 'boolean',
  domainErrorMessage: 'string',
  pricing: 'object',
  shortestPeriod: 'object',
  group: 'string',
  minLength: 'integer',
  maxLength: 'integer',
  isPremium: 'boolean',
  premiumCostPricing: 'array-or-object',
};

function expectSpecShape(element: Record<string, unknown>): void {
  expect(Object.keys(element).sort()).toEqual(Object.keys(SPEC_TYPES).sort());
  for (const [field, type] of Object.entries(SPEC_TYPES)) {
    const value = element[field];
    if (type === 'integer') expect(Number.isInteger(value)).toBe(true);
    else if (type === 'object') expect(value !== null && typeof value === 'object' && !Array.isArray(value)).toBe(true);
    else if (type === 'array-or-object')
      expect(Array.isArray(value) || (value !== null && typeof value === 'object')).toBe(true);
    else expect(typeof value).toBe(type);
  }
  expect(['available for registration', 'registered', 'reserved', 'unknown', 'tld not supported']).toContain(
    element.status,
  );
  expect(element.legacyStatus).toBe(element.status === 'available for registration' ? 'available' : 'unavailable');
}

describe('domain search', () => {
  let h: Harness;
  const post = (route: string, body: string | object) => {
    const req = h.http.post(route).set(h.headers());
    return typeof body === 'string' ? req.type('form').send(body) : req.send(body);
  };
  const names = (res: Response) => (res.body as Element[]).map((r) => r.domainName);
  const plugin = (id: string) => h.module.registrars.get(id) as FixtureRegistrar;
  const checked = (id: string) => plugin(id).checks.flat();

  beforeAll(async () => {
    h = await startHarness({ pluginsDir: FIXTURES, registrar: 'plain', settings: { registrarTimeoutMs: 200 } });
    const { catalogue, resellers } = h.module.services;
    const prices = { register: { 1: 2000, 3: 5500 }, renew: { 1: 2100 } };
    await catalogue.setTld({ tld: '.shop', group: 'default', registrar: 'suggesting', prices });
    await catalogue.setTld({
      tld: '.dev',
      group: 'default',
      registrar: 'premium',
      prices: { register: { 1: 1500 }, renew: { 1: 1500 }, transfer: { 1: 1500 } },
    });
    await catalogue.setTld({ tld: '.slow', group: 'default', registrar: 'stalling', prices });
    await catalogue.setTld({ tld: '.fail', group: 'default', registrar: 'failing', prices });
    await catalogue.setTld({
      tld: '.рф',
      group: 'default',
      registrar: 'plain',
      prices: { register: { 1: 800 } },
      minLength: 2,
    });
    await catalogue.setTld({ tld: '.io', group: 'default', registrar: 'plain', prices, minLength: 3 });
    await resellers.createGroup('vip');
    await catalogue.setTld({ tld: '.vip', group: 'vip', registrar: 'plain', prices: { register: { 1: 9900 } } });
  });
  afterAll(async () => {
    await h.close();
  });

  describe('POST /domains/lookup/suggestions', () => {
    it('answers every field of docs/api.md#suggestion-element with its type, priced from the group catalogue', async () => {
      const res = await post(SUGGESTIONS, 'searchTerm=example&tldsToInclude=.com');
      expect(res.status).toBe(200);
      expect(res.body[0]).toEqual({
        domainName: 'example.com',
        idnDomainName: 'example.com',
        tld: '.com',
        tldNoDots: 'com',
        sld: 'example',
        idnSld: 'example',
        status: 'available for registration',
        legacyStatus: 'available',
        score: 100,
        isRegistered: false,
        isAvailable: true,
        isValidDomain: true,
        domainErrorMessage: '',
        pricing: {
          1: { register: '10.00', renew: '12.00', transfer: '9.00' },
          2: { register: '19.50', renew: '23.00' },
          5: { register: '45.00' },
        },
        shortestPeriod: { period: 1, register: '10.00', renew: '12.00', transfer: '9.00' },
        group: '',
        minLength: 1,
        maxLength: 63,
        isPremium: false,
        premiumCostPricing: [],
      });
      expect(res.body.length).toBeGreaterThan(1);
      for (const element of res.body) expectSpecShape(element);
    });

    it('lists the exact name on every searched TLD first, in the order asked, then available suggestions by score', async () => {
      const res = await post(SUGGESTIONS, 'searchTerm=bakery&tldsToInclude=.net&tldsToInclude=.com&tldsToInclude=.org');
      expect(res.status).toBe(200);
      const body = res.body as Element[];
      expect(names(res).slice(0, 3)).toEqual(['bakery.net', 'bakery.com', 'bakery.org']);
      expect(body.slice(0, 3).every((r) => r.score === 100)).toBe(true);
      const suggestions = body.slice(3);
      expect(suggestions.length).toBeGreaterThan(0);
      for (const s of suggestions) {
        expect(s.status).toBe('available for registration');
        expect(s.score).toBeLessThan(100);
        expect(['.com', '.net', '.org']).toContain(s.tld);
      }
      const scores = suggestions.map((s) => s.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      expect(new Set(names(res)).size).toBe(body.length);
    });

    it('reports registered and reserved exact names and offers no unavailable suggestion', async () => {
      const taken = await post(SUGGESTIONS, 'searchTerm=taken-bakery&tldsToInclude=.com');
      expect(taken.body[0]).toMatchObject({
        status: 'registered',
        legacyStatus: 'unavailable',
        isRegistered: true,
        isAvailable: false,
      });
      const reserved = await post(SUGGESTIONS, 'searchTerm=reserved-bakery&tldsToInclude=.com');
      expect(reserved.body[0]).toMatchObject({
        status: 'reserved',
        legacyStatus: 'unavailable',
        isRegistered: false,
        isAvailable: false,
      });
      for (const s of reserved.body.slice(1)) expect(s.status).toBe('available for registration');
    });

    describe('candidates', () => {
      it('makes its own suggestions when the registrar has no suggestions capability', async () => {
        expect(plugin('plain').suggestions).toBeUndefined();
        const res = await post(SUGGESTIONS, 'searchTerm=bestcoffee&tldsToInclude=.com');
        expect(res.status).toBe(200);
        expect(names(res)[0]).toBe('bestcoffee.com');
        expect(names(res)).toEqual(
          expect.arrayContaining(['best-coffee.com', 'getbestcoffee.com', 'bestcoffeehq.com']),
        );
      });

      it('merges and de-duplicates the suggestions of a registrar that has the capability, on its own TLDs only', async () => {
        const before = plugin('suggesting').suggestCalls.length;
        const res = await post(SUGGESTIONS, 'searchTerm=florist&tldsToInclude=.shop');
        expect(res.status).toBe(200);
        expect(plugin('suggesting').suggestCalls.slice(before)).toEqual([
          { term: 'florist', tlds: ['.shop'], limit: expect.any(Number) },
        ]);
        // The fixture also suggests the exact name, a case-duplicate, a taken name, an .xyz name, a
        // www. name and garbage: none of them may appear, nor a generated name.
        expect(names(res)).toEqual(['florist.shop', 'florist-online.shop', 'bestflorist.shop']);
      });

      it('drops registrar suggestions glued to the punycode of an IDN term (bestxn--bcher-kva.shop)', async () => {
        const before = plugin('suggesting').suggestCalls.length;
        const res = await post(SUGGESTIONS, `searchTerm=${encodeURIComponent('bücher')}&tldsToInclude=.shop`);
        expect(res.status).toBe(200);
        // The fixture glues text to the term it is given: xn--bcher-kva-online.shop, bestxn--bcher-kva.shop.
        expect(plugin('suggesting').suggestCalls.slice(before)).toEqual([
          { term: 'xn--bcher-kva', tlds: ['.shop'], limit: expect.any(Number) },
        ]);
        expect(names(res)).toEqual(['xn--bcher-kva.shop']);
      });

      it('uses registrar suggestions for its TLDs and the generator for the others in one search', async () => {
        const res = await post(SUGGESTIONS, 'searchTerm=roses&tldsToInclude=.shop&tldsToInclude=.com');
        expect(names(res).slice(0, 2)).toEqual(['roses.shop', 'roses.com']);
        expect(names(res)).toEqual(expect.arrayContaining(['roses-online.shop', 'getroses.com']));
        expect(names(res)).not.toContain('getroses.shop');
        expect(names(res)).not.toContain('roses-online.com');
      });

      it('honours suggestionSettings maxResults and accepts settings it does not know', async () => {
        const res = await post(
          SUGGESTIONS,
          'searchTerm=harbour&tldsToInclude=.com&tldsToInclude=.net&suggestionSettings[maxResults]=3&suggestionSettings[includeCCTlds]=on',
        );
        expect(res.status).toBe(200);
        expect(res.body).toHaveLength(2 + 3);
      });

      it.each([
        ['a JSON empty array', { searchTerm: 'harbour', suggestionSettings: [] }],
        ['a form empty list', 'searchTerm=harbour&suggestionSettings[]='],
        ['nothing at all', 'searchTerm=harbour'],
      ])('accepts suggestionSettings as %s', async (_, body) => {
        const res = await post(SUGGESTIONS, body);
        expect(res.status).toBe(200);
        expect(names(res)[0]).toBe('harbour.com');
      });
    });

    describe('terms', () => {
      const bucher = {
        domainName: 'xn--bcher-kva.com',
        idnDomainName: 'bücher.com',
        sld: 'xn--bcher-kva',
        idnSld: 'bücher',
        tld: '.com',
      };

      it('normalises a Unicode term with UTS-46', async () => {
        const res = await post(SUGGESTIONS, 'searchTerm=B%C3%BCcher&tldsToInclude=.com&isIdnDomain=true');
        expect(res.status).toBe(200);
        expect(res.body[0]).toMatchObject(bucher);
      });

      it('accepts a punycode term', async () => {
        const res = await post(SUGGESTIONS, 'punyCodeSearchTerm=xn--bcher-kva&tldsToInclude=.com');
        expect(res.body[0]).toMatchObject(bucher);
      });

      it('prefers punyCodeSearchTerm when both terms come', async () => {
        const res = await post(SUGGESTIONS, {
          searchTerm: 'books',
          punyCodeSearchTerm: 'xn--bcher-kva',
          tldsToInclude: ['.com'],
        });
        expect(res.body[0]).toMatchObject(bucher);
        expect(names(res)).not.toContain('books.com');
      });

      it('searches an IDN TLD named in Unicode and puts no Latin affix on a non-Latin label', async () => {
        const res = await post(
          SUGGESTIONS,
          'searchTerm=%D0%9F%D1%80%D0%B8%D0%BC%D0%B5%D1%80&tldsToInclude=.%D1%80%D1%84',
        );
        expect(res.status).toBe(200);
        expect(res.body[0]).toMatchObject({
          domainName: 'xn--e1afmkfd.xn--p1ai',
          idnDomainName: 'пример.рф',
          tld: '.xn--p1ai',
          tldNoDots: 'xn--p1ai',
          sld: 'xn--e1afmkfd',
          idnSld: 'пример',
          minLength: 2,
        });
        for (const s of res.body.slice(1) as Element[]) expect(s.idnSld).not.toMatch(/[a-z]/);
      });

      it('takes the label of a full name and searches its TLD first', async () => {
        const res = await post(SUGGESTIONS, 'searchTerm=shop.net');
        expect(res.status).toBe(200);
        expect(names(res).slice(0, 3)).toEqual(['shop.net', 'shop.com', 'shop.org']);
        expect(names(res).filter((n) => n === 'shop.net')).toHaveLength(1);
      });

      it('puts the TLD of a full name before tldsToInclude', async () => {
        const res = await post(SUGGESTIONS, 'searchTerm=shop.net&tldsToInclude=.com');
        expect(names(res).slice(0, 2)).toEqual(['shop.net', 'shop.com']);
        expect((res.body as Element[]).every((r) => ['.com', '.net'].includes(r.tld))).toBe(true);
      });

      it.each(['www.Shop.COM.', 'https://shop.com/path', 'ＳＨＯＰ。ｃｏｍ'])('reads %s as shop.com', async (term) => {
        const res = await post(SUGGESTIONS, { searchTerm: term, tldsToInclude: ['.net'] });
        expect(res.status).toBe(200);
        expect(names(res).slice(0, 2)).toEqual(['shop.com', 'shop.net']);
      });

      it('joins the words of a term with spaces and offers them hyphenated', async () => {
        const res = await post(SUGGESTIONS, 'searchTerm=My+Garden&tldsToInclude=.com');
        expect(names(res)[0]).toBe('mygarden.com');
        expect(names(res)).toContain('my-garden.com');
      });
    });

    describe('TLDs', () => {
      it.each([
        ['repeated names', 'searchTerm=lantern&tldsToInclude=.com&tldsToInclude=.net'],
        ['name[]', 'searchTerm=lantern&tldsToInclude[]=.com&tldsToInclude[]=.net'],
        ['name[0]', 'searchTerm=lantern&tldsToInclude[0]=.com&tldsToInclude[1]=net'],
        ['a JSON array', { searchTerm: 'lantern', tldsToInclude: ['.COM', 'net'] }],
      ])('narrows to tldsToInclude sent as %s', async (_, body) => {
        const res = await post(SUGGESTIONS, body);
        expect(res.status).toBe(200);
        expect(names(res).slice(0, 2)).toEqual(['lantern.com', 'lantern.net']);
        expect((res.body as Element[]).every((r) => ['.com', '.net'].includes(r.tld))).toBe(true);
      });

      it('reports a TLD outside the group as tld not supported, never prices it and never asks its registrar', async () => {
        const res = await post(
          SUGGESTIONS,
          'searchTerm=orchard&tldsToInclude=.com&tldsToInclude=.vip&tldsToInclude=.nope',
        );
        expect(res.status).toBe(200);
        const unsupported = (res.body as Element[]).filter((r) => r.tld !== '.com');
        expect(unsupported).toHaveLength(2);
        for (const r of unsupported) {
          expectSpecShape(r);
          expect(r).toMatchObject({
            status: 'tld not supported',
            legacyStatus: 'unavailable',
            isAvailable: false,
            isRegistered: false,
            pricing: {},
            shortestPeriod: {},
            premiumCostPricing: [],
            isPremium: false,
            score: 100,
            minLength: 1,
            maxLength: 63,
          });
        }
        expect(names(res).slice(0, 3)).toEqual(['orchard.com', 'orchard.vip', 'orchard.nope']);
        expect(checked('plain').filter((n) => n.endsWith('.vip') || n.endsWith('.nope'))).toEqual([]);
      });

      it('searches every TLD of the group, .com first, when tldsToInclude is absent', async () => {
        const res = await post(SUGGESTIONS, 'searchTerm=pebble');
        const exact = (res.body as Element[]).filter((r) => r.score === 100).map((r) => r.tld);
        expect(exact.slice(0, 3)).toEqual(['.com', '.net', '.org']);
        expect(new Set(exact)).toEqual(
          new Set(['.com', '.net', '.org', '.shop', '.dev', '.slow', '.fail', '.xn--p1ai', '.io']),
        );
      });

      it('marks a name that breaks the TLD length rule invalid without asking the registrar', async () => {
        const res = await post(SUGGESTIONS, 'searchTerm=qz&tldsToInclude=.io&tldsToInclude=.com');
        expect(res.body[0]).toMatchObject({
          domainName: 'qz.io',
          isValidDomain: false,
          isAvailable: false,
          status: 'unknown',
          minLength: 3,
        });
        expect(res.body[0].domainErrorMessage).toMatch(/3 to 63 characters/);
        expect(res.body[1]).toMatchObject({ domainName: 'qz.com', isValidDomain: true, isAvailable: true });
        expect(checked('plain')).not.toContain('qz.io');
      });
    });

    describe('premium names', () => {
      it.each(['', '&premiumEnabled=false', '&premiumEnabled=0'])(
        'does not offer a premium name as available without premiumEnabled (%s)',
        async (flag) => {
          const res = await post(SUGGESTIONS, `searchTerm=premium-cars&tldsToInclude=.dev${flag}`);
          expect(res.body[0]).toMatchObject({
            domainName: 'premium-cars.dev',
            status: 'reserved',
            legacyStatus: 'unavailable',
            isAvailable: false,
            isPremium: false,
            premiumCostPricing: [],
          });
          expect(res.body[0].domainErrorMessage).toMatch(/premium/);
          for (const s of res.body.slice(1) as Element[]) {
            expect(s.isPremium).toBe(false);
            expect(s.domainName.startsWith('premium-')).toBe(false);
          }
        },
      );

      const withPremiumRule = async <T>(rule: PremiumRule, run: () => Promise<T>): Promise<T> => {
        await h.module.services.catalogue.setPremiumRule('default', rule);
        try {
          return await run();
        } finally {
          await h.module.services.catalogue.setPremiumRule('default', null);
        }
      };

      it("offers a premium name at the group's premium price (registry cost + markup) with premiumEnabled", async () => {
        const res = await withPremiumRule({ kind: 'markup', basisPoints: 2000 }, () =>
          post(SUGGESTIONS, 'searchTerm=premium-cars&tldsToInclude=.dev&premiumEnabled=true'),
        );
        expect(res.body[0]).toMatchObject({
          domainName: 'premium-cars.dev',
          status: 'available for registration',
          legacyStatus: 'available',
          isAvailable: true,
          isPremium: true,
          premiumCostPricing: { register: '600.00', renew: '540.00', CurrencyCode: 'USD' },
          pricing: { 1: { register: '15.00', renew: '15.00', transfer: '15.00' } },
        });
        const premiumSuggestions = (res.body as Element[]).slice(1).filter((s) => s.isPremium);
        expect(premiumSuggestions.map((s) => s.domainName)).toContain('premium-cars-hq.dev');
      });

      it('reports a premium name as reserved, with premiumEnabled, to a group without a premium rule', async () => {
        const res = await post(LOOKUP, 'searchTerm=premium-cars&tldsToInclude=.dev&premiumEnabled=1');
        expect(res.body[0]).toMatchObject({
          domainName: 'premium-cars.dev',
          status: 'reserved',
          isAvailable: false,
          premiumCostPricing: [],
          domainErrorMessage: 'premium-cars.dev is a premium name; premium names are not sold to your account',
        });
      });

      it("quotes a fixed table's price for the cost band, and reserves a cost above the last band", async () => {
        const table = (upTo: number): PremiumRule => ({ kind: 'table', bands: [{ upTo, price: 700_00 }] });
        const quoted = await withPremiumRule(table(500_00), () =>
          post(LOOKUP, 'searchTerm=premium-cars&tldsToInclude=.dev&premiumEnabled=1'),
        );
        expect(quoted.body[0]).toMatchObject({
          isAvailable: true,
          premiumCostPricing: { register: '700.00', renew: '700.00', CurrencyCode: 'USD' },
        });
        const above = await withPremiumRule(table(499_99), () =>
          post(LOOKUP, 'searchTerm=premium-cars&tldsToInclude=.dev&premiumEnabled=1'),
        );
        expect(above.body[0]).toMatchObject({ status: 'reserved', isAvailable: false, premiumCostPricing: [] });
      });

      it('reports a premium name the registry gives no price for as reserved even with premiumEnabled', async () => {
        const res = await withPremiumRule({ kind: 'markup', basisPoints: 0 }, () =>
          post(SUGGESTIONS, 'searchTerm=premiumnoprice-cars&tldsToInclude=.dev&premiumEnabled=yes'),
        );
        expect(res.body[0]).toMatchObject({
          status: 'reserved',
          isAvailable: false,
          isPremium: true,
          premiumCostPricing: [],
        });
      });
    });

    describe('registrar failures', () => {
      it('marks the names of a registrar that times out unknown and still answers the rest', async () => {
        const res = await post(SUGGESTIONS, 'searchTerm=lighthouse&tldsToInclude=.slow&tldsToInclude=.com');
        expect(res.status).toBe(200);
        expect(res.body[0]).toMatchObject({
          domainName: 'lighthouse.slow',
          status: 'unknown',
          legacyStatus: 'unavailable',
          isAvailable: false,
          isRegistered: false,
          isValidDomain: true,
        });
        expect(res.body[0].domainErrorMessage).toMatch(/did not answer in time/);
        expect(res.body[1]).toMatchObject({ domainName: 'lighthouse.com', status: 'available for registration' });
        expect((res.body as Element[]).filter((r) => r.tld === '.slow')).toHaveLength(1);
      });

      it('marks the names of a registrar that fails unknown', async () => {
        const res = await post(LOOKUP, 'searchTerm=lighthouse&tldsToInclude=.fail&tldsToInclude=.com');
        expect(res.status).toBe(200);
        expect(res.body.map((r: Element) => [r.domainName, r.status])).toEqual([
          ['lighthouse.fail', 'unknown'],
          ['lighthouse.com', 'available for registration'],
        ]);
        expect(res.body[0].domainErrorMessage).toMatch(/could not check/);
      });

      it('does not cache unknown answers', async () => {
        const before = plugin('stalling').checks.length;
        await post(LOOKUP, 'searchTerm=beacon&tldsToInclude=.slow');
        await post(LOOKUP, 'searchTerm=beacon&tldsToInclude=.slow');
        expect(plugin('stalling').checks.length).toBe(before + 2);
      });
    });

    describe('registrar calls', () => {
      it('asks each registrar once per search with all its names in one batch', async () => {
        const before = plugin('plain').checks.length;
        const res = await post(
          SUGGESTIONS,
          'searchTerm=quarry&tldsToInclude=.com&tldsToInclude=.net&tldsToInclude=.org&suggestionSettings[maxResults]=5',
        );
        const calls = plugin('plain').checks.slice(before);
        expect(calls).toHaveLength(1);
        expect(calls[0]).toEqual(expect.arrayContaining(['quarry.com', 'quarry.net', 'quarry.org', ...names(res)]));
      });

      it('reuses availability answers for the configured seconds, then asks again', async () => {
        const body = 'searchTerm=willow&tldsToInclude=.com';
        const before = plugin('plain').checks.length;
        await post(LOOKUP, body);
        await post(LOOKUP, body);
        expect(plugin('plain').checks.length).toBe(before + 1);
        h.clock.advance(31_000);
        await post(LOOKUP, body);
        expect(plugin('plain').checks.length).toBe(before + 2);
      });
    });

    describe('bad input', () => {
      it.each([
        ['no term at all', ''],
        ['an empty term', 'searchTerm='],
        ['a blank term', 'searchTerm=%20%20&punyCodeSearchTerm='],
      ])('refuses %s with 400', async (_, body) => {
        const res = await post(SUGGESTIONS, body);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: 'searchTerm is required' });
      });

      it.each([
        ['nothing searchable after normalisation', 'searchTerm=!!!', /no letters or digits/],
        ['only hyphens', 'searchTerm=---', /no letters or digits/],
        ['a term over 253 characters', `searchTerm=${'a'.repeat(300)}`, /too long/],
        ['a label over 63 characters', `searchTerm=${'a'.repeat(64)}`, /too long/],
        ['a Unicode label over 63 characters in punycode', `searchTerm=${'%C3%BC'.repeat(60)}`, /too long/],
        ['broken punycode', 'punyCodeSearchTerm=xn--zz', /punycode/],
        ['a term sent twice', 'searchTerm[]=a&searchTerm[]=b', /searchTerm must be a single text value/],
        ['several names in front of the TLD', 'searchTerm=a.b.shop.com', /one name/],
        ['a term ending in something that cannot be a TLD', 'searchTerm=shop.c0m', /cannot be a TLD/],
        ['a malformed TLD', 'searchTerm=shop&tldsToInclude=.c_m', /not a valid TLD/],
        ['a nested tldsToInclude', 'searchTerm=shop&tldsToInclude[a][b]=.com', /tldsToInclude must be a list/],
        [
          'too many TLDs in a form',
          `searchTerm=shop&${Array.from({ length: 101 }, (_, i) => `tldsToInclude=.t${i}`).join('&')}`,
          /limit|at most/,
        ],
        ['suggestionSettings as text', 'searchTerm=shop&suggestionSettings=abc', /suggestionSettings must be an array/],
        ['maxResults 0', 'searchTerm=shop&suggestionSettings[maxResults]=0', /maxResults/],
        ['maxResults 500', 'searchTerm=shop&suggestionSettings[maxResults]=500', /maxResults/],
        ['maxResults in words', 'searchTerm=shop&suggestionSettings[maxResults]=ten', /maxResults/],
        ['a boolean that is not one', 'searchTerm=shop&premiumEnabled=maybe', /premiumEnabled must be true or false/],
      ])('refuses %s with 400', async (_, body, message) => {
        const res = await post(SUGGESTIONS, body);
        expect(res.status).toBe(400);
        expect(Object.keys(res.body)).toEqual(['error']);
        expect(res.body.error).toMatch(message);
      });

      it('refuses more than 100 TLDs in a JSON array with 400', async () => {
        const res = await post(SUGGESTIONS, {
          searchTerm: 'shop',
          tldsToInclude: Array.from({ length: 101 }, (_, i) => `.t${i}`),
        });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatch(/at most 100/);
      });

      it('requires authentication', async () => {
        const res = await h.http.post(SUGGESTIONS).type('form').send('searchTerm=shop');
        expect(res.status).toBe(401);
      });
    });
  });

  describe('POST /domains/lookup', () => {
    it('answers the exact name on each TLD asked, in the suggestion element shape, and nothing else', async () => {
      const res = await post(
        LOOKUP,
        'searchTerm=meadow&tldsToInclude=.com&tldsToInclude=.vip&tldsToInclude=.net&suggestionSettings[maxResults]=5',
      );
      expect(res.status).toBe(200);
      expect((res.body as Element[]).map((r) => [r.domainName, r.status])).toEqual([
        ['meadow.com', 'available for registration'],
        ['meadow.vip', 'tld not supported'],
        ['meadow.net', 'available for registration'],
      ]);
      for (const element of res.body) expectSpecShape(element);
    });

    it('looks up only the name of a full-name term sent without tldsToInclude', async () => {
      const res = await post(LOOKUP, 'searchTerm=taken-meadow.org');
      expect(res.body).toHaveLength(1);
      expect(res.body[0]).toMatchObject({ domainName: 'taken-meadow.org', status: 'registered', isRegistered: true });
    });

    it('looks up every TLD of the group for a bare label', async () => {
      const res = await post(LOOKUP, { searchTerm: 'meadow', tldsToInclude: [] });
      expect(names(res)).toHaveLength(9);
      expect(names(res).slice(0, 3)).toEqual(['meadow.com', 'meadow.net', 'meadow.org']);
    });

    it('handles IDN terms and premium names like the suggestions do', async () => {
      const idn = await post(LOOKUP, 'punyCodeSearchTerm=xn--bcher-kva&searchTerm=ignored&tldsToInclude=.com');
      expect(idn.body).toEqual([
        expect.objectContaining({ domainName: 'xn--bcher-kva.com', idnDomainName: 'bücher.com' }),
      ]);
      const off = await post(LOOKUP, 'searchTerm=premium-boats.dev');
      expect(off.body[0]).toMatchObject({ status: 'reserved', isPremium: false });
      await h.module.services.catalogue.setPremiumRule('default', { kind: 'markup', basisPoints: 0 });
      const on = await post(LOOKUP, 'searchTerm=premium-boats.dev&premiumEnabled=on');
      await h.module.services.catalogue.setPremiumRule('default', null);
      expect(on.body[0]).toMatchObject({
        status: 'available for registration',
        isPremium: true,
        premiumCostPricing: { register: '500.00', CurrencyCode: 'USD' },
      });
    });

    it('refuses a missing term with 400', async () => {
      const res = await post(LOOKUP, 'tldsToInclude=.com');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'searchTerm is required' });
    });
  });
});
