import type {
  AvailabilityResult,
  CallContext,
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
} from 'domain-reseller';
import { ContactObjects, ROLE_TYPES } from './contact-objects';
import { ContactInputError, newAuthCode } from './contacts';
import {
  isLocked,
  isTransferredAwayBy,
  statusOf,
  SYNC_OF_ABSENT,
  syncOfInfo,
  syncOfUnshown,
  transferSyncOfSponsor,
  transferSyncOfTransfer,
} from './decisions';
import { datePart, readDomainInfo, readTransferData } from './domain-info';
import * as frames from './frames';
import type { DsRecord } from './frames';
import { HostObjects } from './host-objects';
import { domainName, dsRecordsFrom, hostName, InputError, period } from './input';
import type { EppOptions } from './options';
import { pending, refusalOf, refused, settled } from './outcomes';
import { PollEvents, readPollMessage, type PollMessage } from './poll-messages';
import { describeResult, type EppResponse } from './responses';
import { type CommandPort, RegistryCalls } from './registry-calls';
import { restoreDomain, type RestoreInput } from './restore';
import { child, childText, children, NS, XmlValueError } from './xml';

export type { CommandPort } from './registry-calls';
export type { RestoreInput } from './restore';

/**
 * The EPP registrar: every capability maps onto RFC 5731–5733 commands (plus 5910 DS records and
 * 3915 restore). Outcomes follow the contract: registry answers are returned, faults thrown. The
 * class is the contract's face: host objects (host-objects.ts), contact objects
 * (contact-objects.ts), restore (restore.ts), input checks (input.ts) and what info and transfer
 * answers mean (decisions.ts, pure functions) live beside it.
 */
export class EppRegistrar implements RegistrarPlugin {
  readonly id = 'epp';
  private readonly pollEvents = new PollEvents();
  private draining: Promise<PollMessage[]> | undefined;
  private readonly calls: RegistryCalls;
  private readonly hosts: HostObjects;
  private readonly contactObjects: ContactObjects;

  constructor(
    pool: CommandPort,
    private readonly options: EppOptions,
    private readonly host: PluginHost,
  ) {
    this.calls = new RegistryCalls(pool, options.clientId);
    this.hosts = new HostObjects(this.calls, options.hostMode, host.store);
    this.contactObjects = new ContactObjects(this.calls, options);
  }

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
      const services = await this.calls.services(ctx.signal);
      const dsRecords = dsRecordsFrom(input.fields);
      if (dsRecords.length && !services.extensionUris.includes(NS.secDNS))
        return refused('the registry does not offer DNSSEC (secDNS-1.1); leave out the DS records');

