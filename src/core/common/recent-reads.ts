import type { Clock } from './clock';

/**
 * Remembers the answers of reads for a short while, by key: the same read within `ttlMs` is not
 * made again, and concurrent misses share one read. A failed read is forgotten at once. With a
 * `ttlMs` of 0 every read goes through. Bounded: past `maxEntries` the oldest entry goes.
 */
export class RecentReads {
  private readonly entries = new Map<string, { value: Promise<unknown>; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly clock: Clock,
    private readonly maxEntries = 1000,
  ) {}

  read<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (this.ttlMs <= 0) return load();
    const now = this.clock.now().getTime();
    const entry = this.entries.get(key);
    if (entry && entry.until > now) return entry.value as Promise<T>;
    const value = load();
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, until: now + this.ttlMs });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }

  /** Something changed: the next read of every key goes to the source. */
  clear(): void {
    this.entries.clear();
  }
}
