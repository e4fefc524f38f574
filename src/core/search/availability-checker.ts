import { type GuardedRegistrar, type GuardedRegistrars, isRegistrarFault } from '../registrar/guarded-registrar';
import type { AvailabilityStatus } from '../registrar/plugin';
import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import type { Minor } from '../common/money';
import { AvailabilityCache } from './availability-cache';

/** Why a name's availability is not known. */
export type AvailabilityFailure = 'timeout' | 'error' | 'not_installed' | 'no_answer';

/** A registrar's answer for one name, checked for sanity. */
export interface AvailabilityAnswer {
  readonly status: AvailabilityStatus;
  readonly isPremium: boolean;
  readonly premiumPrice?: { readonly register: Minor; readonly renew?: Minor; readonly transfer?: Minor };
  /** Set when the status is `unknown` because the registrar could not be asked or did not answer. */
  readonly failure?: AvailabilityFailure;
}

export interface AvailabilityRequest {
  /** Id of the registrar plugin serving the name's TLD. */
  readonly registrar: string;
  /** ASCII (punycode), lower case. */
  readonly domain: string;
}

export interface AvailabilityCheckerOptions {
  /** How long an answer is reused (settings.searchCacheSeconds); 0 turns the cache off. */
  readonly cacheSeconds: number;
  /** Most names sent to a registrar in one call; more are split into calls made at the same time. */
  readonly batchSize?: number;
  readonly cacheMaxEntries?: number;
}

export const DEFAULT_BATCH_SIZE = 50;

/**
 * Asks registrars whether names are free: every registrar at the same time, each with the names
 * of its TLDs in batches, each call under the registrar deadline. A registrar that fails, times
 * out, is not installed or leaves a name out makes those names `unknown`; `check` itself never
 * throws. Definite answers are cached for a few seconds, and a name already being asked by a
 * concurrent search is not asked twice.
 */
export class AvailabilityChecker {
  private readonly cache: AvailabilityCache<AvailabilityAnswer>;
  /** Names our own orders hold, by ASCII name: answered `registered` without asking (docs/search.md). */
  private readonly ours: AvailabilityCache<true>;
  private readonly inFlight = new Map<string, Promise<AvailabilityAnswer>>();
  private readonly batchSize: number;

  constructor(
    private readonly registrars: GuardedRegistrars,
    clock: Clock,
    private readonly logger: Logger,
    options: AvailabilityCheckerOptions,
  ) {
    this.cache = new AvailabilityCache(clock, options.cacheSeconds, options.cacheMaxEntries);
    this.ours = new AvailabilityCache(clock, options.cacheSeconds, options.cacheMaxEntries);
    this.batchSize = Math.max(1, options.batchSize ?? DEFAULT_BATCH_SIZE);
  }

  /** Answers for every requested name, keyed by the ASCII name. */
  async check(requests: readonly AvailabilityRequest[]): Promise<Map<string, AvailabilityAnswer>> {
    const byRegistrar = new Map<string, Set<string>>();
    for (const { registrar, domain } of requests) {
      const names = byRegistrar.get(registrar) ?? new Set<string>();
      byRegistrar.set(registrar, names.add(domain));
    }
    const answers = new Map<string, AvailabilityAnswer>();
    await Promise.all([...byRegistrar].map(([id, names]) => this.checkWith(id, [...names], answers)));
    return answers;
  }

  /**
   * A registration or transfer of ours took (or holds) the name: searches answer `registered` for
   * it at once, for as long as an answer is cached, instead of a registrar answer cached before.
   */
  heldByUs(domain: string): void {
    this.forgetAnswers(domain);
    this.ours.set(domain, true);
  }

  /** What we knew of the name is stale (our order failed, our domain was cancelled or left): the next search asks. */
  forget(domain: string): void {
    this.forgetAnswers(domain);
    this.ours.delete(domain);
  }

  private forgetAnswers(domain: string): void {
    const suffix = cacheKey('', domain);
    this.cache.deleteWhere((key) => key.endsWith(suffix));
  }

  private async checkWith(id: string, names: string[], into: Map<string, AvailabilityAnswer>): Promise<void> {
    let registrar: GuardedRegistrar;
    try {
      registrar = this.registrars.get(id);
    } catch (error) {
      this.logger.warn(
        { registrar: id, err: messageOf(error) },
        'search: the registrar serving these TLDs is not installed',
      );
      for (const name of names) into.set(name, unknown('not_installed'));
      return;
    }
    const waiting: Array<Promise<void>> = [];
    const fresh: string[] = [];
    for (const name of names) {
      if (this.ours.get(name)) {
        into.set(name, REGISTERED);
        continue;
      }
      const key = cacheKey(id, name);
      const cached = this.cache.get(key);
      const pending = cached ? undefined : this.inFlight.get(key);
      if (cached) into.set(name, cached);
      else if (pending)
        waiting.push(
          pending.then((answer) => {
            into.set(name, answer);
          }),
        );
      else fresh.push(name);
    }
    for (let i = 0; i < fresh.length; i += this.batchSize) {
      const batch = fresh.slice(i, i + this.batchSize);
      const call = this.ask(registrar, batch);
      for (const name of batch) {
        const key = cacheKey(id, name);
        const answer = call.then((all) => all.get(name) ?? unknown('no_answer'));
        this.inFlight.set(key, answer);
        waiting.push(
          answer.then((a) => {
            into.set(name, a);
            if (this.inFlight.get(key) === answer) this.inFlight.delete(key);
          }),
        );
      }
    }
    await Promise.all(waiting);
  }

  /** One registrar call for one batch; never rejects. */
  private async ask(registrar: GuardedRegistrar, batch: string[]): Promise<Map<string, AvailabilityAnswer>> {
    const id = registrar.id;
    const answers = new Map<string, AvailabilityAnswer>();
    try {
      const asked = new Set(batch);
      for (const { domain, status, isPremium, premiumPrice } of await registrar.checkAvailability(batch)) {
        if (!asked.has(domain) || answers.has(domain)) continue;
        answers.set(domain, {
          status,
          isPremium: isPremium === true,
          ...(isPremium === true && premiumPrice && { premiumPrice }),
        });
      }
      const missing = batch.filter((name) => !answers.has(name));
      if (missing.length > 0)
        this.logger.warn(
          { registrar: id, missing: missing.length },
          'search: the registrar left names out of its answer',
        );
      for (const name of missing) answers.set(name, unknown('no_answer'));
      for (const [name, answer] of answers) if (answer.status !== 'unknown') this.cache.set(cacheKey(id, name), answer);
    } catch (error) {
      const failure: AvailabilityFailure = isRegistrarFault(error) && error.kind === 'timeout' ? 'timeout' : 'error';
      this.logger.warn(
        { registrar: id, names: batch.length, failure, err: isRegistrarFault(error) ? error.detail : messageOf(error) },
        'search: availability check failed; names reported unknown',
      );
      for (const name of batch) answers.set(name, unknown(failure));
    }
    return answers;
  }
}

const cacheKey = (registrar: string, name: string) => `${registrar}\u0000${name}`;
const REGISTERED: AvailabilityAnswer = Object.freeze({ status: 'registered', isPremium: false });
const unknown = (failure: AvailabilityFailure): AvailabilityAnswer => ({
  status: 'unknown',
  isPremium: false,
  failure,
});
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
