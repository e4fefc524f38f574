import type { z } from 'zod';
import type { PremiumCosts } from '../catalogue/premium';
import type { DomainRecord } from '../domain/domain';
import { DomainError } from '../common/errors';
import type { Logger } from '../common/logger';
import {
  disabledRegistrar,
  type GuardedRegistrar,
  type GuardedRegistrars,
  isRegistrarFault,
  notInstalled,
} from './guarded-registrar';
import {
  supports,
  type CapabilityName,
  type Contacts,
  type DnsRecord,
  type EmailForward,
  type TldPriceOffer,
} from './plugin';
import { INFORMATION_EXTRAS, cleanMessage, type InformationExtras } from './registrar-answers';
import { isExpired, isGone } from '../domain/domain-lifecycle';

/** Domain information as the platform uses it, whichever way it was obtained. */
export interface DomainInformationView {
  readonly nameservers: readonly string[];
  /** Undefined when neither the registrar nor the platform knows. */
  readonly transferLock: boolean | undefined;
  /** YYYY-MM-DD, when known. */
  readonly expiryDate: string | undefined;
  readonly registrationStatus: string;
  readonly idProtection: boolean;
  readonly dnsManagement: boolean;
  readonly emailForwarding: boolean;
  readonly restorable: boolean;
  readonly registrantEmail: string | undefined;
  readonly extra: InformationExtras;
  /** True when the registrar lacks `domainInformation` and the gateway assembled the answer (docs/api.md#domain-information). */
  readonly assembled: boolean;
}

export interface SyncView {
  readonly active: boolean;
  readonly expired: boolean;
  readonly transferredAway: boolean;
  readonly cancelled: boolean;
  readonly expiryDate: string | undefined;
  /** True when the registrar lacks `domainSync` and the answer is the platform's own record. */
  readonly fromPlatform: boolean;
}

export interface TransferSyncView {
  readonly completed: boolean;
  readonly failed: boolean;
  readonly reason: string | undefined;
  readonly expiryDate: string | undefined;
  /** True when the registrar lacks `transferSync` (docs/api.md#transfer-sync). */
  readonly fromPlatform: boolean;
}

/** A write the registrar accepted; `pending` when it completes later. */
export interface Accepted {
  readonly pending: boolean;
}

/**
 * What the registry charges for one name beyond the catalogue, as far as its registrar can say:
 * - `standard`: not premium;
 * - `premium`: yearly costs in minor units, per action the registrar priced;
 * - `cannot_tell`: the registrar gave no premium flag (it does not report premium names, or the
 *   name is registered and availability says only that);
 * - `no_answer`: the registrar declined the price question, with its reason.
 */
export type NamePrice =
  | { readonly kind: 'standard' }
  | { readonly kind: 'premium'; readonly cost: PremiumCosts }
  | { readonly kind: 'cannot_tell' }
  | { readonly kind: 'no_answer'; readonly message: string };

/**
 * Whose a registered name is, as far as the registrar can say (reconciliation asks): `ours` (in
 * our account), `not_ours` (free, or someone else's), or `unknown` with the reason.
 */
export type Ownership =
  | { readonly kind: 'ours'; readonly expiryDate?: string }
  | { readonly kind: 'not_ours' }
  | { readonly kind: 'unknown'; readonly message: string };

/** Information from the platform's record alone: for a domain the registrar no longer holds for us, and the base of the assembled answer. */
function informationFromRecord(domain: DomainRecord): DomainInformationView {
  return {
    nameservers: domain.nameservers,
    transferLock: domain.transferLock ?? undefined,
    expiryDate: domain.expiryDate ?? undefined,
    registrationStatus: domain.status,
    idProtection: domain.addons.idProtection,
    dnsManagement: domain.addons.dnsManagement,
    emailForwarding: domain.addons.emailForwarding,
    restorable: false,
    registrantEmail: undefined,
    extra: {},
    assembled: true,
  };
}

/**
 * Maps a registrar's definite "no" to the platform's error: `unavailable` is a 400 the client can
 * act on; `refused` is the registrar failing the request (502), with its message.
 */
