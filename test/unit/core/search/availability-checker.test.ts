import { AvailabilityChecker, type AvailabilityCheckerOptions } from '../../../../src/core/search/availability-checker';
import { fixedClock } from '../../../../src/core/common/clock';
import { InProcessEventBus } from '../../../../src/core/common/events';
import { followOwnOrders } from '../../../../src/core/search/own-orders';
import { toPlatformEvent } from '../../../../src/core/events/outbox';
import type { RegistrarPlugin } from '../../../../src/core/registrar/plugin';
import { deferred, availabilityRegistrar, guardedDirectory, recordingLogger } from '../../../support/fakes';

const clock = fixedClock('2026-11-21T10:00:00Z');
const checker = (
  plugins: RegistrarPlugin[],
  { timeoutMs = 1_000, ...options }: Partial<AvailabilityCheckerOptions> & { timeoutMs?: number } = {},
) =>
  new AvailabilityChecker(guardedDirectory(plugins, { timeoutMs }), clock, recordingLogger(), {
    cacheSeconds: 30,
    ...options,
  });
const statuses = (answers: Map<string, { status: string }>) =>
  Object.fromEntries([...answers].map(([name, a]) => [name, a.status]));

describe('AvailabilityChecker', () => {
  describe('when names belong to several registrars', () => {
    it('should ask each registrar once with all of its names', async () => {
      const a = availabilityRegistrar('a');
      const b = availabilityRegistrar('b');
      const answers = await checker([a, b]).check([
        { registrar: 'a', domain: 'x.com' },
        { registrar: 'b', domain: 'x.net' },
        { registrar: 'a', domain: 'y.com' },
        { registrar: 'a', domain: 'x.com' },
      ]);
      expect(a.batches).toEqual([['x.com', 'y.com']]);
      expect(b.batches).toEqual([['x.net']]);
      expect(statuses(answers)).toEqual({ 'x.com': 'available', 'y.com': 'available', 'x.net': 'available' });
    });

    it('should ask them all at the same time', async () => {
      // Each registrar answers only once the other has been asked: asked one after the other,
      // the first would wait for ever and end at its deadline as unknown.
      const aAsked = deferred();
      const bAsked = deferred();
      const a = availabilityRegistrar('a', async (domains) => {
        aAsked.resolve();
        await bAsked.promise;
        return domains.map((domain) => ({ domain, status: 'available' as const }));
      });
      const b = availabilityRegistrar('b', async (domains) => {
        bAsked.resolve();
        await aAsked.promise;
        return domains.map((domain) => ({ domain, status: 'registered' as const }));
      });
      const answers = await checker([a, b]).check([
        { registrar: 'a', domain: 'x.com' },
        { registrar: 'b', domain: 'x.net' },
      ]);
      expect(statuses(answers)).toEqual({ 'x.com': 'available', 'x.net': 'registered' });
    });

    it("should split a registrar's names into batches asked at the same time", async () => {
      let started = 0;
      const allStarted = deferred();
      const a = availabilityRegistrar('a', async (domains) => {
        if (++started === 3) allStarted.resolve();
        await allStarted.promise;
        return domains.map((domain) => ({ domain, status: 'available' as const }));
      });
      const names = ['a.com', 'b.com', 'c.com', 'd.com', 'e.com'];
      const answers = await checker([a], { batchSize: 2 }).check(names.map((domain) => ({ registrar: 'a', domain })));
      expect(a.batches).toEqual([['a.com', 'b.com'], ['c.com', 'd.com'], ['e.com']]);
      expect([...answers.keys()].sort()).toEqual(names);
    });
  });

  describe('when a registrar does not answer well', () => {
    it('should mark the names of a registrar past its deadline unknown (timeout) and keep the others', async () => {
      const stalls = availabilityRegistrar('stalls', () => new Promise(() => undefined));
      const fine = availabilityRegistrar('fine');
      const answers = await checker([stalls, fine], { timeoutMs: 20 }).check([
        { registrar: 'stalls', domain: 'x.com' },
        { registrar: 'fine', domain: 'x.net' },
      ]);
      expect(answers.get('x.com')).toEqual({ status: 'unknown', isPremium: false, failure: 'timeout' });
      expect(answers.get('x.net')?.status).toBe('available');
    });

    it('should mark the names of a registrar that throws unknown (error), even synchronously', async () => {
      const throws = availabilityRegistrar('throws', undefined, {
        checkAvailability: () => {
          throw new Error('registry down');
        },
      });
      const logger = recordingLogger();
      const answers = await new AvailabilityChecker(guardedDirectory([throws]), clock, logger, {
        cacheSeconds: 30,
      }).check([{ registrar: 'throws', domain: 'x.com' }]);
      expect(answers.get('x.com')).toEqual({ status: 'unknown', isPremium: false, failure: 'error' });
      expect(logger.warnings[0].obj).toMatchObject({ registrar: 'throws', err: 'registry down' });
    });

    it('should mark the names of a registrar that is not installed unknown (not_installed)', async () => {
      const answers = await checker([]).check([{ registrar: 'gone', domain: 'x.com' }]);
      expect(answers.get('x.com')).toEqual({ status: 'unknown', isPremium: false, failure: 'not_installed' });
    });

    it('should not trust names it did not ask, statuses it does not know, or a name whose premium price is broken', async () => {
      const odd = availabilityRegistrar('odd', () => [
        { domain: 'A.COM', status: 'weird' as never },
        { domain: 'other.com', status: 'available' },
        null as never,
        { domain: 'c.com', status: 'available', isPremium: true, premiumPrice: { register: -1 } },
        {
          domain: 'd.com',
          status: 'available',
          isPremium: true,
          premiumPrice: { register: 1000, renew: 1.5, transfer: 900 },
        },
      ]);
      const answers = await checker([odd]).check(
        ['a.com', 'b.com', 'c.com', 'd.com'].map((domain) => ({ registrar: 'odd', domain })),
      );
      expect(answers.get('a.com')).toEqual({ status: 'unknown', isPremium: false });
      expect(answers.get('b.com')).toEqual({ status: 'unknown', isPremium: false, failure: 'no_answer' });
      // A broken premium price is not trusted in part (issue 26 item 2): the name's answer is unusable.
      expect(answers.get('c.com')).toEqual({ status: 'unknown', isPremium: false, failure: 'no_answer' });
      expect(answers.get('d.com')).toEqual({ status: 'unknown', isPremium: false, failure: 'no_answer' });
      expect(answers.has('other.com')).toBe(false);
    });
  });

  describe('caching', () => {
    it('should reuse a definite answer until its seconds are up', async () => {
      const a = availabilityRegistrar('a');
      const c = checker([a], { cacheSeconds: 10 });
      await c.check([{ registrar: 'a', domain: 'x.com' }]);
      clock.advance(9_000);
      await c.check([
        { registrar: 'a', domain: 'x.com' },
        { registrar: 'a', domain: 'y.com' },
      ]);
      expect(a.batches).toEqual([['x.com'], ['y.com']]);
      clock.advance(2_000);
      await c.check([{ registrar: 'a', domain: 'x.com' }]);
      expect(a.batches).toEqual([['x.com'], ['y.com'], ['x.com']]);
    });

    it('should not cache unknown answers', async () => {
      let calls = 0;
      const flaky = availabilityRegistrar('flaky', (domains) =>
        ++calls === 1
          ? domains.map((domain) => ({ domain, status: 'unknown' as const }))
          : domains.map((domain) => ({ domain, status: 'registered' as const })),
      );
      const c = checker([flaky]);
      expect((await c.check([{ registrar: 'flaky', domain: 'x.com' }])).get('x.com')?.status).toBe('unknown');
      expect((await c.check([{ registrar: 'flaky', domain: 'x.com' }])).get('x.com')?.status).toBe('registered');
    });

    it('should ask every time when the cache is off', async () => {
      const a = availabilityRegistrar('a');
      const c = checker([a], { cacheSeconds: 0 });
      await c.check([{ registrar: 'a', domain: 'x.com' }]);
      await c.check([{ registrar: 'a', domain: 'x.com' }]);
      expect(a.batches).toHaveLength(2);
    });

    it('should share one registrar call between concurrent searches for the same name', async () => {
      const release = deferred();
      const slow = availabilityRegistrar('slow', async (domains) => {
        await release.promise;
        return domains.map((domain) => ({ domain, status: 'available' as const }));
      });
      const c = checker([slow], { cacheSeconds: 0 });
      const first = c.check([{ registrar: 'slow', domain: 'x.com' }]);
      const second = c.check([
        { registrar: 'slow', domain: 'x.com' },
        { registrar: 'slow', domain: 'y.com' },
      ]);
      release.resolve();
      const [one, two] = await Promise.all([first, second]);
      expect(slow.batches).toEqual([['x.com'], ['y.com']]);
      expect(one.get('x.com')?.status).toBe('available');
      expect(statuses(two)).toEqual({ 'x.com': 'available', 'y.com': 'available' });
    });
  });

  describe("when the platform's own orders change a name", () => {
    const events = () => new InProcessEventBus(recordingLogger());
    const placed = (action: 'register' | 'renew' | 'transfer', domain: string) => ({
      orderId: 'o1',
      resellerId: 'r1',
      action,
      domain,
      period: 1,
      price: 1000,
      at: clock.now(),
    });

    it('should answer registered without asking once our registration is placed', async () => {
      const a = availabilityRegistrar('a');
      const bus = events();
      const subject = checker([a]);
      followOwnOrders(bus, subject);
      await subject.check([{ registrar: 'a', domain: 'x.com' }]);
      bus.deliver(toPlatformEvent({ name: 'order.placed', event: placed('register', 'x.com') }));
      expect(statuses(await subject.check([{ registrar: 'a', domain: 'x.com' }]))).toEqual({ 'x.com': 'registered' });
      expect(a.batches).toEqual([['x.com']]);
    });

    it('should ask again once our order failed', async () => {
      const a = availabilityRegistrar('a');
      const bus = events();
      const subject = checker([a]);
      followOwnOrders(bus, subject);
      bus.deliver(toPlatformEvent({ name: 'order.placed', event: placed('register', 'x.com') }));
      bus.deliver(
        toPlatformEvent({
          name: 'order.failed',
          event: {
            orderId: 'o1',
            resellerId: 'r1',
            action: 'register',
            domain: 'x.com',
            reason: 'refused',
            refunded: 1000,
            at: clock.now(),
          },
        }),
      );
      expect(statuses(await subject.check([{ registrar: 'a', domain: 'x.com' }]))).toEqual({ 'x.com': 'available' });
      expect(a.batches).toEqual([['x.com']]);
    });

    it('should leave a renewal alone', async () => {
      const a = availabilityRegistrar('a');
      const bus = events();
      const subject = checker([a]);
      followOwnOrders(bus, subject);
      await subject.check([{ registrar: 'a', domain: 'x.com' }]);
      bus.deliver(toPlatformEvent({ name: 'order.placed', event: placed('renew', 'x.com') }));
      expect(statuses(await subject.check([{ registrar: 'a', domain: 'x.com' }]))).toEqual({ 'x.com': 'available' });
      expect(a.batches).toEqual([['x.com']]);
    });

    it('should ask again once our domain is cancelled, for every registrar that answered for it', async () => {
      const a = availabilityRegistrar('a');
      const b = availabilityRegistrar('b');
      const bus = events();
      const subject = checker([a, b]);
      followOwnOrders(bus, subject);
      await subject.check([
        { registrar: 'a', domain: 'x.com' },
        { registrar: 'b', domain: 'x.com' },
      ]);
      bus.deliver(
        toPlatformEvent({
          name: 'domain.status_changed',
          event: {
            domainId: 'd1',
            domain: 'x.com',
            resellerId: 'r1',
            from: 'Active',
            to: 'Cancelled',
            cause: 'delete',
            at: clock.now(),
          },
        }),
      );
      await subject.check([
        { registrar: 'a', domain: 'x.com' },
        { registrar: 'b', domain: 'x.com' },
      ]);
      expect(a.batches).toEqual([['x.com'], ['x.com']]);
      expect(b.batches).toEqual([['x.com'], ['x.com']]);
    });
  });
});
