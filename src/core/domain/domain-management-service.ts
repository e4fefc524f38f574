import type { AddonName } from '../catalogue/catalogue';
import { formatAmount } from '../common/money';
import type { ContactRole, Contacts, DnsRecord, EmailForward } from '../registrar/plugin';
import type {
  Accepted,
  DomainInformationView,
  RegistrarGateway,
  TransferSyncView,
} from '../registrar/registrar-gateway';
import { type AuditRecord, recordChange } from '../audit/audit-log';
import type { Clock } from '../common/clock';
import { DomainError } from '../common/errors';
import { RecentReads } from '../common/recent-reads';
import type { UnitOfWork } from '../common/unit-of-work';
import { ADDON_FIELD, type DomainChanges, type DomainRecord } from './domain';
import { parseDomainName } from './domain-name';
import { validateDnsRecords, type DnsRecordInput } from './dns-records';
import {
  normaliseContacts,
  normaliseEmailForwards,
  normaliseNameservers,
  parseChildHost,
  parseTransferTag,
} from './domain-settings';
import { parseIpAddress } from './host-names';
import type { DomainSyncService, SyncedDomain } from './domain-sync-service';
import { isGone } from './domain-lifecycle';
import { inProgress, notOwned } from './domain-errors';

/**
 * What a reseller does with a domain it holds (docs/api.md#domains, including the operations
 * beyond the contract). Every operation first proves ownership, then calls the registrar
 * through the gateway (outside any transaction), then records what it learnt, so information and
 * the admin CLI stay true.
 */
/** How long a reseller's sync or transfer sync answer serves the same call again. */
export const SYNC_ANSWER_REUSED_MS = 10_000;

/** How a change made at the registrar is asked for. */
export interface ChangeOptions {
  /**
   * A person asked for it (the portal), so it is audited as `reseller.domain.<what>` by the acting
   * actor (ADR 17). What was asked is written before the registrar is called, so a change made at
   * the registrar never lacks an entry, even when the process dies before its answer is recorded;
   * the outcome is written in the transaction that records what the answer taught us (as a
   * console sync's is), or as `….failed` when the registrar refused or failed.
   */
  readonly audited?: boolean;
}

/** The audit entries of one audited change at the registrar: what it is and what it asks for. */
interface AuditedChange {
  readonly what: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

/**
 * Read after the ownership check (each caller is checked; only the registrar's answer is shared),
 * and bound to the record as it is now: once our record changes (an order completed, a sync
 * recorded), the next call asks the registrar again rather than repeat an answer older than it.
 */
const recentKey = (kind: string, domain: DomainRecord) => `${kind}:${domain.id}:${domain.updatedAt.getTime()}`;

export class DomainManagementService {
  /**
   * A reseller's sync and transfer sync of one domain: concurrent calls share one registrar call,
   * and its answer serves the calls of the next few seconds (docs/api.md#domain-sync), so a client
   * looping on them cannot make the platform hammer its registrar. The background passes and
   * reconciliation keep their own schedule and never read this.
   */
  private readonly recentSyncs: RecentReads;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly gateway: RegistrarGateway,
    private readonly syncer: DomainSyncService,
    private readonly clock: Clock,
  ) {
    this.recentSyncs = new RecentReads(SYNC_ANSWER_REUSED_MS, clock);
  }

  /**
   * The ownership rule: a domain that is not on the platform and a domain of another reseller get
   * the same answer, and the registrar is never asked about either.
   */
  async owned(resellerId: string, input: string): Promise<DomainRecord> {
    const name = parseDomainName(input);
    const domain = await this.uow.read.domains.findByName(name.ascii);
    if (!domain || domain.resellerId !== resellerId) throw notOwned(name.unicode);
    return domain;
  }

  /**
   * A domain the registrar is asked about for the reseller: owned, and still on the platform. A
   * Cancelled domain (deleted, or an order that never took effect) or one Transferred Away
   * answers only information, sync and transfer sync, from our record (docs/domain-management.md).
   */
  async held(resellerId: string, input: string): Promise<DomainRecord> {
    const domain = await this.owned(resellerId, input);
    if (isGone(domain.status))
      throw new DomainError(
        'conflict',
        `The domain ${domain.unicodeName} is ${domain.status}; only information and sync answer for it`,
      );
    return domain;
  }

