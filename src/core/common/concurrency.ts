/**
 * Runs `work` on every item an async source yields, at most `limit` at a time, in source order of
 * starting. The source is pulled lazily, so a large batch is never all in memory.
 */
export async function forEachConcurrently<T>(
  source: AsyncIterable<T>,
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`concurrency must be a whole number of at least 1; got ${limit}`);
  const iterator = source[Symbol.asyncIterator]();
  let exhausted = false;
  // Pulling from one iterator is serialised: two workers must never call next() at once.
  let pulling: Promise<unknown> = Promise.resolve();
  const next = (): Promise<IteratorResult<T>> => {
    const result = pulling.then(() => (exhausted ? { done: true as const, value: undefined } : iterator.next()));
    pulling = result.catch(() => undefined);
    return result;
  };
  const worker = async () => {
    for (;;) {
      const item = await next();
      if (item.done) {
        exhausted = true;
        return;
      }
      await work(item.value);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

/**
 * Runs `work` on every item, at most `limit` at a time for each key (a registrar), the keys side
 * by side: a slow registrar holds up only its own items.
 */
export async function forEachConcurrentlyPerKey<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  await Promise.all([...groups.values()].map((group) => forEachConcurrently(fromArray(group), limit, work)));
}

async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}
