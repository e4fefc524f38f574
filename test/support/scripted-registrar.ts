import type { CallContext, RegistrarOutcome, RegistrarPlugin } from '../../src/core/registrar/plugin';

/**
 * How the fake registrar treats the next call for a name:
 * - `succeed`: registers (or renews) and says so;
 * - `unavailable` / `refuse`: a definite no, nothing registered;
 * - `timeout`: nothing happens and no answer comes (the deadline cuts the call off);
 * - `lost`: the request never arrives anywhere: same as timeout seen from here;
 * - `late`: registers, but the answer only comes after the deadline (success after timeout);
 * - `pending`: registers, answers "pending";
 * - `fault`: throws before doing anything (a network error).
 */
export type FakeBehaviour = 'succeed' | 'unavailable' | 'refuse' | 'timeout' | 'lost' | 'late' | 'pending' | 'fault';

/** An in-memory registrar plugin whose answers a test scripts per name. */
export class ScriptedRegistrar implements RegistrarPlugin {
  readonly id = 'fake';
  /** name → expiry date, as the registry sees it. */
  readonly registered = new Map<string, string>();
  readonly calls: Array<{ op: 'register' | 'renew' | 'transfer'; domain: string; transactionId: string }> = [];
  private readonly scripts = new Map<string, FakeBehaviour[]>();
  defaultBehaviour: FakeBehaviour = 'succeed';
  /** When set, lookups (domainSync) fail, so reconciliation cannot tell. */
  lookupsFail = false;
  today = '2026-11-21';
  /** Premium names and the registry's costs, answered by availability; other names carry no premium flag. */
  readonly premiumNames = new Map<string, { register: number; renew?: number; transfer?: number }>();

  /** The next calls for `domain` behave as given, in order; then `defaultBehaviour`. */
  script(domain: string, ...behaviours: FakeBehaviour[]): this {
    this.scripts.set(domain, [...(this.scripts.get(domain) ?? []), ...behaviours]);
    return this;
  }

  /** Forgets what was scripted for `domain` and not used. */
  unscript(domain: string): void {
    this.scripts.delete(domain);
  }

  callsFor(domain: string): number {
    return this.calls.filter((c) => c.domain === domain).length;
  }

  async checkAvailability(domains: readonly string[]) {
    return domains.map((domain) => {
      const premiumPrice = this.premiumNames.get(domain);
      return {
        domain,
        status: this.registered.has(domain) ? ('registered' as const) : ('available' as const),
        ...(premiumPrice && { isPremium: true, premiumPrice }),
      };
    });
  }

  register(
    input: { domain: string; period: number },
    ctx: CallContext,
  ): Promise<RegistrarOutcome<{ expiryDate: string }>> {
    this.calls.push({ op: 'register', domain: input.domain, transactionId: ctx.transactionId });
    return this.act<{ expiryDate: string }>(input.domain, ctx, () => {
      if (this.registered.has(input.domain)) return { ok: false, reason: 'unavailable', message: 'already registered' };
      const expiryDate = addYears(this.today, input.period);
      this.registered.set(input.domain, expiryDate);
      return { ok: true, expiryDate };
    });
  }

  renew(
    input: { domain: string; period: number },
    ctx: CallContext,
  ): Promise<RegistrarOutcome<{ expiryDate: string }>> {
    this.calls.push({ op: 'renew', domain: input.domain, transactionId: ctx.transactionId });
    return this.act<{ expiryDate: string }>(input.domain, ctx, () => {
      const current = this.registered.get(input.domain);
      if (!current) return { ok: false, reason: 'refused', message: 'not ours' };
      const expiryDate = addYears(current, input.period);
      this.registered.set(input.domain, expiryDate);
      return { ok: true, expiryDate };
    });
  }

  readonly transfer = {
    transfer: (
      input: { domain: string; period: number },
      ctx: CallContext,
    ): Promise<RegistrarOutcome<{ expiryDate?: string }>> => {
      this.calls.push({ op: 'transfer', domain: input.domain, transactionId: ctx.transactionId });
      return this.act<{ expiryDate: string }>(input.domain, ctx, () => {
        const expiryDate = addYears(this.today, 1);
        this.registered.set(input.domain, expiryDate);
        return { ok: true, expiryDate };
      });
    },
  };

  readonly domainSync = {
    sync: async ({
      domain,
    }: {
      domain: string;
    }): Promise<
      RegistrarOutcome<{ active: boolean; expired: boolean; transferredAway: boolean; expiryDate?: string }>
    > => {
      if (this.lookupsFail) throw new Error('registrar API down');
      const expiryDate = this.registered.get(domain);
      if (!expiryDate) return { ok: false, reason: 'refused', message: 'not in our account' };
      return { ok: true, active: true, expired: false, transferredAway: false, expiryDate };
    },
  };

  private async act<T extends object>(
    domain: string,
    ctx: CallContext,
    perform: () => RegistrarOutcome<T>,
  ): Promise<RegistrarOutcome<T>> {
    const queue = this.scripts.get(domain);
    const behaviour = queue?.shift() ?? this.defaultBehaviour;
    // Answers come asynchronously, as from a network.
    await Promise.resolve();
    switch (behaviour) {
      case 'succeed':
        return perform();
      case 'unavailable':
        return { ok: false, reason: 'unavailable', message: 'taken at the registry' };
      case 'refuse':
        return { ok: false, reason: 'refused', message: 'registry policy refuses this name' };
      case 'fault':
        throw new Error('ECONNRESET');
      case 'timeout':
      case 'lost':
        return untilAborted(ctx);
      case 'late':
        perform();
        return untilAborted(ctx);
      case 'pending':
        perform();
        return { ok: false, reason: 'pending', message: 'queued at the registry' };
    }
  }
}

function untilAborted(ctx: CallContext): Promise<never> {
  return new Promise((_, reject) => {
    if (ctx.signal.aborted) return reject(ctx.signal.reason);
    ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
  });
}

export function addYears(date: string, years: number): string {
  return `${Number(date.slice(0, 4)) + years}${date.slice(4)}`;
}

/** A directory holding exactly the given plugins. */
/** Installed plugins by id. */
export { fakeDirectory as directoryOf } from './fakes';