  /**
   * A domain the reseller changes or hands away: held, and without an open order. While an order
   * for it is pending, its outcome decides what the domain is; a change meanwhile could make the
   * order's refund a free domain (docs/orders.md, "While an order is open").
   */
  async changeable(resellerId: string, input: string): Promise<DomainRecord> {
    const domain = await this.held(resellerId, input);
    if (await this.uow.read.orders.findOpen(domain.name)) throw inProgress(domain.unicodeName);
    return domain;
  }

  async information(
    resellerId: string,
    input: string,
  ): Promise<{ domain: DomainRecord; information: DomainInformationView }> {
    const domain = await this.owned(resellerId, input);
    const information = await this.gateway.information(domain);
    await this.remember(domain, {
      nameservers: information.nameservers,
      ...(information.transferLock !== undefined ? { transferLock: information.transferLock } : {}),
      ...(!information.assembled && information.expiryDate !== undefined ? { expiryDate: information.expiryDate } : {}),
      ...(!information.assembled
        ? {
            addons: {
              idProtection: information.idProtection,
              dnsManagement: information.dnsManagement,
              emailForwarding: information.emailForwarding,
            },
          }
        : {}),
    });
    return { domain, information };
  }

  async sync(resellerId: string, input: string): Promise<SyncedDomain> {
    const domain = await this.owned(resellerId, input);
    return this.recentSyncs.read(recentKey('sync', domain), () => this.syncer.syncDomain(domain));
  }

  async transferSync(resellerId: string, input: string): Promise<TransferSyncView> {
    const domain = await this.owned(resellerId, input);
    return this.recentSyncs.read(recentKey('transfersync', domain), () => this.syncer.transferSync(domain));
  }

  async nameservers(resellerId: string, input: string): Promise<readonly string[]> {
    const domain = await this.held(resellerId, input);
    const nameservers = await this.gateway.nameservers(domain);
    await this.remember(domain, { nameservers });
    return nameservers;
  }

  async saveNameservers(
    resellerId: string,
    input: string,
    nameservers: readonly string[],
    options: ChangeOptions = {},
  ): Promise<Accepted> {
    const domain = await this.changeable(resellerId, input);
    const list = normaliseNameservers(nameservers);
    return this.atRegistrar(
      domain,
      options,
      { what: 'nameservers', before: { nameservers: domain.nameservers }, after: { nameservers: list } },
      () => this.gateway.saveNameservers(domain, list),
      { nameservers: list },
    );
  }

  async registerChildHost(resellerId: string, input: string, host: string, ipAddress: string): Promise<Accepted> {
    const domain = await this.changeable(resellerId, input);
    return this.gateway.registerChildHost(
      domain,
      parseChildHost(host, domain.name),
      parseIpAddress(ipAddress, 'ipaddress'),
    );
  }

  async modifyChildHost(
    resellerId: string,
    input: string,
    host: string,
    currentIpAddress: string,
    newIpAddress: string,
  ): Promise<Accepted> {
    const domain = await this.changeable(resellerId, input);
    return this.gateway.modifyChildHost(
      domain,
      parseChildHost(host, domain.name),
      parseIpAddress(currentIpAddress, 'currentipaddress'),
      parseIpAddress(newIpAddress, 'newipaddress'),
    );
  }

  async deleteChildHost(resellerId: string, input: string, host: string): Promise<Accepted> {
    const domain = await this.changeable(resellerId, input);
    return this.gateway.deleteChildHost(domain, parseChildHost(host, domain.name));
  }

  async dnsRecords(resellerId: string, input: string): Promise<readonly DnsRecord[]> {
    return this.gateway.dnsRecords(await this.held(resellerId, input));
  }

  async saveDnsRecords(
    resellerId: string,
    input: string,
    records: readonly DnsRecordInput[],
    options: ChangeOptions = {},
  ): Promise<Accepted> {
    const domain = await this.changeable(resellerId, input);
    const valid = validateDnsRecords(records);
    await this.assertAddonBought(domain, 'dnsmanagement');
    return this.atRegistrar(domain, options, { what: 'dns', after: { records: valid } }, () =>
      this.gateway.saveDnsRecords(domain, valid),
    );
  }

