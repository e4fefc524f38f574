import { ulid } from '../common/ids';
import { recordChange } from '../audit/audit-log';
import { generateApiKey } from '../auth/api-token';
import type { Clock } from '../common/clock';
import { parseIpNetwork } from '../auth/ip-network';
import { creditChanged } from '../credit/credit-service';
import type { LedgerEntry } from '../credit/ledger';
import { DomainError } from '../common/errors';
import { formatAmount, type Minor } from '../common/money';
import { DOMAIN_STATUSES, type DomainStatus } from '../domain/domain';
import { isGone, isPending, statusesWhere } from '../domain/domain-lifecycle';
import type { UnitOfWork } from '../common/unit-of-work';
import { normaliseEmail, normaliseName } from '../common/validation';
import { assertCompleteRegistrant, normaliseContact } from '../order/contacts';
import type { Reseller, ResellerGroup, ResellerStatus, SecretBox } from './reseller';

export interface CreatedReseller {
  readonly reseller: Reseller;
  /** Shown once: only its sealed form is stored. */
  readonly apiKey: string;
}

/** A reseller's low-credit alert as the portal and the CLI show it. */
export interface LowCreditStatus {
  readonly resellerId: string;
  /** Integer minor units; null: no alert. */
  readonly threshold: Minor | null;
  readonly balance: Minor;
  /** Whether the balance is below the threshold (and `credit.low` was published for this fall). */
  readonly isLow: boolean;
}

/** What `close` did: the closed reseller, and how many domains moved to which reseller. */
export interface ClosedReseller {
  readonly reseller: Reseller;
  readonly movedDomains: number;
  readonly movedTo?: Reseller;
}

const PENDING_STATUSES = statusesWhere('isPending');
/** The domains a reseller holds that can change hands: neither gone nor waiting for an order. */
const HELD_STATUSES = DOMAIN_STATUSES.filter((s) => !isGone(s) && !isPending(s));

