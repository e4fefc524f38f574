import { fixedClock } from '../../../../src/core/common/clock';
import { RecentReads } from '../../../../src/core/common/recent-reads';

describe('RecentReads', () => {
  const counting = () => {
    let reads = 0;
    return { load: async () => ++reads, reads: () => reads };
  };

  it('reuses an answer within its time and reads again after it', async () => {
    const clock = fixedClock('2026-11-21T10:00:00Z');
    const recent = new RecentReads(1000, clock);
    const source = counting();
    expect(await recent.read('k', source.load)).toBe(1);
    clock.advance(999);
    expect(await recent.read('k', source.load)).toBe(1);
    clock.advance(1);
    expect(await recent.read('k', source.load)).toBe(2);
  });

  it('shares one read between concurrent misses, and keeps keys apart', async () => {
    const recent = new RecentReads(1000, fixedClock('2026-11-21T10:00:00Z'));
    const source = counting();
    const answers = await Promise.all([
      recent.read('a', source.load),
      recent.read('a', source.load),
      recent.read('b', source.load),
    ]);
    expect(answers).toEqual([1, 1, 2]);
  });

  it('forgets a failed read at once', async () => {
    const recent = new RecentReads(1000, fixedClock('2026-11-21T10:00:00Z'));
    await expect(
      recent.read('k', async () => {
        throw new Error('down');
      }),
    ).rejects.toThrow('down');
    expect(await recent.read('k', async () => 'up')).toBe('up');
  });

  it('reads every time with a time of 0, and after clear()', async () => {
    const source = counting();
    const off = new RecentReads(0, fixedClock('2026-11-21T10:00:00Z'));
    await off.read('k', source.load);
    await off.read('k', source.load);
    expect(source.reads()).toBe(2);
    const on = new RecentReads(1000, fixedClock('2026-11-21T10:00:00Z'));
    await on.read('k', source.load);
    on.clear();
    expect(await on.read('k', source.load)).toBe(4);
  });

  it('keeps at most maxEntries keys', async () => {
    const recent = new RecentReads(1000, fixedClock('2026-11-21T10:00:00Z'), 2);
    const source = counting();
    await recent.read('a', source.load);
    await recent.read('b', source.load);
    await recent.read('c', source.load);
    expect(await recent.read('a', source.load)).toBe(4);
  });
});