  async lock(resellerId: string, input: string): Promise<boolean> {
    const domain = await this.held(resellerId, input);
    const locked = await this.gateway.lock(domain);
    await this.remember(domain, { transferLock: locked });
    return locked;
  }

  async saveLock(resellerId: string, input: string, locked: boolean, options: ChangeOptions = {}): Promise<Accepted> {
    const domain = await this.changeable(resellerId, input);
    return this.atRegistrar(
      domain,
      options,
      { what: 'lock', before: { transferLock: domain.transferLock }, after: { transferLock: locked } },
      () => this.gateway.saveLock(domain, locked),
      { transferLock: locked },
    );
  }

  async saveIdProtection(
    resellerId: string,
    input: string,
    enabled: boolean,
    options: ChangeOptions = {},
  ): Promise<Accepted> {
    const domain = await this.changeable(resellerId, input);
    if (enabled) await this.assertAddonBought(domain, 'idprotection');
    return this.atRegistrar(
      domain,
      options,
      {
        what: 'id_protection',
        before: { idProtection: domain.addons.idProtection },
        after: { idProtection: enabled },
      },
      () => this.gateway.saveIdProtection(domain, enabled),
      { addons: { idProtection: enabled } },
    );
  }

  /** Audited, the code's disclosure is (the code hands the domain away), never the code itself. */
  async eppCode(resellerId: string, input: string, options: ChangeOptions = {}): Promise<string> {
    const domain = await this.changeable(resellerId, input);
    if (!options.audited) return this.gateway.eppCode(domain);
    let eppCode = '';
    await this.atRegistrar(domain, options, { what: 'eppcode' }, async () => {
      eppCode = await this.gateway.eppCode(domain);
      return { pending: false };
    });
    return eppCode;
  }

  async contacts(resellerId: string, input: string): Promise<Contacts> {
    return this.gateway.contacts(await this.held(resellerId, input));
  }

  async saveContacts(
    resellerId: string,
    input: string,
    contacts: Partial<Record<ContactRole, Record<string, string>>>,
    options: ChangeOptions = {},
  ): Promise<Accepted> {
    const domain = await this.changeable(resellerId, input);
    const normalised = normaliseContacts(contacts);
    // Which roles change, not the personal data itself.
    return this.atRegistrar(domain, options, { what: 'contacts', after: { roles: Object.keys(normalised) } }, () =>
      this.gateway.saveContacts(domain, normalised),
    );
  }

  async emailForwards(resellerId: string, input: string): Promise<readonly EmailForward[]> {
    return this.gateway.emailForwards(await this.held(resellerId, input));
  }

  async saveEmailForwards(
    resellerId: string,
    input: string,
    prefixes: readonly string[],
    targets: readonly string[],
    options: ChangeOptions = {},
  ): Promise<Accepted> {
    const domain = await this.changeable(resellerId, input);
    const forwards = normaliseEmailForwards(prefixes, targets);
    await this.assertAddonBought(domain, 'emailforwarding');
    return this.atRegistrar(domain, options, { what: 'email_forwarding', after: { forwards } }, () =>
      this.gateway.saveEmailForwards(domain, forwards),
    );
  }

  /** docs/api.md#delete-a-domain: once the registrar accepts the deletion, the domain is Cancelled. No refund. */
  async delete(resellerId: string, input: string): Promise<Accepted> {
    const domain = await this.changeable(resellerId, input);
    const accepted = await this.gateway.delete(domain);
    await this.remember(domain, { status: 'Cancelled' }, 'delete');
    return accepted;
  }

  /** Releasing (a .uk tag change) hands the domain to another registrar: it is Transferred Away here. */
  async release(resellerId: string, input: string, transferTag: string): Promise<Accepted> {
    const domain = await this.changeable(resellerId, input);
    const accepted = await this.gateway.release(domain, parseTransferTag(transferTag));
    await this.remember(domain, { status: 'Transferred Away' }, 'release');
    return accepted;
  }

