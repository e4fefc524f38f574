import type { Tld, TldPrice } from '../../../../src/core/catalogue/catalogue';
import type { RegistrarPlugin } from '../../../../src/core/registrar/plugin';
import { AvailabilityChecker } from '../../../../src/core/search/availability-checker';
import { SearchService } from '../../../../src/core/search/search-service';
import { fixedClock } from '../../../../src/core/common/clock';
import type { UnitOfWork } from '../../../../src/core/common/unit-of-work';
import { deferred, availabilityRegistrar, guardedDirectory, recordingLogger } from '../../../support/fakes';

/** The catalogue reads a search makes, in memory: each TLD priced 10.00 for one year for group g1. */
function catalogue(tlds: Array<[string, string]>): UnitOfWork {
  const rows: Tld[] = tlds.map(([tld, registrar]) => ({
    tld,
    registrar,
    minLength: 1,
    maxLength: 63,
    graceDays: 0,
    redemptionDays: 0,
  }));
  const prices: TldPrice[] = tlds.map(([tld]) => ({ tld, action: 'register', period: 1, price: 1000 }));
  return {
    read: {
      catalogue: {
        listTlds: async () => rows,
        prices: async (groupId: string) => (groupId === 'g1' ? prices : []),
        // Group g1 sells premium names at the registry's cost.
        premiumRule: async (groupId: string) => (groupId === 'g1' ? { kind: 'markup', basisPoints: 0 } : undefined),
      },
    },
  } as unknown as UnitOfWork;
}

function service(tlds: Array<[string, string]>, plugins: RegistrarPlugin[], logger = recordingLogger()) {
  const directory = guardedDirectory(plugins);
  const availability = new AvailabilityChecker(directory, fixedClock('2026-11-21T10:00:00Z'), logger, {
    cacheSeconds: 0,
  });
  return new SearchService(catalogue(tlds), directory, availability, logger, { currency: 'EUR' });
}

describe('SearchService', () => {
  describe('when TLDs are served by several registrars', () => {
    it('should ask them all at the same time', async () => {
      const aAsked = deferred();
      const bAsked = deferred();
      const available = (domains: readonly string[]) =>
        domains.map((domain) => ({ domain, status: 'available' as const }));
      const a = availabilityRegistrar('a', async (domains) => {
        aAsked.resolve();
        await bAsked.promise;
        return available(domains);
      });
      const b = availabilityRegistrar('b', async (domains) => {
        bAsked.resolve();
        await aAsked.promise;
        return available(domains);
      });
      const results = await service(
        [
          ['.com', 'a'],
          ['.net', 'b'],
        ],
        [a, b],
      ).lookup('g1', { searchTerm: 'tulip' });
      expect(results.map((r) => [r.domain.ascii, r.status])).toEqual([
        ['tulip.com', 'available'],
        ['tulip.net', 'available'],
      ]);
    });
  });

  describe('when a registrar has the suggestions capability', () => {
    it('should check the exact names while it thinks, and list none of its suggestions when it fails', async () => {
      const logger = recordingLogger();
      const suggests = availabilityRegistrar('s', undefined, {
        suggestions: {
          suggest: async () => {
            throw new Error('suggest API down');
          },
        },
      });
      const results = await service([['.com', 's']], [suggests], logger).suggestions('g1', { searchTerm: 'tulip' });
      expect(results.map((r) => [r.domain.ascii, r.status, r.score])).toEqual([['tulip.com', 'available', 100]]);
      expect(logger.warnings.map((w) => w.obj)).toContainEqual(
        expect.objectContaining({ registrar: 's', err: 'suggest API down' }),
      );
    });

    it('should not use the generator for its TLDs', async () => {
      const suggests = availabilityRegistrar('s', undefined, {
        suggestions: { suggest: async () => [{ domain: 'tulipmarket.com', score: 80 }] },
      });
      const results = await service([['.com', 's']], [suggests]).suggestions('g1', { searchTerm: 'tulip' });
      expect(results.map((r) => r.domain.ascii)).toEqual(['tulip.com', 'tulipmarket.com']);
      expect(results[1].score).toBe(76 - 6);
    });
  });

  describe('premium prices', () => {
    it('should quote them in the platform currency', async () => {
      const premium = availabilityRegistrar('p', (domains) =>
        domains.map((domain) => ({
          domain,
          status: 'available' as const,
          isPremium: true,
          premiumPrice: { register: 250_00 },
        })),
      );
      const [result] = await service([['.com', 'p']], [premium]).lookup('g1', {
        searchTerm: 'gold',
        premiumEnabled: true,
      });
      expect(result).toMatchObject({
        status: 'available',
        isPremium: true,
        premiumPrice: { register: 250_00, currency: 'EUR' },
      });
    });
  });

  describe('when the group is offered nothing', () => {
    it('should answer with the requested names as unsupported and ask no registrar', async () => {
      const a = availabilityRegistrar('a');
      const results = await service([['.com', 'a']], [a]).suggestions('other-group', {
        searchTerm: 'tulip',
        tldsToInclude: ['.com'],
      });
      expect(results.map((r) => [r.domain.ascii, r.status, r.prices])).toEqual([
        ['tulip.com', 'tld_not_supported', []],
      ]);
      expect(a.batches).toEqual([]);
    });
  });
});
