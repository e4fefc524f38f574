import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type {
  AvailabilityResult,
  CallContext,
  Contact,
  ContactRole,
  Contacts,
  DomainInformation,
  DomainSyncResult,
  PluginHost,
  RegisterInput,
  RegistrarOutcome,
  RegistrarPlugin,
  RenewInput,
  TransferInput,
  TransferSyncResult,
} from '../../../src/core/registrar/plugin';
import { ContactInputError, fromContactInfo, newAuthCode, newContactId, toContactData } from './contacts';
import { datePart, readDomainInfo, readTransferData, type DomainInfo } from './domain-info';
import * as frames from './frames';
import type { DomainContactRef, DsRecord, HostAddress, Nameservers } from './frames';
import type { EppOptions } from './options';
import { PollEvents, readPollMessage, type PollMessage } from './poll-messages';
import { describeResult, type EppResponse } from './responses';
import type { CommandOptions, NegotiatedServices } from './session-pool';
import { child, childText, children, NS, XmlValueError } from './xml';

/** What the registrar needs of the session pool (a fake can stand in for it). */
export interface CommandPort {
  command(build: (clTRID: string) => string, options: CommandOptions): Promise<EppResponse>;
  services(signal: AbortSignal): Promise<NegotiatedServices>;
  close(): Promise<void>;
}

type Failure = { readonly ok: false; readonly reason: 'unavailable' | 'refused' | 'pending'; readonly message: string };

/** Bad input found before anything was sent: a definite refusal. */
class InputError extends Error {}

const SUCCESS = new Set([1000, 1001]);
const ROLE_TYPES = ['admin', 'tech', 'billing'] as const;

/**
 * RFC 5730 section 3: result codes mapped onto registrar outcomes. 2400 and 2500–2502 never reach
 * here: the session pool turns them into a thrown temporary failure and reconnects.
 */
export function refusalOf(response: EppResponse, subject: string): Failure {
  const why = describeResult(response);
  switch (response.code) {
    case 2302:
      return { ok: false, reason: 'unavailable', message: `${subject} already exists at the registry: ${why}` };
    case 2303:
      return { ok: false, reason: 'refused', message: `${subject} does not exist at the registry: ${why}` };
    case 2201:
    case 2202:
      return { ok: false, reason: 'refused', message: `the registry refused authorisation for ${subject}: ${why}` };
    case 2304:
    case 2305:
    case 2306:
      return { ok: false, reason: 'refused', message: `registry policy refused ${subject}: ${why}` };
    default:
      return { ok: false, reason: 'refused', message: `the registry refused ${subject}: ${why}` };
  }
}

const pending = (message: string): Failure => ({ ok: false, reason: 'pending', message });
const refused = (message: string): Failure => ({ ok: false, reason: 'refused', message });

export interface RestoreInput {
  readonly domain: string;
  /** Overrides the `restoreReport` option for this call. */
  readonly sendReport?: boolean;
  readonly reason?: string;
}

/**
 * The EPP registrar: every capability maps onto RFC 5731–5733 commands (plus 5910 DS records and
 * 3915 restore). Outcomes follow the contract: registry answers are returned, faults thrown.
 */
export class EppRegistrar implements RegistrarPlugin {
  readonly id = 'epp';
  private readonly pollEvents = new PollEvents();
  private draining: Promise<PollMessage[]> | undefined;

  constructor(
    private readonly pool: CommandPort,
    private readonly options: EppOptions,
    private readonly host: PluginHost,
  ) {}

  // ---- required part ----