  /**
   * docs/orders.md#addons-turned-on-later: a priced addon the domain was not ordered with is not
   * switched on for free; the request is refused naming the yearly price, nothing changed. An
   * addon the group does not price (free) may be used on any domain.
   */
  private async assertAddonBought(domain: DomainRecord, addon: AddonName): Promise<void> {
    if (domain.addons[ADDON_FIELD[addon]]) return;
    const reseller = await this.uow.read.resellers.findById(domain.resellerId);
    const price = reseller ? ((await this.uow.read.catalogue.addonPrices(reseller.groupId)).get(addon) ?? 0) : 0;
    if (price === 0) return;
    throw new DomainError(
      'validation_failed',
      `${domain.unicodeName} was not ordered with ${addon}, a paid addon (${formatAmount(price)} a year); ` +
        'it is bought with a register or transfer order; nothing was changed',
    );
  }

  /**
   * Makes a change at the registrar (outside any transaction) and records what it taught us
   * (`learnt`, unless the registrar only accepted it as pending); audited as `ChangeOptions` says.
   */
  private async atRegistrar(
    domain: DomainRecord,
    { audited = false }: ChangeOptions,
    change: AuditedChange,
    call: () => Promise<Accepted>,
    learnt: DomainChanges = {},
  ): Promise<Accepted> {
    if (!audited) {
      const accepted = await call();
      if (!accepted.pending) await this.remember(domain, learnt);
      return accepted;
    }
    const entry = (suffix: string, after: unknown): AuditRecord => ({
      action: `reseller.domain.${change.what}${suffix}`,
      subject: { kind: 'domain', id: domain.name },
      before: change.before,
      after,
    });
    // Committed before the registrar is asked: should nothing after it be recorded, the request still is.
    await this.uow.run(({ audit }) => recordChange(audit, this.clock, entry('.requested', change.after)));
    let accepted: Accepted;
    try {
      accepted = await call();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // The registrar's refusal (or fault) is the answer; failing to record it must not hide it.
      await this.uow
        .run(({ audit }) => recordChange(audit, this.clock, entry('.failed', { ...asObject(change.after), reason })))
        .catch(() => undefined);
      throw error;
    }
    await this.remember(
      domain,
      accepted.pending ? {} : learnt,
      undefined,
      entry('', { ...asObject(change.after), pending: accepted.pending }),
    );
    return accepted;
  }

  /**
   * Records what a registrar call taught us; a change that changes nothing is not written. With
   * `audited`, that audit entry is written in the same transaction (and even when nothing changed).
   */
  private async remember(
    domain: DomainRecord,
    changes: DomainChanges,
    cause?: 'delete' | 'release',
    audited?: AuditRecord,
  ): Promise<void> {
    const differs =
      (changes.status !== undefined && changes.status !== domain.status) ||
      (changes.expiryDate !== undefined && changes.expiryDate !== domain.expiryDate) ||
      (changes.transferLock !== undefined && changes.transferLock !== domain.transferLock) ||
      (changes.nameservers !== undefined && changes.nameservers.join(',') !== domain.nameservers.join(',')) ||
      (changes.addons !== undefined &&
        Object.entries(changes.addons).some(
          ([k, v]) => v !== undefined && domain.addons[k as keyof typeof domain.addons] !== v,
        ));
    if (!differs && !audited) return;
    const at = this.clock.now();
    const subject = { domainId: domain.id, domain: domain.name, resellerId: domain.resellerId, at };
    await this.uow.run(async ({ domains, outbox, audit }) => {
      if (audited) await recordChange(audit, this.clock, audited);
      if (!differs) return;
      await domains.update(domain.id, changes, at);
      if (cause && changes.status !== undefined && changes.status !== domain.status)
        outbox.push({
          name: 'domain.status_changed',
          event: { ...subject, from: domain.status, to: changes.status, cause },
        });
      if (typeof changes.transferLock === 'boolean' && changes.transferLock !== domain.transferLock)
        outbox.push({ name: 'domain.lock.changed', event: { ...subject, isLocked: changes.transferLock } });
      if (changes.nameservers !== undefined && changes.nameservers.join(',') !== domain.nameservers.join(','))
        outbox.push({
          name: 'domain.nameservers.changed',
          event: { ...subject, nameservers: [...changes.nameservers] },
        });
    });
  }
}

const asObject = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
