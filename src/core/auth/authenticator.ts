import type { Clock } from '../common/clock';
import { DomainError } from '../common/errors';
import type { Minor } from '../common/money';
import type { Reseller } from '../reseller/reseller';
import type { ResellerDirectory } from '../reseller/reseller-directory';
import { timingSafeEqual } from 'node:crypto';
import { computeToken, looksLikeToken } from './api-token';
import type { FailureThrottle } from './failure-throttle';
import { addressAllowed } from './ip-network';

export interface Credentials {
  readonly username: string | undefined;
  readonly token: string | undefined;
  readonly timestamp: string | undefined;
  readonly clientAddress: string;
}

/** The reseller a request authenticated as. */
export interface AuthenticatedReseller extends Reseller {
  /** The balance read with the reseller in authentication's one statement, when the directory read it (ADR 12). */
  readonly balance?: Minor;
}

/** docs/api.md#authentication: the one message for a bad token or an unknown user, so neither leaks. */
export const INVALID_TOKEN = 'Invalid API Token provided';
const SKEW_MS = 60_000;
const HOUR_MS = 3_600_000;
const MAX_HEADER_LENGTH = 512;
// HMAC'd for unknown users so that they cost the same as known ones.
// Expected tokens remembered: one per user and hour in use (two near an hour boundary).
const EXPECTED_TOKENS_KEPT = 10_000;
const DECOY_KEY = 'decoy-key-for-unknown-users-0000';

/**
 * Verifies the hourly HMAC token (docs/api.md#authentication):
 * - no `timestamp` header: the current UTC hour, and within 60 s of an hour boundary also the
 *   neighbouring hour (clock skew);
 * - a `timestamp` header: refused when more than 60 s from server time, else the hour of that
 *   timestamp (newer clients build the token from it).
 *
 * Then, before anything else happens, the reseller's IP allow-list (when it has one) must hold
 * the client address. It is checked only after the token, so that it tells nothing about
 * whether a username exists.
 */
/** The token expected for one key and user in one hour, as bytes (compared without a copy). */
interface ExpectedToken {
  readonly hour: number;
  readonly username: string;
  readonly token: Buffer;
}

export class Authenticator {
  /**
   * By API key (the directory hands the same string back for a key while it is unchanged, so the
   * lookup hashes nothing new): the tokens of the last two hours asked for, the newest first.
   */
  private readonly expected = new Map<string, [ExpectedToken, ExpectedToken?]>();

  constructor(
    private readonly directory: ResellerDirectory,
    private readonly throttle: FailureThrottle,
    private readonly clock: Clock,
  ) {}

  async authenticate(credentials: Credentials): Promise<AuthenticatedReseller> {
    const username = (credentials.username ?? '').trim();
    const token = (credentials.token ?? '').trim();
    const attempt = { address: credentials.clientAddress, username };
    const wait = this.throttle.retryAfter(attempt);
    if (wait > 0) {
      throw new DomainError('too_many_attempts', 'Too many failed authentication attempts; try again later', {
        retryAfterSeconds: wait,
      });
    }
    if (!username || !token)
      throw new DomainError('authentication_failed', 'The username and token headers are required');
    const hours = acceptedTokenHours(this.clock.now(), credentials.timestamp);

    const found =
      username.length <= MAX_HEADER_LENGTH
        ? await this.directory.findForAuthentication(username.toLowerCase())
        : undefined;
    const apiKey = found?.apiKey ?? DECOY_KEY;
    const given = Buffer.from(token, 'utf8');
    let matched = false;
    for (const hour of hours) {
      // Every candidate hour is compared, whatever matched before, to keep timing flat.
      const expected = this.expectedToken(username, apiKey, hour);
      if (expected.length === given.length && timingSafeEqual(expected, given)) matched = true;
    }
    if (!found || !matched || !looksLikeToken(token)) {
      this.throttle.recordFailure(attempt);
      throw new DomainError('authentication_failed', INVALID_TOKEN);
    }
    this.throttle.recordSuccess(attempt);
    const { reseller } = found;
    if (reseller.status !== 'active')
      throw new DomainError('authentication_failed', 'This reseller account is suspended');
    if (!addressAllowed(found.allowedNetworks, credentials.clientAddress)) {
      throw new DomainError(
        'forbidden',
        `Requests from ${credentials.clientAddress} are not allowed for this reseller; the operator keeps its IP allow-list`,
        { resellerId: reseller.id },
      );
    }
    return found.balance === undefined ? reseller : withBalance(reseller, found.balance);
  }

  /**
   * The token a client must send for this user, key and hour. The HMAC is the same all hour, so
   * it is made once and remembered (keyed by the key itself: a rotated key misses at once);
   * on every request it cost more than the rest of authentication (bench/RESULTS.md).
   */
  private expectedToken(username: string, apiKey: string, at: Date): Buffer {
    const hour = Math.floor(at.getTime() / HOUR_MS);
    const kept = this.expected.get(apiKey);
    if (kept !== undefined) {
      for (const entry of kept) if (entry?.hour === hour && entry.username === username) return entry.token;
    }
    const entry: ExpectedToken = { hour, username, token: Buffer.from(computeToken(username, apiKey, at), 'utf8') };
    if (this.expected.size >= EXPECTED_TOKENS_KEPT) this.expected.clear();
    // A key used by two names (not the directory's own case) takes turns; each still compares right.
    this.expected.set(apiKey, kept !== undefined && kept[0].username === username ? [entry, kept[0]] : [entry]);
    return entry.token;
  }
}

/**
 * The instants whose UTC hours a token may be built from at `now` (docs/api.md#which-hours-are-accepted):
 * with a `timestamp` header, its hour only (refused when more than 60 s from `now`); without one,
 * the current hour and, within 60 s of a boundary, the neighbouring one. The portal's token checker
 * asks the same question.
 */
export function acceptedTokenHours(at: Date, timestamp: string | undefined): Date[] {
  const now = at.getTime();
  if (timestamp !== undefined && timestamp.trim() !== '') {
    const text = timestamp.trim();
    if (!/^\d{1,13}$/.test(text))
      throw new DomainError('authentication_failed', 'The timestamp header must be a Unix timestamp in seconds');
    // Thirteen digits can only be milliseconds; accept them rather than fail a lenient client.
    const stamped = text.length === 13 ? Number(text) : Number(text) * 1000;
    if (Math.abs(stamped - now) > SKEW_MS) {
      throw new DomainError(
        'authentication_failed',
        'The timestamp header is more than 60 seconds away from server time; check the client clock',
      );
    }
    return [new Date(stamped)];
  }
  const hours = [new Date(now)];
  const intoHour = now % HOUR_MS;
  if (intoHour < SKEW_MS) hours.push(new Date(now - SKEW_MS));
  if (HOUR_MS - intoHour <= SKEW_MS) hours.push(new Date(now + SKEW_MS));
  return hours;
}

/** Field by field, not `{ ...reseller, balance }` (docs/performance.md#object-shapes-on-the-hot-path). */
function withBalance(reseller: Reseller, balance: Minor): AuthenticatedReseller {
  const { id, email, groupId, status, createdAt } = reseller;
  return { id, email, groupId, status, createdAt, balance };
}