export function outcomeError(registrarId: string, failure: { reason: string; message: string }): DomainError {
  if (failure.reason === 'unavailable')
    return new DomainError('unavailable', `Registrar ${registrarId}: ${cleanMessage(failure.message)}`);
  if (failure.reason === 'pending')
    return new DomainError(
      'registrar_failed',
      `Registrar ${registrarId} has not finished: ${cleanMessage(failure.message)}`,
    );
  return new DomainError('registrar_failed', `Registrar ${registrarId} refused: ${cleanMessage(failure.message)}`);
}

/**
 * The fallback policies over the guarded registrars (src/core/registrar/guarded-registrar.ts,
 * which owns deadlines, observation and answer checks): information assembled from what a
 * registrar has, sync and transfer sync from our own record, the ownership lookup chain, and
 * "capability missing". For domain management it also maps registrar refusals and faults to the
 * errors of docs/api.md#errors-and-status-codes (never a stack trace).
 */
export class RegistrarGateway {
  constructor(
    private readonly registrars: GuardedRegistrars,
    private readonly logger: Logger,
  ) {}

  // ---- information and sync, with their fallbacks ----

  /**
   * docs/api.md#domain-information. Without `domainInformation`, the answer is assembled as billing platforms do:
   * nameservers from the registrar (required then), the lock if the registrar can tell (a failure
   * there is ignored), and expiry, status and addons from the platform's own record. A domain we
   * know is Cancelled or Transferred Away is answered from our record, without the registrar.
   */
  async information(domain: DomainRecord): Promise<DomainInformationView> {
    // The registrar no longer holds a gone domain for us: asking it would only get a refusal
    // ("not registered", "not ours"), which is no fault. Information is our record (docs/api.md#domain-information).
    if (isGone(domain.status)) return informationFromRecord(domain);
    const registrar = this.registrarFor(domain);
    if (supports(registrar, 'domainInformation')) {
      const info = this.unwrap(
        registrar,
        await this.mapped(() => registrar.domainInformation.get({ domain: domain.name })),
      );
      return {
        nameservers: info.nameservers,
        transferLock: info.transferLock ?? domain.transferLock ?? undefined,
        expiryDate: info.expiryDate ?? domain.expiryDate ?? undefined,
        registrationStatus: info.registrationStatus ?? domain.status,
        idProtection: info.idProtection ?? domain.addons.idProtection,
        dnsManagement: info.dnsManagement ?? domain.addons.dnsManagement,
        emailForwarding: info.emailForwarding ?? domain.addons.emailForwarding,
        restorable: info.restorable ?? false,
        registrantEmail: info.registrantEmail,
        extra: this.extras(registrar.id, info.extra),
        assembled: false,
      };
    }
    if (!supports(registrar, 'nameservers')) {
      throw new DomainError(
        'capability_missing',
        `The registrar of ${domain.unicodeName} (${registrar.id}) does not offer domain information (capability domainInformation, or nameservers to build it from)`,
      );
    }
    const { nameservers } = this.unwrap(
      registrar,
      await this.mapped(() => registrar.nameservers.get({ domain: domain.name })),
    );
    const locked = await this.lockIfKnown(registrar, domain);
    return {
      ...informationFromRecord(domain),
      nameservers,
      transferLock: locked ?? domain.transferLock ?? undefined,
    };
  }

  /** docs/api.md#domain-sync. Without `domainSync`, the platform's own record is reported unchanged. */
  async sync(domain: DomainRecord): Promise<SyncView> {
    const registrar = this.registrarFor(domain);
    if (!supports(registrar, 'domainSync')) {
      return {
        active: domain.status === 'Active',
        expired: isExpired(domain.status),
        transferredAway: domain.status === 'Transferred Away',
        cancelled: domain.status === 'Cancelled',
        expiryDate: domain.expiryDate ?? undefined,
        fromPlatform: true,
      };
    }
    const answer = this.unwrap(registrar, await this.mapped(() => registrar.domainSync.sync({ domain: domain.name })));
    return {
      active: answer.active,
      expired: answer.expired,
      transferredAway: answer.transferredAway,
      cancelled: answer.cancelled ?? false,
      expiryDate: answer.expiryDate,
      fromPlatform: false,
    };
  }

