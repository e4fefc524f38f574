import { randomBytes } from 'node:crypto';
import { ulid as makeUlid, monotonicFactory } from 'ulid';

/** Ids are made by the application, not the database (MariaDB has no RETURNING through knex). */
export interface IdGenerator {
  next(): string;
}

const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

/** One cryptographically random byte as a fraction in [0, 1), from a pool refilled 4 KiB at a time. */
function pooledRandom(): number {
  if (offset === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  return pool[offset++]! / 256;
}

/**
 * A new ULID. The `ulid` package asks the platform for one random byte per character (16 calls
 * to crypto.getRandomValues per id, a few per cent of an order's CPU; bench/RESULTS.md); the
 * same bytes from a pool cost a fraction of that and are just as random.
 */
export function ulid(): string {
  return makeUlid(undefined, pooledRandom);
}

/**
 * A new ULID greater than every one this process made before, also within one millisecond (the
 * random part is incremented): for records read back in the order they were made, like the audit
 * log's entries of one change (requested, then its outcome). Not for anything that must not be guessed.
 */
export const orderedUlid: () => string = (() => {
  const next = monotonicFactory(pooledRandom);
  return () => next();
})();
