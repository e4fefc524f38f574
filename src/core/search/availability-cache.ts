import type { Clock } from '../common/clock';

/**
 * A short-lived memory of registrar answers, so repeated searches (a customer paging, a
 * billing platform asking suggestions and lookup for the same term) do not ask the registry
 * again. Entries live `ttlSeconds` by the platform clock; the oldest go first when it is full.
 * A TTL of 0 turns it off.
 */
export class AvailabilityCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
    private readonly maxEntries = 10_000,
  ) {}

  get isEnabled(): boolean {
    return this.ttlSeconds > 0;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.clock.now().getTime()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    if (!this.isEnabled) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.clock.now().getTime() + this.ttlSeconds * 1000 });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Drops every entry whose key passes the test (a name cached under several registrars). */
  deleteWhere(test: (key: string) => boolean): void {
    for (const key of [...this.entries.keys()]) if (test(key)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
