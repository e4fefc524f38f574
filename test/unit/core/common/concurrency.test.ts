import { forEachConcurrently, forEachConcurrentlyPerKey } from '../../../../src/core/common/concurrency';

async function* numbers(n: number) {
  for (let i = 0; i < n; i++) yield i;
}

describe('forEachConcurrently', () => {
  it('works through every item with never more than the limit in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const seen: number[] = [];
    await forEachConcurrently(numbers(25), 4, async (i) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      seen.push(i);
      inFlight--;
    });
    expect(seen.sort((a, b) => a - b)).toEqual([...Array(25).keys()]);
    expect(most).toBe(4);
  });

  it('refuses a limit below one', async () => {
    await expect(forEachConcurrently(numbers(1), 0, async () => undefined)).rejects.toThrow(RangeError);
  });
});

describe('forEachConcurrentlyPerKey', () => {
  it('keeps each key within the limit while the keys run side by side', async () => {
    const inFlight = new Map<string, number>();
    const most = new Map<string, number>();
    let overall = 0;
    let mostOverall = 0;
    const items = Array.from({ length: 30 }, (_, i) => ({ key: ['a', 'b', 'c'][i % 3]!, i }));
    const done: number[] = [];
    await forEachConcurrentlyPerKey(
      items,
      (item) => item.key,
      2,
      async (item) => {
        inFlight.set(item.key, (inFlight.get(item.key) ?? 0) + 1);
        most.set(item.key, Math.max(most.get(item.key) ?? 0, inFlight.get(item.key)!));
        mostOverall = Math.max(mostOverall, ++overall);
        await new Promise((resolve) => setImmediate(resolve));
        done.push(item.i);
        inFlight.set(item.key, inFlight.get(item.key)! - 1);
        overall--;
      },
    );
    expect(done.sort((a, b) => a - b)).toEqual([...Array(30).keys()]);
    expect([...most.values()]).toEqual([2, 2, 2]);
    expect(mostOverall).toBe(6);
  });
});
