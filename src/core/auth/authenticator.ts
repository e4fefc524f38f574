import type { Clock } from '../shared/clock';
import { DomainError } from '../shared/errors';
import type { Reseller, ResellerCredentials, ResellerRepository, SecretBox } from '../reseller/reseller';
import { computeToken, looksLikeToken, tokensEqual } from './api-token';
import type { FailureThrottle } from './failure-throttle';

export interface Credentials {
  readonly username: string | undefined;
  readonly token: string | undefined;
  readonly timestamp: string | undefined;
  readonly clientAddress: string;
}

const withoutKey = ({ sealedApiKey: _sealed, ...reseller }: ResellerCredentials): Reseller => reseller;

/** Decisions.md: the one message for a bad token or an unknown user, so neither leaks. */
export const INVALID_TOKEN = 'Invalid API Token provided';
const SKEW_MS = 60_000;
const HOUR_MS = 3_600_000;
const MAX_HEADER_LENGTH = 512;
// HMAC'd for unknown users so that they cost the same as known ones.
const DECOY_KEY = 'decoy-key-for-unknown-users-0000';
const MAX_REMEMBERED = 10_000;

export interface AuthenticatorOptions {
  /**
   * How long a reseller that just authenticated is remembered, so that its next requests skip
   * the database lookup (0: every request reads the database). Only successes are remembered; a
   * token that does not match a remembered key is checked against the database, so a new key
   * works at once everywhere. Rotation and suspension through `credentialsChanged` take effect at
   * once in this process, and within this time in other processes (docs/adr/0004).
   */
  readonly credentialsTtlMs: number;
}

interface Remembered {
  readonly credentials: ResellerCredentials;
  readonly apiKey: string;
  readonly until: number;
  /** Expected tokens by "<username as sent> <hours since 1970>": an HMAC per hour rather than per request. */
  readonly tokens: Map<string, string>;
}

/**
 * Verifies the spec's hourly HMAC token (section 5 and decisions.md):
 * - no `timestamp` header: the current UTC hour, and within 60 s of an hour boundary also the
 *   neighbouring hour (clock skew);
 * - a `timestamp` header: refused when more than 60 s from server time, else the hour of that
 *   timestamp (newer clients build the token from it).
 */
export class Authenticator {
  // Opening a sealed key costs an AES-GCM decryption; the sealed text changes on rotation, so it is the cache key.
  private readonly openedKeys = new Map<string, string>();
  private readonly remembered = new Map<string, Remembered>();

  constructor(
    private readonly resellers: ResellerRepository,
    private readonly secrets: SecretBox,
    private readonly throttle: FailureThrottle,
    private readonly clock: Clock,
    private readonly options: AuthenticatorOptions = { credentialsTtlMs: 0 },
  ) {}

  /** The reseller's key or status changed: its next request reads the database. */
  credentialsChanged(email: string): void {
    this.remembered.delete(email.trim().toLowerCase());
  }

  async authenticate(credentials: Credentials): Promise<Reseller> {
    const username = (credentials.username ?? '').trim();
    const token = (credentials.token ?? '').trim();
    const throttleKeys = [`ip:${credentials.clientAddress}`, ...(username ? [`user:${username.toLowerCase()}`] : [])];
    const wait = this.throttle.retryAfter(throttleKeys);
    if (wait > 0) {
      throw new DomainError('too_many_attempts', 'Too many failed authentication attempts; try again later', { retryAfterSeconds: wait });
    }
    if (!username || !token) throw new DomainError('authentication_failed', 'The username and token headers are required');
    const hours = this.hoursToCheck(credentials.timestamp);
    const email = username.toLowerCase();

    const recent = this.recall(email);
    if (recent && this.matchesRemembered(recent, username, token, hours)) {
      this.throttle.recordSuccess(throttleKeys.slice(1));
      return withoutKey(recent.credentials);
    }

    const found = username.length <= MAX_HEADER_LENGTH ? await this.resellers.findByEmail(email) : undefined;
    const apiKey = found ? this.open(found.sealedApiKey) : DECOY_KEY;
    let matched = false;
    for (const hour of hours) {
      // Every candidate hour is computed and compared, whatever matched before, to keep timing flat.
      if (tokensEqual(computeToken(username, apiKey, hour), token)) matched = true;
    }
    if (!found || !matched || !looksLikeToken(token)) {
      this.throttle.recordFailure(throttleKeys);
      throw new DomainError('authentication_failed', INVALID_TOKEN);
    }
    this.throttle.recordSuccess(throttleKeys.slice(1));
    if (found.status !== 'active') {
      this.remembered.delete(email);
      throw new DomainError('authentication_failed', 'This reseller account is suspended');
    }
    this.remember(email, found, apiKey);
    return withoutKey(found);
  }