  /** docs/api.md#transfer-sync: without `transferSync`, the transfer counts as completed, with the platform's expiry date. */
  async transferSync(domain: DomainRecord): Promise<TransferSyncView> {
    const registrar = this.registrarFor(domain);
    if (!supports(registrar, 'transferSync')) {
      return {
        completed: true,
        failed: false,
        reason: undefined,
        expiryDate: domain.expiryDate ?? undefined,
        fromPlatform: true,
      };
    }
    const answer = this.unwrap(
      registrar,
      await this.mapped(() => registrar.transferSync.sync({ domain: domain.name })),
    );
    return {
      completed: answer.completed,
      failed: answer.failed,
      reason: answer.reason,
      expiryDate: answer.expiryDate,
      fromPlatform: false,
    };
  }

  /**
   * Is the name registered, and in our account? The lookup chain: domain sync if the registrar
   * has it, else domain information, else availability (which can only say "free"). A definite
   * refusal means not ours; `pending` is unknown. Faults are thrown as they are (`RegistrarFault`):
   * the order flow, which asks, reads any fault as unknown.
   */
  async ownership(registrarId: string, domain: string): Promise<Ownership> {
    const registrar = this.registrar(registrarId);
    if (supports(registrar, 'domainSync')) {
      const result = await registrar.domainSync.sync({ domain });
      if (result.ok) {
        if (result.transferredAway || result.cancelled) return { kind: 'not_ours' };
        return { kind: 'ours', ...(result.expiryDate && { expiryDate: result.expiryDate }) };
      }
      if (result.reason !== 'pending') return { kind: 'not_ours' };
      return { kind: 'unknown', message: result.message };
    }
    if (supports(registrar, 'domainInformation')) {
      const result = await registrar.domainInformation.get({ domain });
      if (result.ok) return { kind: 'ours', ...(result.expiryDate && { expiryDate: result.expiryDate }) };
      if (result.reason !== 'pending') return { kind: 'not_ours' };
      return { kind: 'unknown', message: result.message };
    }
    // Availability alone cannot say whose a registered name is: only "available" is conclusive.
    const [availability] = (await registrar.checkAvailability([domain])).filter((a) => a.domain === domain);
    if (availability?.status === 'available') return { kind: 'not_ours' };
    return {
      kind: 'unknown',
      message: `the registrar reports ${domain} as ${availability?.status ?? 'unknown'} and cannot say whose it is`,
    };
  }

  // ---- capabilities without a fallback: a missing one is a 400 naming it ----

  async nameservers(domain: DomainRecord): Promise<readonly string[]> {
    const registrar = this.with(domain, 'nameservers', 'nameservers');
    return this.unwrap(registrar, await this.mapped(() => registrar.nameservers.get({ domain: domain.name })))
      .nameservers;
  }

  async saveNameservers(domain: DomainRecord, nameservers: readonly string[]): Promise<Accepted> {
    const registrar = this.with(domain, 'nameservers', 'nameservers');
    return this.write(registrar, () => registrar.nameservers.save({ domain: domain.name, nameservers }));
  }

  async registerChildHost(domain: DomainRecord, host: string, ipAddress: string): Promise<Accepted> {
    const registrar = this.with(domain, 'childHosts', 'child nameservers');
    return this.write(registrar, () => registrar.childHosts.register({ domain: domain.name, host, ipAddress }));
  }

  async modifyChildHost(
    domain: DomainRecord,
    host: string,
    currentIpAddress: string,
    newIpAddress: string,
  ): Promise<Accepted> {
    const registrar = this.with(domain, 'childHosts', 'child nameservers');
    return this.write(registrar, () =>
      registrar.childHosts.modify({ domain: domain.name, host, currentIpAddress, newIpAddress }),
    );
  }

  async deleteChildHost(domain: DomainRecord, host: string): Promise<Accepted> {
    const registrar = this.with(domain, 'childHosts', 'child nameservers');
    return this.write(registrar, () => registrar.childHosts.delete({ domain: domain.name, host }));
  }

  async dnsRecords(domain: DomainRecord): Promise<readonly DnsRecord[]> {
    const registrar = this.with(domain, 'dnsRecords', 'DNS records');
    return this.unwrap(registrar, await this.mapped(() => registrar.dnsRecords.get({ domain: domain.name }))).records;
  }

  async saveDnsRecords(domain: DomainRecord, records: readonly DnsRecord[]): Promise<Accepted> {
    const registrar = this.with(domain, 'dnsRecords', 'DNS records');
    return this.write(registrar, () => registrar.dnsRecords.save({ domain: domain.name, records }));
  }

