import { forEachConcurrently } from '../../../../src/core/shared/concurrency';

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