  async checkAvailability(domains: readonly string[], ctx: CallContext): Promise<AvailabilityResult[]> {
    const names = [...new Set(domains.map((d) => d.toLowerCase()))];
    const batches: string[][] = [];
    for (let i = 0; i < names.length; i += this.options.checkBatchSize)
      batches.push(names.slice(i, i + this.options.checkBatchSize));
    const answers = new Map<string, AvailabilityResult>();
    const settled = await Promise.allSettled(batches.map((batch) => this.checkBatch(batch, ctx, answers)));
    const failures = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failures.length > 0 && failures.length === settled.length) throw failures[0]!.reason;
    return domains.map((d) => ({ ...(answers.get(d.toLowerCase()) ?? { status: 'unknown' as const }), domain: d }));
  }

  /**
   * One `<domain:check>`. Registries refuse a whole batch for one name they cannot take (a syntax
   * or policy error), so a refused batch is split: the names the registry points at are checked
   * alone, the others together, and a batch that names none is halved. A name stays `unknown` only
   * when its check alone is refused, and the registry's words for it are logged.
   */
  private async checkBatch(batch: string[], ctx: CallContext, answers: Map<string, AvailabilityResult>): Promise<void> {
    const response = await this.run((t) => frames.domainCheckFrame(batch, t), ctx, true);
    if (response.code !== 1000) {
      if (batch.length === 1) {
        this.host.logger.warn({ domains: batch, registry: describeResult(response) }, 'epp check refused');
        return;
      }
      const words = new Set(
        response.results.flatMap((r) => r.reasons.flatMap((reason) => reason.toLowerCase().split(/[\s,;:"'()<>]+/))),
      );
      const blamed = batch.filter((name) => words.has(name));
      const rest = batch.filter((name) => !words.has(name));
      const parts =
        blamed.length > 0
          ? [...blamed.map((name) => [name]), rest]
          : [batch.slice(0, Math.ceil(batch.length / 2)), batch.slice(Math.ceil(batch.length / 2))];
      for (const part of parts) if (part.length > 0) await this.checkBatch(part, ctx, answers);
      return;
    }
    for (const cd of children(child(response.resData, NS.domain, 'chkData'), NS.domain, 'cd')) {
      const nameEl = child(cd, NS.domain, 'name');
      const name = nameEl?.text.trim().toLowerCase() ?? '';
      const isAvailable = ['1', 'true'].includes(nameEl?.attrs.avail ?? '');
      const reason = childText(cd, NS.domain, 'reason') ?? '';
      answers.set(name, {
        domain: name,
        status: isAvailable
          ? 'available'
          : /reserv|restrict|block|prohibit|not avail/i.test(reason)
            ? 'reserved'
            : 'registered',
      });
    }
  }

  register(input: RegisterInput, ctx: CallContext): Promise<RegistrarOutcome<{ expiryDate: string }>> {
    return this.guard(async () => {
      const name = domainName(input.domain);
      const years = period(input.period);
      const services = await this.pool.services(ctx.signal);
      const dsRecords = dsRecordsFrom(input.fields);
      if (dsRecords.length && !services.extensionUris.includes(NS.secDNS))
        return refused('the registry does not offer DNSSEC (secDNS-1.1); leave out the DS records');

      // Everything that can be refused without asking the registry is checked before the first command.
      const plan = this.contactPlan(services, input.contacts);
      const nameservers = this.nameserversFor(services, input.nameservers.map(hostName));
      if (this.usesHostObjects(services)) {
        const missing = await this.ensureHosts(name, nameservers.hostObjects ?? [], ctx);
        if (missing) return missing;
      }
      const created: string[] = [];
      const cleanUp = async () => {
        for (const id of created)
          await this.run((t) => frames.contactDeleteFrame(id, t), ctx, false).catch(() => undefined);
      };
      for (const entry of plan.create) {
        const result = await this.createContact(entry.data, ctx);
        if (!result.ok) {
          await cleanUp();
          return result;
        }
        entry.id = result.id;
        created.push(result.id);
      }
      const idOf = (role: ContactRole) => plan.create.find((c) => c.roles.includes(role))?.id;
      const response = await this.run(
        (t) =>
          frames.domainCreateFrame(
            {
              name,
              years,
              nameservers:
                'hostObjects' in nameservers
                  ? { hostObjects: nameservers.hostObjects! }
                  : { hostAttributes: nameservers.hostAttributes! },
              registrant: idOf('registrant'),
              contacts: ROLE_TYPES.flatMap((type) => (idOf(type) ? [{ type, id: idOf(type)! }] : [])),
              authInfo: newAuthCode(this.options.authInfo),
              dsRecords,
            },
            t,
          ),
        ctx,
        false,
      );
      if (response.code === 1001)
        return pending(
          `the registry accepted ${name} and will complete it later (clTRID ${response.clientTransactionId ?? ''})`,
        );
      if (response.code !== 1000) {
        await cleanUp();
        return refusalOf(response, name);
      }
      const exDate = datePart(childText(child(response.resData, NS.domain, 'creData'), NS.domain, 'exDate'));
      return { ok: true, expiryDate: exDate ?? this.addYears(this.host.clock.now(), years) };
    });
  }

  renew(input: RenewInput, ctx: CallContext): Promise<RegistrarOutcome<{ expiryDate: string }>> {
    return this.guard(async () => {
      const name = domainName(input.domain);
      const years = period(input.period);
      let info = await this.info(name, ctx);
      if (!info.ok) return info;
      if (info.info.rgpStatuses.includes('redemptionPeriod')) {
        // A domain in redemption comes back through an RGP restore; the renewal follows.
        const restored = await this.restoreDomain(name, info.info, undefined, ctx);
        if (!restored.ok) return restored;
        info = await this.info(name, ctx);
        if (!info.ok) return info;
      }
      const current = datePart(info.info.expiresAt);
      if (!current) return refused(`the registry did not tell the expiry date of ${name}`);
      if (input.currentExpiryDate && input.currentExpiryDate !== current) {
        this.host.logger.info(
          { domain: name, platform: input.currentExpiryDate, registry: current },
          'renewing from the registry expiry date',
        );
      }
      const response = await this.run((t) => frames.domainRenewFrame(name, current, years, t), ctx, false);
      if (response.code === 1001) return pending(`the registry will complete the renewal of ${name} later`);
      if (response.code !== 1000) return refusalOf(response, name);
      const exDate = datePart(childText(child(response.resData, NS.domain, 'renData'), NS.domain, 'exDate'));
      return { ok: true, expiryDate: exDate ?? this.addYears(new Date(`${current}T00:00:00Z`), years) };
    });
  }

  // ---- capabilities ----

  readonly transfer = {
    transfer: (input: TransferInput, ctx: CallContext): Promise<RegistrarOutcome<{ expiryDate?: string }>> =>
      this.guard(async () => {
        const name = domainName(input.domain);
        if (!input.eppCode) return refused('an EPP code is required to transfer a domain');
        const response = await this.run(
          (t) =>
            frames.domainTransferFrame('request', name, t, { years: period(input.period), authInfo: input.eppCode }),
          ctx,
          false,
        );
        if (response.code === 1001)
          return pending(
            `transfer of ${name} requested; the registry completes it after the losing registrar's window`,
          );
        if (response.code !== 1000) return refusalOf(response, name);
        return { ok: true, expiryDate: datePart(readTransferData(response.resData)?.expiresAt) };
      }),
  };

  readonly domainInformation = {
    get: (input: { domain: string }, ctx: CallContext): Promise<RegistrarOutcome<DomainInformation>> =>
      this.guard(async () => {
        const found = await this.ownInfo(domainName(input.domain), ctx);
        if (!found.ok) return found;
        const info = found.info;
        let registrantEmail: string | undefined;
        const registrant = info.registrant;
        if (registrant) {
          const contact = await this.run((t) => frames.contactInfoFrame(registrant, t), ctx, true).catch(
            () => undefined,
          );
          registrantEmail =
            contact?.code === 1000
              ? childText(child(contact.resData, NS.contact, 'infData'), NS.contact, 'email')
              : undefined;
        }
        return {
          ok: true,
          nameservers: info.hostObjects.length ? info.hostObjects : info.hostAttributes,
          transferLock: this.isLocked(info),
          expiryDate: datePart(info.expiresAt),
          registrationStatus: this.statusOf(info),
          restorable: info.rgpStatuses.includes('redemptionPeriod'),
          registrantEmail,
          extra: {
            eppStatuses: info.statuses,
            rgpStatuses: info.rgpStatuses,
            dsRecords: info.dsRecords,
            childNameservers: info.subordinateHosts.length
              ? info.subordinateHosts
              : await this.knownChildHosts(info.name, ctx),
            createdDate: info.createdAt,
            updatedDate: info.updatedAt,
            transferredDate: info.transferredAt,
            roid: info.roid,
          },
        };
      }),
  };

  readonly nameservers = {
    get: (input: { domain: string }, ctx: CallContext): Promise<RegistrarOutcome<{ nameservers: readonly string[] }>> =>
      this.guard(async () => {
        const found = await this.ownInfo(domainName(input.domain), ctx);
        if (!found.ok) return found;
        return {
          ok: true,
          nameservers: found.info.hostObjects.length ? found.info.hostObjects : found.info.hostAttributes,
        };
      }),
    save: (input: { domain: string; nameservers: readonly string[] }, ctx: CallContext): Promise<RegistrarOutcome> =>
      this.guard(async () => {
        const name = domainName(input.domain);
        const services = await this.pool.services(ctx.signal);
        const found = await this.ownInfo(name, ctx);
        if (!found.ok) return found;
        const isObjects = this.usesHostObjects(services);
        const current = isObjects ? found.info.hostObjects : found.info.hostAttributes;
        const wanted = [...new Set(input.nameservers.map(hostName))];
        const add = wanted.filter((h) => !current.includes(h));
        const rem = current.filter((h) => !wanted.includes(h));
        if (add.length === 0 && rem.length === 0) return { ok: true };
        if (isObjects) {
          const missing = await this.ensureHosts(name, add, ctx);
          if (missing) return missing;
        }
        const ns = (list: string[]): Nameservers | undefined =>
          list.length ? (isObjects ? { hostObjects: list } : { hostAttributes: list }) : undefined;
        const response = await this.run(
          (t) => frames.domainUpdateFrame({ name, add: { nameservers: ns(add) }, rem: { nameservers: ns(rem) } }, t),
          ctx,
          false,
        );
        return this.settled(response, name);
      }),
  };

  readonly childHosts = {
    register: (
      input: { domain: string; host: string; ipAddress: string },
      ctx: CallContext,
    ): Promise<RegistrarOutcome> =>
      this.guard(async () => {
        const { name, host } = await this.childHost(input, ctx);
        const response = await this.run((t) => frames.hostCreateFrame(host, [address(input.ipAddress)], t), ctx, false);
        const outcome = this.settled(response, host);
        if (outcome.ok) await this.host.store.set(childHostKey(name, host), host);
        return outcome;
      }),
    modify: (
      input: { domain: string; host: string; currentIpAddress: string; newIpAddress: string },
      ctx: CallContext,
    ): Promise<RegistrarOutcome> =>
      this.guard(async () => {
        const { host } = await this.childHost(input, ctx);
        const response = await this.run(
          (t) =>
            frames.hostUpdateFrame(
              host,
              { add: [address(input.newIpAddress)], rem: [address(input.currentIpAddress)] },
              t,
            ),
          ctx,
          false,
        );
        return this.settled(response, host);
      }),
    delete: (input: { domain: string; host: string }, ctx: CallContext): Promise<RegistrarOutcome> =>
      this.guard(async () => {
        const { name, host } = await this.childHost(input, ctx);
        const response = await this.run((t) => frames.hostDeleteFrame(host, t), ctx, false);
        const outcome = this.settled(response, host);
        if (outcome.ok || response.code === 2303) await this.host.store.delete(childHostKey(name, host));
        return outcome;
      }),
  };

  readonly registrarLock = {
    get: (input: { domain: string }, ctx: CallContext): Promise<RegistrarOutcome<{ locked: boolean }>> =>
      this.guard(async () => {
        const found = await this.ownInfo(domainName(input.domain), ctx);
        return found.ok ? { ok: true, locked: this.isLocked(found.info) } : found;
      }),
    save: (input: { domain: string; locked: boolean }, ctx: CallContext): Promise<RegistrarOutcome> =>
      this.guard(async () => {
        const name = domainName(input.domain);
        const found = await this.ownInfo(name, ctx);
        if (!found.ok) return found;
        const has = new Set(found.info.statuses);
        const change = input.locked
          ? this.options.lockStatuses.filter((s) => !has.has(s))
          : this.options.lockStatuses.filter((s) => has.has(s));
        if (change.length === 0) return { ok: true };
        const response = await this.run(
          (t) =>
            frames.domainUpdateFrame(
              input.locked ? { name, add: { statuses: change } } : { name, rem: { statuses: change } },
              t,
            ),
          ctx,
          false,
        );
        return this.settled(response, name);
      }),
  };

  readonly eppCode = {
    get: (input: { domain: string }, ctx: CallContext): Promise<RegistrarOutcome<{ eppCode: string }>> =>
      this.guard(async () => {
        const name = domainName(input.domain);
        const found = await this.ownInfo(name, ctx);
        if (!found.ok) return found;
        if (found.info.authInfo) return { ok: true, eppCode: found.info.authInfo };
        // Registries that do not show the code set a fresh one, as they expect registrars to do.
        const code = newAuthCode(this.options.authInfo);
        const response = await this.run(
          (t) => frames.domainUpdateFrame({ name, chg: { authInfo: code } }, t),
          ctx,
          false,
        );
        const outcome = this.settled(response, name);
        return outcome.ok ? { ok: true, eppCode: code } : outcome;
      }),
  };

  readonly contacts = {
    get: (input: { domain: string }, ctx: CallContext): Promise<RegistrarOutcome<{ contacts: Contacts }>> =>
      this.guard(async () => {
        const found = await this.ownInfo(domainName(input.domain), ctx);
        if (!found.ok) return found;
        const roleIds = this.roleIds(found.info);
        const byId = new Map<string, Contact>();
        for (const id of new Set(Object.values(roleIds))) {
          const response = await this.run((t) => frames.contactInfoFrame(id, t), ctx, true);
          const inf = child(response.resData, NS.contact, 'infData');
          if (response.code === 1000 && inf) byId.set(id, fromContactInfo(inf));
        }
        const contacts: Partial<Record<ContactRole, Contact>> = {};
        for (const [role, id] of Object.entries(roleIds) as Array<[ContactRole, string]>)
          if (byId.has(id)) contacts[role] = byId.get(id)!;
        return { ok: true, contacts };
      }),
    save: (input: { domain: string; contacts: Contacts }, ctx: CallContext): Promise<RegistrarOutcome> =>
      this.guard(async () => {
        const name = domainName(input.domain);
        const services = await this.pool.services(ctx.signal);
        if (!services.objectUris.includes(NS.contact) || this.options.contactMode === 'none')
          return refused('this registry takes no contact objects');
        const found = await this.ownInfo(name, ctx);
        if (!found.ok) return found;
        const roleIds = this.roleIds(found.info);
        const usage = new Map<string, number>();
        for (const id of Object.values(roleIds)) usage.set(id, (usage.get(id) ?? 0) + 1);
        const add: DomainContactRef[] = [];
        const rem: DomainContactRef[] = [];
        let newRegistrant: string | undefined;
        for (const [role, contact] of Object.entries(input.contacts) as Array<[ContactRole, Contact | undefined]>) {
          if (!contact) continue;
          if (this.options.contactMode === 'registrant' && role !== 'registrant') continue;
          const data = toContactData(contact, role, this.options.postalInfoType);
          const currentId = roleIds[role];
          if (currentId && usage.get(currentId) === 1 && (await this.isOurContact(currentId, ctx))) {
            const response = await this.run((t) => frames.contactUpdateFrame(currentId, data, t), ctx, false);
            const outcome = this.settled(response, `the ${role} contact`);
            if (!outcome.ok) return outcome;
            continue;
          }
          const createdContact = await this.createContact(data, ctx);
          if (!createdContact.ok) return createdContact;
          if (role === 'registrant') newRegistrant = createdContact.id;
          else {
            add.push({ type: role, id: createdContact.id });
            if (currentId) rem.push({ type: role, id: currentId });
          }
        }
        if (!newRegistrant && add.length === 0) return { ok: true };
        const response = await this.run(
          (t) =>
            frames.domainUpdateFrame(
              { name, add: { contacts: add }, rem: { contacts: rem }, chg: { registrant: newRegistrant } },
              t,
            ),
          ctx,
          false,
        );
        return this.settled(response, name);
      }),
  };

  readonly delete = {
    delete: (input: { domain: string }, ctx: CallContext): Promise<RegistrarOutcome> =>
      this.guard(async () => {
        const name = domainName(input.domain);
        const response = await this.run((t) => frames.domainDeleteFrame(name, t), ctx, false);
        // 1000 and 1001 alike: the registry took the deletion (RGP holds the name in redemption either way).
        return this.settled(response, name);
      }),
  };

  readonly domainSync = {
    sync: (input: { domain: string }, ctx: CallContext): Promise<RegistrarOutcome<DomainSyncResult>> =>
      this.guard<DomainSyncResult>(async () => {
        const name = domainName(input.domain);
        await this.drainPoll(ctx);
        const response = await this.run((t) => frames.domainInfoFrame(name, t), ctx, true);
        const news = this.pollEvents.latestTransfer(name);
        const isTransferredAway =
          news !== undefined &&
          news.requestedBy !== this.options.clientId &&
          ['clientApproved', 'serverApproved'].includes(news.status);
        // Registries answer info on another registrar's domain with an authorisation error.
        if (response.code === 2201 || response.code === 2202 || (isTransferredAway && response.code !== 1000)) {
          // Not ours yet is not the same as gone: a transfer we asked for may still be running.
          const query = await this.run((t) => frames.domainTransferFrame('query', name, t), ctx, true);
          const trn = query.code === 1000 ? readTransferData(query.resData) : undefined;
          if (trn?.requestedBy === this.options.clientId && trn.status === 'pending')
            return pending(`the transfer of ${name} to us is still pending`);
          return { ok: true, active: false, expired: false, transferredAway: true };
        }
        // Not at the registry at all: deleted and purged, or never created (a pending order that failed).
        if (response.code === 2303)
          return { ok: true, active: false, expired: false, transferredAway: false, cancelled: true };
        if (response.code !== 1000) return refusalOf(response, name);
        const info = readDomainInfo(response);
        if (!info) throw new Error(`the registry answered info for ${name} without domain data`);
        if (info.sponsor !== this.options.clientId) {
          return {
            ok: true,
            active: false,
            expired: false,
            transferredAway: true,
            expiryDate: datePart(info.expiresAt),
          };
        }
        if (info.statuses.includes('pendingCreate')) return pending(`${name} is still being created at the registry`);
        const expiryDate = datePart(info.expiresAt);
        const isDeleted =
          info.statuses.includes('pendingDelete') ||
          info.rgpStatuses.includes('redemptionPeriod') ||
          info.rgpStatuses.includes('pendingDelete');
        const isExpired = expiryDate !== undefined && expiryDate < this.host.clock.now().toISOString().slice(0, 10);
        return {
          ok: true,
          active: !isDeleted && !isExpired,
          expired: !isDeleted && isExpired,
          transferredAway: false,
          cancelled: isDeleted,
          expiryDate,
        };
      }),
  };

  readonly transferSync = {
    sync: (input: { domain: string }, ctx: CallContext): Promise<RegistrarOutcome<TransferSyncResult>> =>
      this.guard<TransferSyncResult>(async () => {
        const name = domainName(input.domain);
        await this.drainPoll(ctx);
        const response = await this.run((t) => frames.domainTransferFrame('query', name, t), ctx, true);
        const trn = response.code === 1000 ? readTransferData(response.resData) : this.pollEvents.latestTransfer(name);
        if (trn && trn.requestedBy === this.options.clientId) {
          if (trn.status === 'pending') return { ok: true, completed: false, failed: false };
          if (trn.status === 'clientApproved' || trn.status === 'serverApproved') {
            return {
              ok: true,
              completed: true,
              failed: false,
              expiryDate: datePart(trn.expiresAt) ?? (await this.expiryOf(name, ctx)),
            };
          }
          return {
            ok: true,
            completed: false,
            failed: true,
            reason: `the transfer was ${trn.status.replace(/^(client|server)/, '').toLowerCase()} by the ${trn.status.startsWith('client') ? 'losing registrar' : 'registry'}`,
          };
        }
        if (response.code === 2303)
          return { ok: true, completed: false, failed: true, reason: `${name} does not exist at the registry` };
        // No transfer to report (2301 "not pending", or someone else's): settle by who sponsors the domain now.
        const info = await this.run((t) => frames.domainInfoFrame(name, t), ctx, true);
        const data = info.code === 1000 ? readDomainInfo(info) : undefined;
        if (data?.sponsor === this.options.clientId)
          return { ok: true, completed: true, failed: false, expiryDate: datePart(data.expiresAt) };
        return {
          ok: true,
          completed: false,
          failed: true,
          reason: `no transfer of ${name} is pending and another registrar sponsors it`,
        };
      }),
  };

  // ---- beyond the contract: operations an operator may call on the plugin directly ----

  /** RFC 3915 restore of a domain in its redemption period (request, then the report when configured). */
  restore(input: RestoreInput, ctx: CallContext): Promise<RegistrarOutcome> {
    return this.guard(async () => {
      const name = domainName(input.domain);
      const found = await this.ownInfo(name, ctx);
      if (!found.ok) return found;
      return this.restoreDomain(name, found.info, input, ctx);
    });
  }

  /** RFC 5910: replaces the domain's DS records (an empty list removes them all). */
  saveDsRecords(input: { domain: string; records: readonly DsRecord[] }, ctx: CallContext): Promise<RegistrarOutcome> {
    return this.guard(async () => {
      const name = domainName(input.domain);
      const services = await this.pool.services(ctx.signal);
      if (!services.extensionUris.includes(NS.secDNS))
        return refused('the registry does not offer DNSSEC (secDNS-1.1)');
      const records = dsRecordsFrom({ dsRecords: input.records });
      const response = await this.run((t) => frames.domainUpdateFrame({ name, dsRecords: records }, t), ctx, false);
      return this.settled(response, name);
    });
  }

  /** Reads and acknowledges waiting poll messages (at most `maxPollMessages`); sync and transfer sync do this themselves. */
  pollMessages(ctx: CallContext): Promise<PollMessage[]> {
    return this.drainPoll(ctx);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  // ---- helpers ----

  private async guard<T extends object>(work: () => Promise<RegistrarOutcome<T>>): Promise<RegistrarOutcome<T>> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof InputError || error instanceof ContactInputError || error instanceof XmlValueError)
        return refused(error.message);
      throw error;
    }
  }

  /**
   * Sends one command built for its clTRID; the pool gives every frame a new one that starts
   * with the call's transaction id (for an order, the order id), so the registry's logs lead back to it.
   */
  private run(build: (clTRID: string) => string, ctx: CallContext, isReadOnly: boolean): Promise<EppResponse> {
    return this.pool.command(build, { reference: ctx.transactionId, signal: ctx.signal, isReadOnly });
  }

  private settled(response: EppResponse, subject: string): RegistrarOutcome {
    return SUCCESS.has(response.code) ? { ok: true } : refusalOf(response, subject);
  }

  private async info(name: string, ctx: CallContext): Promise<{ ok: true; info: DomainInfo } | Failure> {
    const response = await this.run((t) => frames.domainInfoFrame(name, t), ctx, true);
    if (response.code !== 1000) return refusalOf(response, name);
    const info = readDomainInfo(response);
    if (!info) throw new Error(`the registry answered info for ${name} without domain data`);
    return { ok: true, info };
  }

  /** Info of a domain we sponsor; someone else's is a refusal (its data is not ours to show or change). */
  private async ownInfo(name: string, ctx: CallContext): Promise<{ ok: true; info: DomainInfo } | Failure> {
    const found = await this.info(name, ctx);
    if (found.ok && found.info.sponsor !== this.options.clientId)
      return refused(`${name} is sponsored by another registrar`);
    return found;
  }

  private async expiryOf(name: string, ctx: CallContext): Promise<string | undefined> {
    const found = await this.info(name, ctx);
    return found.ok ? datePart(found.info.expiresAt) : undefined;
  }

  private async restoreDomain(
    name: string,
    info: DomainInfo,
    input: RestoreInput | undefined,
    ctx: CallContext,
  ): Promise<RegistrarOutcome> {
    if (!info.rgpStatuses.includes('redemptionPeriod'))
      return refused(`${name} is not in its redemption period, so it cannot be restored`);
    const request = await this.run(
      (t) => frames.domainUpdateFrame({ name, restore: { op: 'request' } }, t),
      ctx,
      false,
    );
    if (!SUCCESS.has(request.code)) return refusalOf(request, name);
    if (!(input?.sendReport ?? this.options.restoreReport)) return { ok: true };
    const now = this.host.clock.now().toISOString();
    const report = await this.run(
      (t) =>
        frames.domainUpdateFrame(
          {
            name,
            restore: {
              op: 'report',
              report: {
                preData: `${name} registered by ${this.options.clientId}, expiring ${info.expiresAt ?? 'unknown'}`,
                postData: `${name} restored with the same registration data`,
                deletedAt: info.updatedAt ?? now,
                restoredAt: now,
                reason: input?.reason ?? 'Registrant error.',
                statements: [
                  'This registrar has not restored the Registered Name in order to assume the rights to use or sell the Registered Name for itself or for any third party.',
                  "The information in this report is true to best of this registrar's knowledge, and this registrar acknowledges that intentionally supplying false information in this report shall constitute an incurable material breach of the Registry-Registrar Agreement.",
                ],
              },
            },
          },
          t,
        ),
      ctx,
      false,
    );
    return this.settled(report, name);
  }

  private drainPoll(ctx: CallContext): Promise<PollMessage[]> {
    if (this.options.maxPollMessages === 0) return Promise.resolve([]);
    // One drain at a time: concurrent syncs share it instead of racing for the same messages.
    this.draining ??= (async () => {
      const taken: PollMessage[] = [];
      try {
        for (let i = 0; i < this.options.maxPollMessages; i++) {
          const response = await this.run(frames.pollRequestFrame, ctx, true);
          if (response.code !== 1301 || !response.queue) break;
          const message = readPollMessage(response);
          this.pollEvents.record(message);
          taken.push(message);
          // An ack sent twice only earns a 2303, so it may be resent like a read.
          await this.run((t) => frames.pollAckFrame(message.id, t), ctx, true);
          if (response.queue.count <= 1) break;
        }
      } catch (error) {
        this.host.logger.warn({ err: (error as Error).message }, 'epp poll failed; continuing without it');
      }
      return taken;
    })().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  private usesHostObjects(services: NegotiatedServices): boolean {
    return this.options.hostMode !== 'attributes' && services.objectUris.includes(NS.host);
  }

  private nameserversFor(
    services: NegotiatedServices,
    hosts: string[],
  ): { hostObjects?: string[]; hostAttributes?: string[] } {
    const unique = [...new Set(hosts)];
    if (this.options.hostMode === 'objects' && !services.objectUris.includes(NS.host))
      throw new InputError('hostMode is "objects" but the registry does not offer host objects');
    return this.usesHostObjects(services) ? { hostObjects: unique } : { hostAttributes: unique };
  }

  /** Host objects must exist before a domain names them: creates the external ones that do not. */
  private async ensureHosts(domain: string, hosts: readonly string[], ctx: CallContext): Promise<Failure | undefined> {
    if (hosts.length === 0) return undefined;
    const check = await this.run((t) => frames.hostCheckFrame(hosts, t), ctx, true);
    if (check.code !== 1000) return refusalOf(check, 'the nameservers');
    const missing = children(child(check.resData, NS.host, 'chkData'), NS.host, 'cd')
      .map((cd) => child(cd, NS.host, 'name'))
      .filter((n) => ['1', 'true'].includes(n?.attrs.avail ?? ''))
      .map((n) => n!.text.trim().toLowerCase());
    for (const host of missing) {
      if (host === domain || host.endsWith(`.${domain}`)) {
        return refused(
          `${host} is under ${domain} and does not exist yet: register it as a child nameserver (with its IP address) first`,
        );
      }
      const created = await this.run((t) => frames.hostCreateFrame(host, [], t), ctx, false);
      // 2302: created meanwhile by someone else, which is what we wanted.
      if (!SUCCESS.has(created.code) && created.code !== 2302) return refusalOf(created, `nameserver ${host}`);
    }
    return undefined;
  }

  /**
   * Some registries ignore `hosts="all"` and list no subordinate hosts in `<domain:infData>`: then
   * the child nameservers are the ones this plugin created under the domain (kept in the plugin's
   * store), those `<host:check>` still finds at the registry.
   */
  private async knownChildHosts(domain: string, ctx: CallContext): Promise<string[]> {
    const keys = await this.host.store.keys(childHostKey(domain));
    const hosts = (await Promise.all(keys.map((k) => this.host.store.get<string>(k)))).filter(
      (h): h is string => typeof h === 'string',
    );
    if (hosts.length === 0) return [];
    const check = await this.run((t) => frames.hostCheckFrame(hosts, t), ctx, true);
    if (check.code !== 1000) return hosts;
    const existing = new Set(
      children(child(check.resData, NS.host, 'chkData'), NS.host, 'cd')
        .map((cd) => child(cd, NS.host, 'name'))
        .filter((n) => ['0', 'false'].includes(n?.attrs.avail ?? ''))
        .map((n) => n!.text.trim().toLowerCase()),
    );
    return hosts.filter((h) => existing.has(h)).sort();
  }

  private async childHost(
    input: { domain: string; host: string },
    ctx: CallContext,
  ): Promise<{ name: string; host: string }> {
    const name = domainName(input.domain);
    const host = hostName(input.host);
    if (!host.endsWith(`.${name}`)) throw new InputError(`${host} is not under ${name}; a child nameserver must be`);
    const services = await this.pool.services(ctx.signal);
    if (!this.usesHostObjects(services))
      throw new InputError(
        'this registry uses host attributes: give child nameserver addresses with the nameservers instead',
      );
    return { name, host };
  }

  private contactPlan(
    services: NegotiatedServices,
    contacts: Contacts,
  ): { create: Array<{ roles: ContactRole[]; data: ReturnType<typeof toContactData>; id?: string }> } {
    const mode = services.objectUris.includes(NS.contact) ? this.options.contactMode : 'none';
    if (mode === 'none') return { create: [] };
    const registrant = contacts.registrant;
    if (!registrant) throw new InputError('a registrant contact is required');
    const entries: Array<{ roles: ContactRole[]; data: ReturnType<typeof toContactData>; id?: string }> = [
      { roles: ['registrant'], data: toContactData(registrant, 'registrant', this.options.postalInfoType) },
    ];
    if (mode === 'full') {
      for (const role of ROLE_TYPES) {
        const given = contacts[role];
        // A role left out is held by the registrant's contact, as most registries require admin and tech.
        if (!given || sameContact(given, registrant)) entries[0]!.roles.push(role);
        else entries.push({ roles: [role], data: toContactData(given, role, this.options.postalInfoType) });
      }
    }
    return { create: entries };
  }

  private async createContact(
    data: ReturnType<typeof toContactData>,
    ctx: CallContext,
  ): Promise<{ ok: true; id: string } | Failure> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const id = newContactId(this.options.contactIdPrefix);
      const response = await this.run(
        (t) => frames.contactCreateFrame(id, data, newAuthCode(this.options.authInfo), t),
        ctx,
        false,
      );
      if (SUCCESS.has(response.code)) return { ok: true, id };
      if (response.code !== 2302) return refusalOf(response, 'the contact');
    }
    return refused('the registry refused two fresh contact ids as taken');
  }

  private async isOurContact(id: string, ctx: CallContext): Promise<boolean> {
    const response = await this.run((t) => frames.contactInfoFrame(id, t), ctx, true);
    return (
      response.code === 1000 &&
      childText(child(response.resData, NS.contact, 'infData'), NS.contact, 'clID') === this.options.clientId
    );
  }

  private roleIds(info: DomainInfo): Partial<Record<ContactRole, string>> {
    const out: Partial<Record<ContactRole, string>> = {};
    if (info.registrant) out.registrant = info.registrant;
    for (const c of info.contacts) out[c.type] ??= c.id;
    return out;
  }

  private isLocked(info: DomainInfo): boolean {
    return this.options.lockStatuses.every((s) => info.statuses.includes(s));
  }

  /** The platform's domain statuses (docs/orders.md#domain-states-set-by-orders) from EPP and RGP statuses. */
  private statusOf(info: DomainInfo): string {
    if (info.statuses.includes('pendingCreate')) return 'Pending Registration';
    if (info.statuses.includes('pendingTransfer')) return 'Pending Transfer';
    if (info.rgpStatuses.includes('redemptionPeriod') || info.rgpStatuses.includes('pendingRestore'))
      return 'Redemption';
    if (info.statuses.includes('pendingDelete')) return 'Cancelled';
    const expiry = datePart(info.expiresAt);
    if (expiry && expiry < this.host.clock.now().toISOString().slice(0, 10))
      return info.rgpStatuses.includes('autoRenewPeriod') ? 'Grace' : 'Expired';
    return 'Active';
  }

  private addYears(from: Date, years: number): string {
    const d = new Date(from);
    d.setUTCFullYear(d.getUTCFullYear() + years);
    return d.toISOString().slice(0, 10);
  }
}