  async lock(domain: DomainRecord): Promise<boolean> {
    const registrar = this.with(domain, 'registrarLock', 'the registrar lock');
    return this.unwrap(registrar, await this.mapped(() => registrar.registrarLock.get({ domain: domain.name }))).locked;
  }

  async saveLock(domain: DomainRecord, locked: boolean): Promise<Accepted> {
    const registrar = this.with(domain, 'registrarLock', 'the registrar lock');
    return this.write(registrar, () => registrar.registrarLock.save({ domain: domain.name, locked }));
  }

  async saveIdProtection(domain: DomainRecord, enabled: boolean): Promise<Accepted> {
    const registrar = this.with(domain, 'idProtection', 'ID protection');
    return this.write(registrar, () => registrar.idProtection.save({ domain: domain.name, enabled }));
  }

  async eppCode(domain: DomainRecord): Promise<string> {
    const registrar = this.with(domain, 'eppCode', 'EPP codes');
    return this.unwrap(registrar, await this.mapped(() => registrar.eppCode.get({ domain: domain.name }))).eppCode;
  }

  async contacts(domain: DomainRecord): Promise<Contacts> {
    const registrar = this.with(domain, 'contacts', 'contact details');
    return this.unwrap(registrar, await this.mapped(() => registrar.contacts.get({ domain: domain.name }))).contacts;
  }

  async saveContacts(domain: DomainRecord, contacts: Contacts): Promise<Accepted> {
    const registrar = this.with(domain, 'contacts', 'contact details');
    return this.write(registrar, () => registrar.contacts.save({ domain: domain.name, contacts }));
  }

  async emailForwards(domain: DomainRecord): Promise<readonly EmailForward[]> {
    const registrar = this.with(domain, 'emailForwarding', 'email forwarding');
    return this.unwrap(registrar, await this.mapped(() => registrar.emailForwarding.get({ domain: domain.name })))
      .forwards;
  }

  async saveEmailForwards(domain: DomainRecord, forwards: readonly EmailForward[]): Promise<Accepted> {
    const registrar = this.with(domain, 'emailForwarding', 'email forwarding');
    return this.write(registrar, () => registrar.emailForwarding.save({ domain: domain.name, forwards }));
  }

  async delete(domain: DomainRecord): Promise<Accepted> {
    const registrar = this.with(domain, 'delete', 'deletion');
    return this.write(registrar, () => registrar.delete.delete({ domain: domain.name }));
  }

  async release(domain: DomainRecord, transferTag: string): Promise<Accepted> {
    const registrar = this.with(domain, 'release', 'release');
    return this.write(registrar, () => registrar.release.release({ domain: domain.name, transferTag }));
  }

  // ---- registrar-wide: without the capability, the caller uses the platform's own data ----

  /** A registrar's own cost prices (the operator's price import); undefined when it lacks `tldPricing`. */
  async tldPrices(registrarId: string): Promise<TldPriceOffer[] | undefined> {
    const registrar = this.registrar(registrarId);
    if (!supports(registrar, 'tldPricing')) return undefined;
    return this.mapped(() => registrar.tldPricing.prices());
  }

  /**
   * The price of one name for an action and period beyond the catalogue
   * (docs/orders.md#premium-names). A renewal or transfer is asked through `domainPricing` when
   * the registrar has it: the name is registered, and availability says only that. Its cost for
   * the period is returned as a yearly cost, rounded up to the minor unit. Without the
   * capability, and for a registration, the name's availability answer says it; the caller
   * decides what a `cannot_tell` means for a name it knows. Faults are thrown as they are
   * (`RegistrarFault`); a name the answer left out is `no_answer`.
   */
  async namePrice(
    registrarId: string,
    domain: string,
    action: 'register' | 'renew' | 'transfer',
    period: number,
  ): Promise<NamePrice> {
    const registrar = this.registrar(registrarId);
    if (action !== 'register' && supports(registrar, 'domainPricing')) {
      const answer = await registrar.domainPricing.price({ domain, action, period });
      if (!answer.ok) return { kind: 'no_answer', message: answer.message };
      if (!answer.isPremium) return { kind: 'standard' };
      return { kind: 'premium', cost: { [action]: Math.ceil(answer.cost! / period) } };
    }
    // The answer check drops a malformed entry (and every entry of a name listed twice).
    const [found] = (await registrar.checkAvailability([domain])).filter((a) => a.domain === domain);
    if (!found) return { kind: 'no_answer', message: `the registrar gave no usable availability answer for ${domain}` };
    if (found.isPremium === undefined) return { kind: 'cannot_tell' };
    if (!found.isPremium) return { kind: 'standard' };
    return { kind: 'premium', cost: found.premiumPrice ?? {} };
  }

