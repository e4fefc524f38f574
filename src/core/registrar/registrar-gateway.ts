import type { z } from 'zod';
import type { DomainRecord } from '../domain/domain';
import { DomainError, isDomainError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { withDeadline } from './deadline';
import {
  AvailabilityList,
  ContactsAnswer,
  DnsRecords,
  Done,
  DomainSync,
  EmailForwards,
  EppCode,
  type Failure,
  INFORMATION_EXTRAS,
  Information,
  Lock,
  Nameservers,
  Registered,
  SuggestionList,
  TldPriceList,
  TransferStarted,
  TransferSync,
  cleanMessage,
  type InformationExtras,
} from './registrar-answers';
import {
  supports,
  type AvailabilityResult,
  type CallContext,
  type CapabilityName,
  type Contacts,
  type DnsRecord,
  type EmailForward,
  type RegisterInput,
  type RegistrarOutcome,
  type RegistrarPlugin,
  type Registered as RegisteredResult,
  type Suggestion,
  type TldPriceOffer,
  type TransferInput,
} from './plugin';
import type { RegistrarDirectory } from './registrar-directory';

export interface RegistrarGatewayOptions {
  /** REGISTRAR_TIMEOUT_MS: every plugin call is cut off at this deadline. */
  readonly timeoutMs: number;
}

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

const PLATFORM_EXPIRED = new Set(['Expired', 'Grace', 'Redemption']);

/**
 * Statuses in which the registrar no longer holds the domain for us: asking it would only get a
 * refusal ("not registered", "not ours"), which is no fault. Information on such a domain is our
 * record (docs/api.md#domain-information).
 */
const GONE_FROM_REGISTRAR = new Set(['Cancelled', 'Transferred Away']);

/** Information from the platform's record alone, for a domain the registrar no longer holds for us. */
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
 * The one way the core talks to registrar plugins. It resolves the plugin serving a domain, cuts
 * every call off at the deadline, checks every answer as untrusted input, turns refusals and
 * faults into the errors of docs/api.md#errors-and-status-codes (never a stack trace), and owns every fallback for a
 * capability a plugin lacks. Services never touch plugins.
 */
export class RegistrarGateway {
  constructor(
    private readonly registrars: RegistrarDirectory,
    private readonly options: RegistrarGatewayOptions,
    private readonly logger: Logger,
  ) {}

  // ---- the required part: the answers are returned as outcomes, since orders settle money on them ----

  async checkAvailability(registrarId: string, domains: readonly string[]): Promise<AvailabilityResult[]> {
    const plugin = this.plugin(registrarId);
    const answer = await this.call(plugin, 'checkAvailability', AvailabilityList, (ctx) =>
      plugin.checkAvailability(domains, ctx),
    );
    const byName = new Map(answer.map((a) => [a.domain.toLowerCase(), a]));
    // A name the registrar skipped is unknown, never silently available.
    return domains.map((domain) => byName.get(domain) ?? { domain, status: 'unknown' });
  }

  /**
   * A definite answer comes back as an outcome (`ok: false` = nothing happened at the registry).
   * A timeout or fault throws (`registrar_timeout`, `registrar_failed`): the outcome is unknown.
   */
  async register(registrarId: string, input: RegisterInput): Promise<RegistrarOutcome<RegisteredResult>> {
    const plugin = this.plugin(registrarId);
    return this.call(plugin, 'register', Registered, (ctx) => plugin.register(input, ctx));
  }

  async renew(domain: DomainRecord, period: number): Promise<RegistrarOutcome<RegisteredResult>> {
    const plugin = this.pluginFor(domain);
    return this.call(plugin, 'renew', Registered, (ctx) =>
      plugin.renew({ domain: domain.name, period, currentExpiryDate: domain.expiryDate }, ctx),
    );
  }

  async transfer(registrarId: string, input: TransferInput): Promise<RegistrarOutcome<Partial<RegisteredResult>>> {
    const plugin = this.plugin(registrarId);
    if (!supports(plugin, 'transfer')) throw this.missing(plugin, 'transfer', input.domain, 'transfers');
    return this.call(plugin, 'transfer.transfer', TransferStarted, (ctx) => plugin.transfer.transfer(input, ctx));
  }

  // ---- information and sync, with their fallbacks ----

  /**
   * docs/api.md#domain-information. Without `domainInformation`, the answer is assembled as billing platforms do:
   * nameservers from the registrar (required then), the lock if the registrar can tell (a failure
   * there is ignored), and expiry, status and addons from the platform's own record. A domain we
   * know is Cancelled or Transferred Away is answered from our record, without the registrar.
   */
  async information(domain: DomainRecord): Promise<DomainInformationView> {
    if (GONE_FROM_REGISTRAR.has(domain.status)) return informationFromRecord(domain);
    const plugin = this.pluginFor(domain);
    if (supports(plugin, 'domainInformation')) {
      const info = this.unwrap(
        plugin,
        await this.call(plugin, 'domainInformation.get', Information, (ctx) =>
          plugin.domainInformation.get({ domain: domain.name }, ctx),
        ),
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
        extra: this.extras(plugin.id, info.extra),
        assembled: false,
      };
    }
    if (!supports(plugin, 'nameservers')) {
      throw new DomainError(
        'capability_missing',
        `The registrar of ${domain.unicodeName} (${plugin.id}) does not offer domain information (capability domainInformation, or nameservers to build it from)`,
      );
    }
    const { nameservers } = this.unwrap(
      plugin,
      await this.call(plugin, 'nameservers.get', Nameservers, (ctx) =>
        plugin.nameservers.get({ domain: domain.name }, ctx),
      ),
    );
    const locked = await this.lockIfKnown(plugin, domain);
    return {
      nameservers,
      transferLock: locked ?? domain.transferLock ?? undefined,
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

  /** docs/api.md#domain-sync. Without `domainSync`, the platform's own record is reported unchanged. */
  async sync(domain: DomainRecord): Promise<SyncView> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'domainSync')) {
      return {
        active: domain.status === 'Active',
        expired: PLATFORM_EXPIRED.has(domain.status),
        transferredAway: domain.status === 'Transferred Away',
        cancelled: domain.status === 'Cancelled',
        expiryDate: domain.expiryDate ?? undefined,
        fromPlatform: true,
      };
    }
    const answer = this.unwrap(
      plugin,
      await this.call(plugin, 'domainSync.sync', DomainSync, (ctx) =>
        plugin.domainSync.sync({ domain: domain.name }, ctx),
      ),
    );
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
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'transferSync')) {
      return {
        completed: true,
        failed: false,
        reason: undefined,
        expiryDate: domain.expiryDate ?? undefined,
        fromPlatform: true,
      };
    }
    const answer = this.unwrap(
      plugin,
      await this.call(plugin, 'transferSync.sync', TransferSync, (ctx) =>
        plugin.transferSync.sync({ domain: domain.name }, ctx),
      ),
    );
    return {
      completed: answer.completed,
      failed: answer.failed,
      reason: answer.reason,
      expiryDate: answer.expiryDate,
      fromPlatform: false,
    };
  }

  // ---- capabilities without a fallback: a missing one is a 400 naming it ----

  async nameservers(domain: DomainRecord): Promise<readonly string[]> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'nameservers')) throw this.missing(plugin, 'nameservers', domain.unicodeName, 'nameservers');
    const answer = await this.call(plugin, 'nameservers.get', Nameservers, (ctx) =>
      plugin.nameservers.get({ domain: domain.name }, ctx),
    );
    return this.unwrap(plugin, answer).nameservers;
  }

  async saveNameservers(domain: DomainRecord, nameservers: readonly string[]): Promise<Accepted> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'nameservers')) throw this.missing(plugin, 'nameservers', domain.unicodeName, 'nameservers');
    return this.write(plugin, 'nameservers.save', (ctx) =>
      plugin.nameservers.save({ domain: domain.name, nameservers }, ctx),
    );
  }

  async registerChildHost(domain: DomainRecord, host: string, ipAddress: string): Promise<Accepted> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'childHosts'))
      throw this.missing(plugin, 'childHosts', domain.unicodeName, 'child nameservers');
    return this.write(plugin, 'childHosts.register', (ctx) =>
      plugin.childHosts.register({ domain: domain.name, host, ipAddress }, ctx),
    );
  }

  async modifyChildHost(
    domain: DomainRecord,
    host: string,
    currentIpAddress: string,
    newIpAddress: string,
  ): Promise<Accepted> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'childHosts'))
      throw this.missing(plugin, 'childHosts', domain.unicodeName, 'child nameservers');
    return this.write(plugin, 'childHosts.modify', (ctx) =>
      plugin.childHosts.modify({ domain: domain.name, host, currentIpAddress, newIpAddress }, ctx),
    );
  }

  async deleteChildHost(domain: DomainRecord, host: string): Promise<Accepted> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'childHosts'))
      throw this.missing(plugin, 'childHosts', domain.unicodeName, 'child nameservers');
    return this.write(plugin, 'childHosts.delete', (ctx) =>
      plugin.childHosts.delete({ domain: domain.name, host }, ctx),
    );
  }

  async dnsRecords(domain: DomainRecord): Promise<readonly DnsRecord[]> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'dnsRecords')) throw this.missing(plugin, 'dnsRecords', domain.unicodeName, 'DNS records');
    const answer = await this.call(plugin, 'dnsRecords.get', DnsRecords, (ctx) =>
      plugin.dnsRecords.get({ domain: domain.name }, ctx),
    );
    return this.unwrap(plugin, answer).records;
  }

  async saveDnsRecords(domain: DomainRecord, records: readonly DnsRecord[]): Promise<Accepted> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'dnsRecords')) throw this.missing(plugin, 'dnsRecords', domain.unicodeName, 'DNS records');
    return this.write(plugin, 'dnsRecords.save', (ctx) =>
      plugin.dnsRecords.save({ domain: domain.name, records }, ctx),
    );
  }

  async lock(domain: DomainRecord): Promise<boolean> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'registrarLock'))
      throw this.missing(plugin, 'registrarLock', domain.unicodeName, 'the registrar lock');
    const answer = await this.call(plugin, 'registrarLock.get', Lock, (ctx) =>
      plugin.registrarLock.get({ domain: domain.name }, ctx),
    );
    return this.unwrap(plugin, answer).locked;
  }

  async saveLock(domain: DomainRecord, locked: boolean): Promise<Accepted> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'registrarLock'))
      throw this.missing(plugin, 'registrarLock', domain.unicodeName, 'the registrar lock');
    return this.write(plugin, 'registrarLock.save', (ctx) =>
      plugin.registrarLock.save({ domain: domain.name, locked }, ctx),
    );
  }

  async saveIdProtection(domain: DomainRecord, enabled: boolean): Promise<Accepted> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'idProtection'))
      throw this.missing(plugin, 'idProtection', domain.unicodeName, 'ID protection');
    return this.write(plugin, 'idProtection.save', (ctx) =>
      plugin.idProtection.save({ domain: domain.name, enabled }, ctx),
    );
  }

  async eppCode(domain: DomainRecord): Promise<string> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'eppCode')) throw this.missing(plugin, 'eppCode', domain.unicodeName, 'EPP codes');
    const answer = await this.call(plugin, 'eppCode.get', EppCode, (ctx) =>
      plugin.eppCode.get({ domain: domain.name }, ctx),
    );
    return this.unwrap(plugin, answer).eppCode;
  }

  async contacts(domain: DomainRecord): Promise<Contacts> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'contacts')) throw this.missing(plugin, 'contacts', domain.unicodeName, 'contact details');
    const answer = await this.call(plugin, 'contacts.get', ContactsAnswer, (ctx) =>
      plugin.contacts.get({ domain: domain.name }, ctx),
    );
    return this.unwrap(plugin, answer).contacts;
  }

  async saveContacts(domain: DomainRecord, contacts: Contacts): Promise<Accepted> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'contacts')) throw this.missing(plugin, 'contacts', domain.unicodeName, 'contact details');
    return this.write(plugin, 'contacts.save', (ctx) => plugin.contacts.save({ domain: domain.name, contacts }, ctx));
  }

  async emailForwards(domain: DomainRecord): Promise<readonly EmailForward[]> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'emailForwarding'))
      throw this.missing(plugin, 'emailForwarding', domain.unicodeName, 'email forwarding');
    const answer = await this.call(plugin, 'emailForwarding.get', EmailForwards, (ctx) =>
      plugin.emailForwarding.get({ domain: domain.name }, ctx),
    );
    return this.unwrap(plugin, answer).forwards;
  }

  async saveEmailForwards(domain: DomainRecord, forwards: readonly EmailForward[]): Promise<Accepted> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'emailForwarding'))
      throw this.missing(plugin, 'emailForwarding', domain.unicodeName, 'email forwarding');
    return this.write(plugin, 'emailForwarding.save', (ctx) =>
      plugin.emailForwarding.save({ domain: domain.name, forwards }, ctx),
    );
  }

  async delete(domain: DomainRecord): Promise<Accepted> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'delete')) throw this.missing(plugin, 'delete', domain.unicodeName, 'deletion');
    return this.write(plugin, 'delete.delete', (ctx) => plugin.delete.delete({ domain: domain.name }, ctx));
  }

  async release(domain: DomainRecord, transferTag: string): Promise<Accepted> {
    const plugin = this.pluginFor(domain);
    if (!supports(plugin, 'release')) throw this.missing(plugin, 'release', domain.unicodeName, 'release');
    return this.write(plugin, 'release.release', (ctx) =>
      plugin.release.release({ domain: domain.name, transferTag }, ctx),
    );
  }

  // ---- registrar-wide capabilities: without them, callers use the platform's own data ----

  /** Undefined when the registrar lacks `suggestions` (the caller uses its own generator). */
  async suggestions(
    registrarId: string,
    input: { term: string; tlds: readonly string[]; limit: number },
  ): Promise<Suggestion[] | undefined> {
    const plugin = this.plugin(registrarId);
    if (!supports(plugin, 'suggestions')) return undefined;
    return this.call(plugin, 'suggestions.suggest', SuggestionList, (ctx) => plugin.suggestions.suggest(input, ctx));
  }

  /** Undefined when the registrar lacks `tldPricing` (prices come from the catalogue alone). */
  async tldPrices(registrarId: string): Promise<TldPriceOffer[] | undefined> {
    const plugin = this.plugin(registrarId);
    if (!supports(plugin, 'tldPricing')) return undefined;
    return this.call(plugin, 'tldPricing.prices', TldPriceList, (ctx) => plugin.tldPricing.prices(ctx));
  }

  // ---- the machinery ----

  private plugin(registrarId: string): RegistrarPlugin {
    if (!this.registrars.has(registrarId)) {
      throw new DomainError(
        'registrar_failed',
        `Registrar ${registrarId} is not installed on this platform; the operator must install it or change the TLD's registrar`,
      );
    }
    return this.registrars.get(registrarId);
  }

  private pluginFor(domain: DomainRecord): RegistrarPlugin {
    return this.plugin(domain.registrar);
  }

  /** Runs one call under the deadline and checks the answer; faults and garbage become 502s, the deadline a 504. */
  /**
   * One raw plugin call under the deadline, its answer checked against `schema`, for a port that
   * decides on the outcome itself (the order flow settles money on it). Faults and timeouts throw
   * as everywhere else.
   */
  async invoke<S extends z.ZodType>(
    registrarId: string,
    operation: string,
    schema: S,
    call: (plugin: RegistrarPlugin, ctx: CallContext) => Promise<unknown>,
    transactionId?: string,
  ): Promise<z.infer<S>> {
    const plugin = this.plugin(registrarId);
    return this.call(plugin, operation, schema, (ctx) => call(plugin, ctx), transactionId);
  }

  private async call<S extends z.ZodType>(
    plugin: RegistrarPlugin,
    operation: string,
    schema: S,
    invoke: (ctx: CallContext) => Promise<unknown>,
    transactionId?: string,
  ): Promise<z.infer<S>> {
    let answer: unknown;
    try {
      answer = await withDeadline(plugin.id, this.options.timeoutMs, invoke, transactionId);
    } catch (error) {
      if (isDomainError(error) && error.code === 'registrar_timeout') {
        this.logger.warn(
          { registrar: plugin.id, operation, timeoutMs: this.options.timeoutMs },
          'registrar call cut off at the deadline',
        );
        throw error;
      }
      this.logger.warn({ registrar: plugin.id, operation, err: error }, 'registrar call failed');
      throw new DomainError(
        'registrar_failed',
        `Registrar ${plugin.id} failed: ${cleanMessage(error instanceof Error ? error.message : error)}`,
      );
    }
    const parsed = schema.safeParse(answer);
    if (!parsed.success) {
      this.logger.warn(
        { registrar: plugin.id, operation, issues: parsed.error.issues.slice(0, 5) },
        'registrar answer rejected',
      );
      throw new DomainError(
        'registrar_failed',
        `Registrar ${plugin.id} gave an answer to ${operation} that cannot be used`,
      );
    }
    return parsed.data;
  }

  private unwrap<T extends { ok: boolean }>(plugin: RegistrarPlugin, answer: T): Exclude<T, z.infer<typeof Failure>> {
    if (answer.ok) return answer as Exclude<T, z.infer<typeof Failure>>;
    throw outcomeError(plugin.id, answer as unknown as z.infer<typeof Failure>);
  }

  /** A write the registrar reports `pending` was accepted and completes later. */
  private async write(
    plugin: RegistrarPlugin,
    operation: string,
    invoke: (ctx: CallContext) => Promise<unknown>,
  ): Promise<Accepted> {
    const answer = await this.call(plugin, operation, Done, invoke);
    if (answer.ok) return { pending: false };
    if (answer.reason === 'pending') return { pending: true };
    throw outcomeError(plugin.id, answer);
  }

  /** The lock for the information fallback: any failure to learn it is ignored (docs/api.md#domain-information). */
  private async lockIfKnown(plugin: RegistrarPlugin, domain: DomainRecord): Promise<boolean | undefined> {
    if (!supports(plugin, 'registrarLock')) return undefined;
    try {
      const answer = await this.call(plugin, 'registrarLock.get', Lock, (ctx) =>
        plugin.registrarLock.get({ domain: domain.name }, ctx),
      );
      return answer.ok ? answer.locked : undefined;
    } catch (error) {
      this.logger.info(
        { registrar: plugin.id, domain: domain.name, err: error },
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

  private missing(plugin: RegistrarPlugin, capability: CapabilityName, domain: string, what: string): DomainError {
    return new DomainError(
      'capability_missing',
      `The registrar of ${domain} (${plugin.id}) does not offer ${what} (capability ${capability})`,
    );
  }
}