      // Everything that can be refused without asking the registry is checked before the first command.
      const plan = this.contactObjects.plan(services, input.contacts);
      const nameservers = this.hosts.nameserversFor(services, input.nameservers.map(hostName));
      if (this.hosts.usesHostObjects(services)) {
        const missing = await this.hosts.ensureHosts(name, nameservers.hostObjects ?? [], ctx);
        if (missing) return missing;
      }
      const created: string[] = [];
      const cleanUp = async () => {
        for (const id of created)
          await this.run((t) => frames.contactDeleteFrame(id, t), ctx, false).catch(() => undefined);
      };
      for (const entry of plan.create) {
        const result = await this.contactObjects.create(entry.data, ctx);
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
      let info = await this.calls.info(name, ctx);
      if (!info.ok) return info;
      if (info.info.rgpStatuses.includes('redemptionPeriod')) {
        // A domain in redemption comes back through an RGP restore; the renewal follows.
        const restored = await this.restoreDomain(name, info.info, undefined, ctx);
        if (!restored.ok) return restored;
        info = await this.calls.info(name, ctx);
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
        const found = await this.calls.ownInfo(domainName(input.domain), ctx);
        if (!found.ok) return found;
        const info = found.info;
        return {
          ok: true,
          nameservers: info.hostObjects.length ? info.hostObjects : info.hostAttributes,
          transferLock: isLocked(info, this.options.lockStatuses),
          expiryDate: datePart(info.expiresAt),
          registrationStatus: statusOf(info, this.today()),
          restorable: info.rgpStatuses.includes('redemptionPeriod'),
          registrantEmail: info.registrant ? await this.contactObjects.emailOf(info.registrant, ctx) : undefined,
          extra: {
            eppStatuses: info.statuses,
            rgpStatuses: info.rgpStatuses,
            dsRecords: info.dsRecords,
            childNameservers: info.subordinateHosts.length
              ? info.subordinateHosts
              : await this.hosts.knownChildHosts(info.name, ctx),
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
        const found = await this.calls.ownInfo(domainName(input.domain), ctx);
        if (!found.ok) return found;
        return {
          ok: true,
          nameservers: found.info.hostObjects.length ? found.info.hostObjects : found.info.hostAttributes,
        };
      }),
    save: (input: { domain: string; nameservers: readonly string[] }, ctx: CallContext): Promise<RegistrarOutcome> =>
      this.guard(() => this.hosts.save(input, ctx)),
  };

  readonly childHosts = {
    register: (
      input: { domain: string; host: string; ipAddress: string },
      ctx: CallContext,
    ): Promise<RegistrarOutcome> => this.guard(() => this.hosts.registerChild(input, ctx)),
    modify: (
      input: { domain: string; host: string; currentIpAddress: string; newIpAddress: string },
      ctx: CallContext,
    ): Promise<RegistrarOutcome> => this.guard(() => this.hosts.modifyChild(input, ctx)),
    delete: (input: { domain: string; host: string }, ctx: CallContext): Promise<RegistrarOutcome> =>
      this.guard(() => this.hosts.deleteChild(input, ctx)),
  };

  readonly registrarLock = {
    get: (input: { domain: string }, ctx: CallContext): Promise<RegistrarOutcome<{ locked: boolean }>> =>
      this.guard(async () => {
        const found = await this.calls.ownInfo(domainName(input.domain), ctx);
        return found.ok ? { ok: true, locked: isLocked(found.info, this.options.lockStatuses) } : found;
      }),
    save: (input: { domain: string; locked: boolean }, ctx: CallContext): Promise<RegistrarOutcome> =>
      this.guard(async () => {
        const name = domainName(input.domain);
        const found = await this.calls.ownInfo(name, ctx);
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
        return settled(response, name);
      }),
  };

  readonly eppCode = {
    get: (input: { domain: string }, ctx: CallContext): Promise<RegistrarOutcome<{ eppCode: string }>> =>
      this.guard(async () => {
        const name = domainName(input.domain);
        const found = await this.calls.ownInfo(name, ctx);
        if (!found.ok) return found;
        if (found.info.authInfo) return { ok: true, eppCode: found.info.authInfo };
        // Registries that do not show the code set a fresh one, as they expect registrars to do.
        const code = newAuthCode(this.options.authInfo);
        const response = await this.run(
          (t) => frames.domainUpdateFrame({ name, chg: { authInfo: code } }, t),
          ctx,
          false,
        );
        const outcome = settled(response, name);
        return outcome.ok ? { ok: true, eppCode: code } : outcome;
      }),
  };

  readonly contacts = {
    get: (input: { domain: string }, ctx: CallContext): Promise<RegistrarOutcome<{ contacts: Contacts }>> =>
      this.guard(async () => {
        const found = await this.calls.ownInfo(domainName(input.domain), ctx);
        if (!found.ok) return found;
        return { ok: true, contacts: await this.contactObjects.read(found.info, ctx) };
      }),
    save: (input: { domain: string; contacts: Contacts }, ctx: CallContext): Promise<RegistrarOutcome> =>
      this.guard(async () => {
        const name = domainName(input.domain);
        const services = await this.calls.services(ctx.signal);
        if (!services.objectUris.includes(NS.contact) || this.options.contactMode === 'none')
          return refused('this registry takes no contact objects');
        const found = await this.calls.ownInfo(name, ctx);
        if (!found.ok) return found;
        return this.contactObjects.save(name, found.info, input.contacts, ctx);
      }),
  };

  readonly delete = {
    delete: (input: { domain: string }, ctx: CallContext): Promise<RegistrarOutcome> =>
      this.guard(async () => {
        const name = domainName(input.domain);
        const response = await this.run((t) => frames.domainDeleteFrame(name, t), ctx, false);
        // 1000 and 1001 alike: the registry took the deletion (RGP holds the name in redemption either way).
        return settled(response, name);
      }),
  };

  readonly domainSync = {
    sync: (input: { domain: string }, ctx: CallContext): Promise<RegistrarOutcome<DomainSyncResult>> =>
      this.guard<DomainSyncResult>(async () => {
        const name = domainName(input.domain);
        await this.drainPoll(ctx);
        const response = await this.run((t) => frames.domainInfoFrame(name, t), ctx, true);
        const isTransferredAway = isTransferredAwayBy(this.pollEvents.latestTransfer(name), this.options.clientId);
        // Registries answer info on another registrar's domain with an authorisation error.
        if (response.code === 2201 || response.code === 2202 || (isTransferredAway && response.code !== 1000)) {
          const query = await this.run((t) => frames.domainTransferFrame('query', name, t), ctx, true);
          const transfer = query.code === 1000 ? readTransferData(query.resData) : undefined;
          return syncOfUnshown(transfer, this.options.clientId, name);
        }
        if (response.code === 2303) return SYNC_OF_ABSENT;
        if (response.code !== 1000) return refusalOf(response, name);
        const info = readDomainInfo(response);
        if (!info) throw new Error(`the registry answered info for ${name} without domain data`);
        return syncOfInfo(info, this.options.clientId, this.today());
      }),
  };

  readonly transferSync = {
    sync: (input: { domain: string }, ctx: CallContext): Promise<RegistrarOutcome<TransferSyncResult>> =>
      this.guard<TransferSyncResult>(async () => {
        const name = domainName(input.domain);
        await this.drainPoll(ctx);
        const response = await this.run((t) => frames.domainTransferFrame('query', name, t), ctx, true);
        const transfer =
          response.code === 1000 ? readTransferData(response.resData) : this.pollEvents.latestTransfer(name);
        const ours = transferSyncOfTransfer(transfer, this.options.clientId);
        if (ours?.completed && ours.expiryDate === undefined)
          return { ...ours, expiryDate: await this.expiryOf(name, ctx) };
        if (ours) return ours;
        if (response.code === 2303)
          return { ok: true, completed: false, failed: true, reason: `${name} does not exist at the registry` };
        const info = await this.run((t) => frames.domainInfoFrame(name, t), ctx, true);
        return transferSyncOfSponsor(
          info.code === 1000 ? readDomainInfo(info) : undefined,
          this.options.clientId,
          name,
        );
      }),
  };

  // ---- beyond the contract: operations an operator may call on the plugin directly ----

  /** RFC 3915 restore of a domain in its redemption period (request, then the report when configured). */
  restore(input: RestoreInput, ctx: CallContext): Promise<RegistrarOutcome> {
    return this.guard(async () => {
      const name = domainName(input.domain);
      const found = await this.calls.ownInfo(name, ctx);
      if (!found.ok) return found;
      return this.restoreDomain(name, found.info, input, ctx);
    });
  }

  /** RFC 5910: replaces the domain's DS records (an empty list removes them all). */
  saveDsRecords(input: { domain: string; records: readonly DsRecord[] }, ctx: CallContext): Promise<RegistrarOutcome> {
    return this.guard(async () => {
      const name = domainName(input.domain);
      const services = await this.calls.services(ctx.signal);
      if (!services.extensionUris.includes(NS.secDNS))
        return refused('the registry does not offer DNSSEC (secDNS-1.1)');
      const records = dsRecordsFrom({ dsRecords: input.records });
      const response = await this.run((t) => frames.domainUpdateFrame({ name, dsRecords: records }, t), ctx, false);
      return settled(response, name);
    });
  }

  /** Reads and acknowledges waiting poll messages (at most `maxPollMessages`); sync and transfer sync do this themselves. */
  pollMessages(ctx: CallContext): Promise<PollMessage[]> {
    return this.drainPoll(ctx);
  }

  async close(): Promise<void> {
    await this.calls.close();
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

  private run(build: (clTRID: string) => string, ctx: CallContext, isReadOnly: boolean): Promise<EppResponse> {
    return this.calls.run(build, ctx, isReadOnly);
  }

  private today(): string {
    return this.host.clock.now().toISOString().slice(0, 10);
  }

  private async expiryOf(name: string, ctx: CallContext): Promise<string | undefined> {
    const found = await this.calls.info(name, ctx);
    return found.ok ? datePart(found.info.expiresAt) : undefined;
  }

  private restoreDomain(
    name: string,
    info: Parameters<typeof restoreDomain>[2],
    input: RestoreInput | undefined,
    ctx: CallContext,
  ): Promise<RegistrarOutcome> {
    const request = {
      sendReport: input?.sendReport ?? this.options.restoreReport,
      reason: input?.reason,
      now: this.host.clock.now().toISOString(),
    };
    return restoreDomain(this.calls, name, info, request, ctx);
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

  private addYears(from: Date, years: number): string {
    const d = new Date(from);
    d.setUTCFullYear(d.getUTCFullYear() + years);
    return d.toISOString().slice(0, 10);
  }
}