  // ---- the machinery ----

  private registrar(registrarId: string): GuardedRegistrar {
    if (this.registrars.isDisabled(registrarId))
      throw new DomainError('registrar_disabled', disabledRegistrar(registrarId));
    if (!this.registrars.has(registrarId)) throw new DomainError('registrar_failed', notInstalled(registrarId));
    return this.registrars.get(registrarId);
  }

  private registrarFor(domain: DomainRecord): GuardedRegistrar {
    return this.registrar(domain.registrar);
  }

  /** The domain's registrar with a capability that has no fallback, or a 400 naming it. */
  private with<C extends CapabilityName>(
    domain: DomainRecord,
    capability: C,
    what: string,
  ): GuardedRegistrar & { readonly [K in C]-?: NonNullable<GuardedRegistrar[K]> } {
    const registrar = this.registrarFor(domain);
    if (supports(registrar, capability)) return registrar;
    throw new DomainError(
      'capability_missing',
      `The registrar of ${domain.unicodeName} (${registrar.id}) does not offer ${what} (capability ${capability})`,
    );
  }

  /** Faults as domain management reports them: the deadline a 504, anything else a 502, logged once here. */
  private async mapped<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!isRegistrarFault(error)) throw error;
      const { registrarId: registrar, operation } = error;
      if (error.kind === 'timeout') {
        this.logger.warn({ registrar, operation }, 'registrar call cut off at the deadline');
        throw new DomainError('registrar_timeout', error.message);
      }
      if (error.kind === 'error') this.logger.warn({ registrar, operation, err: error.cause }, 'registrar call failed');
      throw new DomainError('registrar_failed', error.message);
    }
  }

  private unwrap<T extends { ok: boolean }>(registrar: GuardedRegistrar, answer: T): Extract<T, { ok: true }> {
    if (answer.ok) return answer as Extract<T, { ok: true }>;
    throw outcomeError(registrar.id, answer as unknown as { reason: string; message: string });
  }

  /** A write the registrar reports `pending` was accepted and completes later. */
  private async write(
    registrar: GuardedRegistrar,
    call: () => Promise<{ ok: true } | { ok: false; reason: string; message: string }>,
  ): Promise<Accepted> {
    const answer = await this.mapped(call);
    if (answer.ok) return { pending: false };
    if (answer.reason === 'pending') return { pending: true };
    throw outcomeError(registrar.id, answer);
  }

  /** The lock for the information fallback: any failure to learn it is ignored (docs/api.md#domain-information). */
  private async lockIfKnown(registrar: GuardedRegistrar, domain: DomainRecord): Promise<boolean | undefined> {
    if (!supports(registrar, 'registrarLock')) return undefined;
    try {
      const answer = await registrar.registrarLock.get({ domain: domain.name });
      return answer.ok ? answer.locked : undefined;
    } catch (error) {
      this.logger.info(
        { registrar: registrar.id, domain: domain.name, err: error },
        'lock status unknown; information built without it',
      );
      return undefined;
    }
  }

  /** Keeps the docs/api.md#domain-information extras that are well formed; a bad one is dropped, not fatal. */
  private extras(registrarId: string, extra: Record<string, unknown> | undefined): InformationExtras {
    const kept: Record<string, unknown> = {};
    for (const [key, schema] of Object.entries(INFORMATION_EXTRAS)) {
      if (extra?.[key] === undefined) continue;
      const parsed = (schema as z.ZodType).safeParse(extra[key]);
      if (parsed.success) kept[key] = parsed.data;
      else this.logger.info({ registrar: registrarId, field: key }, 'registrar information field dropped: malformed');
    }
    return kept as InformationExtras;
  }
}