/**
 * The plugin-store key of a child nameserver, `child-hosts/<domain>/<host>` (a prefix of it lists a
 * domain's); long names are hashed to stay within the store's 191-character keys.
 */
function childHostKey(domain: string, host?: string): string {
  const short = (text: string, max: number) =>
    text.length <= max ? text : createHash('sha256').update(text).digest('hex').slice(0, 32);
  return `child-hosts/${short(domain, 80)}/${host === undefined ? '' : short(host, 90)}`;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

function domainName(raw: string): string {
  const name = String(raw).trim().toLowerCase().replace(/\.$/, '');
  if (name.length > 253 || name.split('.').length < 2 || !name.split('.').every((l) => LABEL.test(l)))
    throw new InputError(`"${raw}" is not a domain name in ASCII (punycode) form`);
  return name;
}

function hostName(raw: string): string {
  try {
    return domainName(raw);
  } catch {
    throw new InputError(`"${raw}" is not a host name`);
  }
}

function period(years: number): number {
  if (!Number.isInteger(years) || years < 1 || years > 10) throw new InputError('the period must be 1 to 10 years');
  return years;
}

function address(ip: string): HostAddress {
  const text = String(ip).trim();
  const version = isIP(text);
  if (version === 0) throw new InputError(`"${ip}" is not an IP address`);
  return { ip: version === 4 ? 'v4' : 'v6', address: text.toLowerCase() };
}

function sameContact(a: Contact, b: Contact): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => (a[k] ?? '') === (b[k] ?? ''));
}

/** DS records from TLD fields (`dsRecords`: a list of {keyTag, algorithm, digestType, digest}), checked for the schema. */
function dsRecordsFrom(fields: Readonly<Record<string, unknown>>): DsRecord[] {
  const raw = fields.dsRecords;
  if (raw === undefined) return [];
  const list = Array.isArray(raw) ? raw : typeof raw === 'object' && raw !== null ? Object.values(raw) : null;
  if (!list) throw new InputError('dsRecords must be a list');
  return list.map((r, i) => {
    const o = (r ?? {}) as Record<string, unknown>;
    const num = (k: string, max: number) => {
      const n = Number(o[k]);
      if (!Number.isInteger(n) || n < 0 || n > max)
        throw new InputError(`dsRecords[${i}].${k} must be a whole number from 0 to ${max}`);
      return n;
    };
    const digest = String(o.digest ?? '').trim();
    if (!/^([0-9a-fA-F]{2})+$/.test(digest)) throw new InputError(`dsRecords[${i}].digest must be hexadecimal`);
    return {
      keyTag: num('keyTag', 65535),
      algorithm: num('algorithm', 255),
      digestType: num('digestType', 255),
      digest: digest.toUpperCase(),
    };
  });
}
