import { createHash, randomBytes } from 'node:crypto';

/** RFC 5730 `trIDStringType`: 3 to 64 characters. */
const MAX_LENGTH = 64;

/**
 * Client transaction ids (clTRID) for one plugin instance. Registries keep clTRIDs unique and
 * may answer a repeat with nothing but a closed connection, so every frame, a resent one
 * included, gets an id never used before: `<reference>-<instance>-<serial>`. The reference is
 * the platform's transaction id of the call (the order id for an order), so the registry's logs
 * lead back to the order; the instance part (random per plugin instance) keeps ids apart across
 * restarts and processes; the serial counts up for the instance's life.
 */
export class TransactionIds {
  private readonly instance = randomBytes(3).toString('hex');
  private serial = 0;

  next(reference: string): string {
    this.serial++;
    const suffix = `-${this.instance}-${this.serial.toString(36)}`;
    return `${fit(reference, MAX_LENGTH - suffix.length)}${suffix}`;
  }
}

/** The reference as clTRID characters, shortened with a hash of the whole when it does not fit. */
function fit(reference: string, room: number): string {
  const id = reference.replace(/[^A-Za-z0-9._:@-]/g, '-') || 'epp';
  if (id.length <= room) return id;
  const hash = createHash('sha256').update(reference).digest('hex').slice(0, 12);
  return `${id.slice(0, room - hash.length - 1)}-${hash}`;
}