export class ResellerService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
  ) {}

  async createGroup(name: string): Promise<ResellerGroup> {
    const groupName = normaliseName(name, 'group name');
    return this.uow.run(async ({ groups, audit }) => {
      if (await groups.findByName(groupName)) throw new DomainError('conflict', `group "${groupName}" already exists`);
      const group: ResellerGroup = { id: ulid(), name: groupName, defaultContact: null };
      await groups.insert(group);
      await recordChange(audit, this.clock, { action: 'group.create', subject: groupSubject(group), after: group });
      return group;
    });
  }

  async group(name: string): Promise<ResellerGroup> {
    const group = await this.uow.read.groups.findByName(String(name ?? '').trim());
    if (!group) throw new DomainError('not_found', `group "${name}" does not exist`);
    return group;
  }

  listGroups(): Promise<ResellerGroup[]> {
    return this.uow.read.groups.list();
  }

  async renameGroup(name: string, newNameInput: string): Promise<ResellerGroup> {
    const newName = normaliseName(newNameInput, 'group name');
    return this.uow.run(async ({ groups, audit }) => {
      const group = await groups.findByName(String(name ?? '').trim());
      if (!group) throw new DomainError('not_found', `group "${name}" does not exist`);
      if (group.name === newName) return group;
      if (await groups.findByName(newName)) throw new DomainError('conflict', `group "${newName}" already exists`);
      await groups.rename(group.id, newName);
      await recordChange(audit, this.clock, {
        action: 'group.rename',
        subject: groupSubject(group),
        before: { name: group.name },
        after: { name: newName },
      });
      return { ...group, name: newName };
    });
  }

  /** Deletes a group and its prices; refused while resellers are in it (move them first). */
  async deleteGroup(name: string): Promise<{ deleted: string }> {
    return this.uow.run(async ({ groups, resellers, audit }) => {
      const group = await groups.findByName(String(name ?? '').trim());
      if (!group) throw new DomainError('not_found', `group "${name}" does not exist`);
      const members = (await resellers.list()).filter((r) => r.groupId === group.id);
      if (members.length > 0)
        throw new DomainError(
          'conflict',
          `group "${group.name}" still has ${members.length} reseller(s) (${members
            .slice(0, 3)
            .map((r) => r.email)
            .join(', ')}${members.length > 3 ? ', …' : ''}): move them first (reseller move <email> --group <other>)`,
        );
      await groups.delete(group.id);
      await recordChange(audit, this.clock, { action: 'group.delete', subject: groupSubject(group), before: group });
      return { deleted: group.name };
    });
  }

  /** The registrant used for the group's orders that carry none; checked like an order's registrant. */
  async setDefaultContact(groupName: string, contact: Record<string, string> | null): Promise<ResellerGroup> {
    const group = await this.group(groupName);
    const checked = contact === null ? null : { ...normaliseContact(contact, 'the default contact') };
    if (checked) assertCompleteRegistrant(checked, 'the default contact');
    await this.uow.run(async ({ groups, audit }) => {
      await groups.setDefaultContact(group.id, checked);
      await recordChange(audit, this.clock, {
        action: 'group.default_contact.set',
        subject: groupSubject(group),
        before: group.defaultContact,
        after: checked,
      });
    });
    return { ...group, defaultContact: checked };
  }

  /** Creates the reseller with an empty credit account (and an opening top-up when asked). */
  async create(emailInput: string, groupName: string, openingCredit: Minor = 0): Promise<CreatedReseller> {
    const email = normaliseEmail(emailInput);
    if (openingCredit < 0) throw new DomainError('validation_failed', 'opening credit cannot be negative');
    const apiKey = generateApiKey();
    const now = this.clock.now();
    const reseller = await this.uow.run(async ({ resellers, groups, ledger, outbox, audit }) => {
      const group = await groups.findByName(groupName.trim());
      if (!group) throw new DomainError('not_found', `group "${groupName}" does not exist`);
      if (await resellers.findByEmail(email))
        throw new DomainError('conflict', `a reseller with email ${email} already exists`);
      const created = { id: ulid(), email, groupId: group.id, status: 'active' as const, createdAt: now };
      await resellers.insert({ ...created, sealedApiKey: this.secrets.seal(apiKey), allowedNetworks: [] });
      await ledger.openAccount(created.id);
      if (openingCredit > 0) {
        const opening: LedgerEntry = {
          id: ulid(),
          resellerId: created.id,
          amount: openingCredit,
          kind: 'top_up',
          orderId: null,
          note: 'opening credit',
          createdAt: now,
        };
        await ledger.post(opening);
        outbox.push({ name: 'credit.changed', event: creditChanged(opening, opening.amount) });
      }
      await recordChange(audit, this.clock, {
        action: 'reseller.create',
        subject: resellerSubject(created),
        after: { email, group: group.name, status: created.status, openingCredit: formatAmount(openingCredit) },
      });
      return created;
    });
    return { reseller, apiKey };
  }

  async byEmail(emailInput: string): Promise<Reseller> {
    const found = await this.uow.read.resellers.findByEmail(normaliseEmail(emailInput));
    if (!found) throw new DomainError('not_found', `no reseller with email ${String(emailInput).trim()}`);
    const { sealedApiKey: _sealed, allowedNetworks: _networks, ...reseller } = found;
    return reseller;
  }

  /** Undefined when no reseller has this id. */
  byId(id: string): Promise<Reseller | undefined> {
    return this.uow.read.resellers.findById(id);
  }

  list(): Promise<Reseller[]> {
    return this.uow.read.resellers.list();
  }

  /** Issues a new key; tokens made with the old one stop working on the next request. */
  async rotateKey(email: string): Promise<string> {
    const reseller = await this.byEmail(email);
    const apiKey = generateApiKey();
    await this.uow.run(async ({ resellers, audit }) => {
      await resellers.setSealedApiKey(reseller.id, this.secrets.seal(apiKey));
      await recordChange(audit, this.clock, { action: 'reseller.key.rotate', subject: resellerSubject(reseller) });
    });
    return apiKey;
  }

  /**
   * A new API key for every reseller, sealed under the current master key: the recovery when the
   * key that sealed the stored ones is lost (`reseller-admin master-key replace-lost`).
   */
  async reissueAllKeys(): Promise<Array<{ email: string; apiKey: string }>> {
    const issued: Array<{ email: string; apiKey: string }> = [];
    for (const reseller of await this.list()) {
      const apiKey = generateApiKey();
      await this.uow.run(async ({ resellers, audit }) => {
        await resellers.setSealedApiKey(reseller.id, this.secrets.seal(apiKey));
        await recordChange(audit, this.clock, {
          action: 'reseller.key.reissue',
          subject: resellerSubject(reseller),
          after: { reason: 'the master key was replaced' },
        });
      });
      issued.push({ email: reseller.email, apiKey });
    }
    return issued;
  }

  /**
   * Ends a reseller's account: refused while it holds credit (refund it first) or has an order in
   * progress, and while it holds domains that are not gone unless `moveDomainsTo` names the active
   * reseller that takes them over, so that nobody's domains or money are left on an account nobody
   * can use. The checks, the move and the status change are one transaction: all or nothing.
   * A closed reseller cannot call the API.
   */
  async close(email: string, options: { readonly moveDomainsTo?: string } = {}): Promise<ClosedReseller> {
    const reseller = await this.byEmail(email);
    const heir = options.moveDomainsTo === undefined ? undefined : await this.byEmail(options.moveDomainsTo);
    if (heir?.id === reseller.id)
      throw new DomainError(
        'validation_failed',
        `${reseller.email} cannot take over its own domains: name another reseller`,
      );
    const named = (domains: readonly { name: string }[]) =>
      `${domains
        .slice(0, 3)
        .map((d) => d.name)
        .join(', ')}${domains.length > 3 ? ', …' : ''}`;
    return this.uow.run(async ({ resellers, ledger, domains, orders, audit }) => {
      const audited = (movedDomains: number) =>
        recordChange(audit, this.clock, {
          action: 'reseller.close',
          subject: resellerSubject(reseller),
          before: { status: reseller.status },
          after: { status: 'closed', movedDomains, ...(heir && { movedTo: heir.email }) },
        });
      // The status first: its row stays locked until the end, so a concurrent close or move waits.
      await resellers.setStatus(reseller.id, 'closed');
      const balance = await ledger.balance(reseller.id);
      if (balance !== 0)
        throw new DomainError(
          'conflict',
          `${reseller.email} still holds ${formatAmount(balance)} of credit: refund it first (credit add ${reseller.email} -${formatAmount(balance)} --note "refund on closing")`,
        );
      const held = (statuses: readonly DomainStatus[]) =>
        domains.page({ resellerId: reseller.id, statuses, sort: 'name', limit: 4 });
      // A domain waiting for its order, or a held one with an open order (a renewal, a restore):
      // the order's refund is the reseller's, so it settles before the account closes.
      const inFlight = [
        ...(await held(PENDING_STATUSES)),
        ...(await orders.page({ resellerId: reseller.id, statuses: ['pending'], limit: 4 })).map((o) => ({
          name: o.domain,
        })),
      ].filter((d, i, all) => all.findIndex((e) => e.name === d.name) === i);
      if (inFlight.length > 0)
        throw new DomainError(
          'conflict',
          `${reseller.email} has orders in progress (${named(inFlight)}): close it once they have settled`,
        );
      if (heir === undefined) {
        const kept = await held(HELD_STATUSES);
        if (kept.length > 0)
          throw new DomainError(
            'conflict',
            `${reseller.email} still holds domains (${named(kept)}): move them to another reseller (--move-domains-to <email>), or transfer them away or let them lapse, before the account is closed`,
          );
        await audited(0);
        return { reseller: { ...reseller, status: 'closed' }, movedDomains: 0 };
      }
      // Locked, and so read as last committed: the heir's own closing cannot commit meanwhile.
      const current = await resellers.lockById(heir.id);
      if (current?.status !== 'active')
        throw new DomainError(
          'conflict',
          `${heir.email} is ${current?.status ?? 'gone'}: domains can only move to an active reseller`,
        );
      const movedDomains = await domains.moveHeld(reseller.id, heir.id, HELD_STATUSES, this.clock.now());
      await audited(movedDomains);
      return { reseller: { ...reseller, status: 'closed' }, movedDomains, movedTo: heir };
    });
  }

  /**
   * Suspends a reseller or lets it call the API again. A closed account stays closed (its domains
   * and credit have left it; `close` is the only way there): refused, and checked under the row's
   * lock so that a close committing meanwhile is seen.
   */
  async setStatus(email: string, status: Exclude<ResellerStatus, 'closed'>): Promise<Reseller> {
    const reseller = await this.byEmail(email);
    await this.uow.run(async ({ resellers, audit }) => {
      const current = await resellers.lockById(reseller.id);
      if (current?.status === 'closed')
        throw new DomainError(
          'conflict',
          `${reseller.email} is closed, and a closed account stays closed: create a new reseller instead`,
        );
      await resellers.setStatus(reseller.id, status);
      await recordChange(audit, this.clock, {
        action: status === 'suspended' ? 'reseller.suspend' : 'reseller.resume',
        subject: resellerSubject(reseller),
        before: { status: reseller.status },
        after: { status },
      });
    });
    return { ...reseller, status };
  }

  /** Moves the reseller to another group: its prices are the new group's from the next order. */
  async changeGroup(email: string, groupName: string): Promise<Reseller> {
    const reseller = await this.byEmail(email);
    const group = await this.group(groupName);
    await this.uow.run(async ({ resellers, groups, audit }) => {
      await resellers.setGroup(reseller.id, group.id);
      await recordChange(audit, this.clock, {
        action: 'reseller.group.change',
        subject: resellerSubject(reseller),
        before: { group: (await groups.findById(reseller.groupId))?.name ?? reseller.groupId },
        after: { group: group.name },
      });
    });
    return { ...reseller, groupId: group.id };
  }

  /**
   * Changes the reseller's email, which is also its API username: its billing platform must be
   * told, since tokens are made with the email (spec: HMAC over "<email>:<hour>").
   */
  async changeEmail(email: string, newEmailInput: string): Promise<Reseller> {
    const reseller = await this.byEmail(email);
    const newEmail = normaliseEmail(newEmailInput);
    if (newEmail === reseller.email) return reseller;
    if (await this.uow.read.resellers.findByEmail(newEmail))
      throw new DomainError('conflict', `another reseller has the email ${newEmail}`);
    await this.uow.run(async ({ resellers, audit }) => {
      await resellers.setEmail(reseller.id, newEmail);
      await recordChange(audit, this.clock, {
        action: 'reseller.email.change',
        subject: resellerSubject(reseller),
        before: { email: reseller.email },
        after: { email: newEmail },
      });
    });
    return { ...reseller, email: newEmail };
  }

  /** Adds a range to the reseller's IP allow-list (a bare address is a /32 or /128); answers the list. */
  async allowNetwork(
    email: string,
    cidr: string,
  ): Promise<{ email: string; added: string; allowedNetworks: string[] }> {
    const reseller = await this.byEmail(email);
    const network = parseIpNetwork(cidr);
    await this.uow.run(async ({ resellers, audit }) => {
      await resellers.addAllowedNetwork(reseller.id, network.cidr);
      await recordChange(audit, this.clock, {
        action: 'reseller.allow_list.add',
        subject: resellerSubject(reseller),
        after: { added: network.cidr },
      });
    });
    return {
      email: reseller.email,
      added: network.cidr,
      allowedNetworks: await this.uow.read.resellers.allowedNetworks(reseller.id),
    };
  }

  /** Removes a range; with the last one gone, every address is allowed again. */
  async disallowNetwork(
    email: string,
    cidr: string,
  ): Promise<{ email: string; removed: string; allowedNetworks: string[] }> {
    const reseller = await this.byEmail(email);
    const network = parseIpNetwork(cidr);
    await this.uow.run(async ({ resellers, audit }) => {
      if (!(await resellers.removeAllowedNetwork(reseller.id, network.cidr)))
        throw new DomainError('not_found', `${network.cidr} is not on the allow-list of ${reseller.email}`);
      await recordChange(audit, this.clock, {
        action: 'reseller.allow_list.remove',
        subject: resellerSubject(reseller),
        before: { removed: network.cidr },
      });
    });
    return {
      email: reseller.email,
      removed: network.cidr,
      allowedNetworks: await this.uow.read.resellers.allowedNetworks(reseller.id),
    };
  }

  /**
   * The reseller's low-credit alert with its balance now; `not_found` for an unknown id.
   */
  async lowCredit(resellerId: string): Promise<LowCreditStatus> {
    const [alert, balance] = await Promise.all([
      this.uow.read.resellers.lowCredit(resellerId),
      this.uow.read.ledger.balance(resellerId),
    ]);
    if (!alert) throw new DomainError('not_found', 'no such reseller');
    return { resellerId, threshold: alert.threshold, balance, isLow: alert.isLow };
  }

  /**
   * Sets the balance below which `credit.low` is published (null or 0 turns the alert off). A
   * balance already below the new threshold counts as a fall: the alert is published now, once.
   */
  async setLowCreditThreshold(resellerId: string, threshold: Minor | null): Promise<LowCreditStatus> {
    if (threshold !== null && (!Number.isSafeInteger(threshold) || threshold < 0))
      throw new DomainError('validation_failed', 'the low-credit threshold must be an amount of 0.00 or more');
    const stored = threshold === 0 ? null : threshold;
    return this.uow.run(async ({ resellers, ledger, outbox, audit }) => {
      const before = await resellers.lowCredit(resellerId);
      if (!before) throw new DomainError('not_found', 'no such reseller');
      const balance = await ledger.balance(resellerId);
      const isLow = stored !== null && balance < stored;
      await resellers.setLowCredit(resellerId, { threshold: stored, isLow });
      if (stored !== null && isLow && !before.isLow)
        outbox.push({ name: 'credit.low', event: { resellerId, balance, threshold: stored, at: this.clock.now() } });
      await recordChange(audit, this.clock, {
        action: 'reseller.low_credit.set',
        subject: { kind: 'reseller', id: resellerId },
        before: { threshold: before.threshold === null ? null : formatAmount(before.threshold) },
        after: { threshold: stored === null ? null : formatAmount(stored) },
      });
      return { resellerId, threshold: stored, balance, isLow };
    });
  }

  /** The reseller's IP allow-list by its id. */
  allowedNetworksOf(resellerId: string): Promise<string[]> {
    return this.uow.read.resellers.allowedNetworks(resellerId);
  }

  async allowedNetworks(email: string): Promise<{ email: string; allowedNetworks: string[] }> {
    const reseller = await this.byEmail(email);
    return { email: reseller.email, allowedNetworks: await this.uow.read.resellers.allowedNetworks(reseller.id) };
  }
}

const resellerSubject = (reseller: { readonly id: string }) => ({ kind: 'reseller', id: reseller.id });
const groupSubject = (group: { readonly id: string }) => ({ kind: 'group', id: group.id });