  private recall(email: string): Remembered | undefined {
    if (this.options.credentialsTtlMs <= 0) return undefined;
    const entry = this.remembered.get(email);
    if (entry && entry.until <= this.clock.now().getTime()) {
      this.remembered.delete(email);
      return undefined;
    }
    return entry;
  }

  private remember(email: string, credentials: ResellerCredentials, apiKey: string): void {
    if (this.options.credentialsTtlMs <= 0) return;
    const previous = this.remembered.get(email);
    this.remembered.delete(email);
    if (this.remembered.size >= MAX_REMEMBERED) {
      const oldest = this.remembered.keys().next().value;
      if (oldest !== undefined) this.remembered.delete(oldest);
    }
    const sameKey = previous?.credentials.sealedApiKey === credentials.sealedApiKey;
    this.remembered.set(email, {
      credentials, apiKey, until: this.clock.now().getTime() + this.options.credentialsTtlMs, tokens: sameKey ? previous.tokens : new Map(),
    });
  }

  /** A token checked against a remembered key, every candidate hour compared as in the full check. */
  private matchesRemembered(entry: Remembered, username: string, token: string, hours: readonly Date[]): boolean {
    let matched = false;
    for (const hour of hours) {
      const key = `${username} ${Math.floor(hour.getTime() / HOUR_MS)}`;
      let expected = entry.tokens.get(key);
      if (expected === undefined) {
        expected = computeToken(username, entry.apiKey, hour);
        if (entry.tokens.size >= 8) entry.tokens.clear();
        entry.tokens.set(key, expected);
      }
      if (tokensEqual(expected, token)) matched = true;
    }
    // A token equal to one we computed has the spec's shape; no need to test it again.
    return matched;
  }

  private hoursToCheck(timestamp: string | undefined): Date[] {
    const now = this.clock.now().getTime();
    if (timestamp !== undefined && timestamp.trim() !== '') {
      const text = timestamp.trim();
      if (!/^\d{1,13}$/.test(text)) throw new DomainError('authentication_failed', 'The timestamp header must be a Unix timestamp in seconds');
      // Thirteen digits can only be milliseconds; accept them rather than fail a lenient client.
      const at = text.length === 13 ? Number(text) : Number(text) * 1000;
      if (Math.abs(at - now) > SKEW_MS) {
        throw new DomainError('authentication_failed', 'The timestamp header is more than 60 seconds away from server time; check the client clock');
      }
      return [new Date(at)];
    }
    const hours = [new Date(now)];
    const intoHour = now % HOUR_MS;
    if (intoHour < SKEW_MS) hours.push(new Date(now - SKEW_MS));
    if (HOUR_MS - intoHour <= SKEW_MS) hours.push(new Date(now + SKEW_MS));
    return hours;
  }

  private open(sealed: string): string {
    let key = this.openedKeys.get(sealed);
    if (key === undefined) {
      key = this.secrets.open(sealed);
      if (this.openedKeys.size > 10_000) this.openedKeys.clear();
      this.openedKeys.set(sealed, key);
    }
    return key;
  }
}
