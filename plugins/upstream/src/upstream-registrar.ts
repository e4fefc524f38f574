import { ResellerClient, type Addons, type CallOptions, type PhpValue } from 'domain-reseller/client';
import type {
  AvailabilityResult,
  CallContext,
  DomainSyncResult,
  PluginHost,
  RegisterInput,
  RegistrarOutcome,
  RegistrarPlugin,
  Registered,
  TransferSyncResult,
} from 'domain-reseller';
import type { UpstreamOptions } from './options';
import {
  attempt,
  faultOf,
  isFinishedError,
  isNotOurs,
  pending,
  refusalOf,
  refused,
  type Failure,
} from './upstream-errors';
import {
  availabilityFrom,
  contactsFrom,
  dateOf,
  dnsRecordsFrom,
  informationFrom,
  isPendingStatus,
  pricesFrom,
} from './wire';

/** Most lookups sent to the upstream at once for one availability batch. */
const LOOKUP_CONCURRENCY = 4;
/** `tldsToInclude` holds at most 100 TLDs (docs/search.md). */
const LOOKUP_MAX_TLDS = 100;

type State = { readonly expiryDate?: string; readonly registrationStatus?: string };
type StateRead = { readonly state: State } | { readonly error: unknown };

const addYears = (date: string, years: number) => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().slice(0, 10);
};

/**
 * A registrar that is another reseller API: our platform, or the deployed product it describes.
 * Every call goes through the reseller client SDK with the platform's deadline signal.
 *
 * Money rules, since the upstream charges our account there while the platform charges the reseller here:
 * - register, renew and transfer carry the call's transaction id (the platform's order id) as the
 *   `Idempotency-Key`, so the SDK's retries, and any repeat of the same order, are charged once upstream;
 * - only a definite refusal is returned as one (see `upstream-errors.ts`); anything else is thrown,
 *   and the platform keeps the order pending for reconciliation;
 * - the upstream answers "success" for an order it has accepted but not finished, so
 *   after a success the plugin reads the domain back and answers `pending` unless it is done: our
 *   reconciliation then settles it through domain sync and transfer sync, which relay the
 *   upstream's pending states too.
 */
export function createUpstreamRegistrar(
  options: UpstreamOptions,
  host: PluginHost,
  client?: ResellerClient,
): RegistrarPlugin {
  const api =
    client ??
    new ResellerClient({
      baseUrl: options.baseUrl,
      email: options.email,
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs,
      userAgent: 'domain-reseller-upstream-plugin',
    });
  const logger = host.logger;
  const on = (ctx: CallContext): CallOptions => ({ signal: ctx.signal });
  const paid = (ctx: CallContext) => ({ signal: ctx.signal, idempotencyKey: ctx.transactionId });

  /** The domain as the upstream's information reports it; never throws. */
  async function readState(domain: string, ctx: CallContext): Promise<StateRead> {
    try {
      const info = informationFrom(await api.information(domain, on(ctx)));
      return { state: { expiryDate: info.expiryDate, registrationStatus: info.registrationStatus } };
    } catch (error) {
      return { error };
    }
  }

  /** True only when the upstream says the domain is not in our account; false when it is, or when it cannot be told. */
  async function isAbsent(domain: string, ctx: CallContext): Promise<boolean> {
    try {
      await api.sync(domain, on(ctx));
      return false;
    } catch (error) {
      return isNotOurs(error);
    }
  }

  /**
   * A paid call that did not succeed: a definite refusal is returned (the platform refunds);
   * an error the upstream's own application answered is checked with `didNothing` (it has
   * finished with the request, so its records tell) where the check is conclusive; anything
   * else is thrown (unknown outcome).
   */
  async function orderFailure(
    operation: string,
    domain: string,
    error: unknown,
    didNothing?: () => Promise<boolean>,
  ): Promise<Failure> {
    const refusal = refusalOf(error, 'order');
    if (refusal) {
      if (/credentials/.test(refusal.message))
        logger.error({ operation, domain }, `upstream ${operation} refused: ${refusal.message}`);
      return refusal;
    }
    if (isFinishedError(error) && didNothing && (await didNothing().catch(() => false))) {
      logger.warn(
        { operation, domain, status: error.status },
        `upstream ${operation} answered an error and holds nothing for it: refused`,
      );
      return refused(error.serverMessage ?? error.message);
    }
    throw faultOf(error, operation);
  }

  /** After the upstream said "success" to a registration: done, or still pending there. */
  async function registration(domain: string, ctx: CallContext): Promise<RegistrarOutcome<Registered>> {
    const read = await readState(domain, ctx);
    if (!('state' in read))
      return pending(`the upstream accepted the registration of ${domain}; its state cannot be read yet`);
    const { registrationStatus, expiryDate } = read.state;
    if (isPendingStatus(registrationStatus)) return pending(`${domain} is ${registrationStatus} at the upstream`);
    if (!expiryDate)
      return pending(`the upstream accepted the registration of ${domain} but reports no expiry date yet`);
    return { ok: true, expiryDate };
  }

  /** Changes answered `{"success": true, "pending": true}` complete later at the upstream. */
  async function change(
    operation: string,
    domain: string,
    call: () => Promise<{ readonly [key: string]: unknown }>,
  ): Promise<RegistrarOutcome> {
    const outcome = await attempt(operation, 'manage', call);
    if (outcome.ok && (outcome as { pending?: unknown }).pending === true)
      return pending(`the upstream accepted the ${operation} of ${domain}; it completes later`);
    return outcome.ok ? { ok: true } : outcome;
  }

  const orderOf = (input: RegisterInput) => ({
    domain: input.domain,
    period: input.period,
    nameservers: input.nameservers,
    contacts: input.contacts,
    addons: addonsOf(input.addons),
    ...(Object.keys(input.fields).length > 0 ? { domainFields: input.fields as Record<string, PhpValue> } : {}),
    ...(input.idnLanguage ? { idnLanguage: input.idnLanguage } : {}),
  });

  return {
    id: 'upstream',

    async checkAvailability(domains, ctx) {
      // One lookup per label, with its TLDs: the upstream answers the exact names, in its search shape.
      const byLabel = new Map<string, string[]>();
      for (const domain of domains) {
        const dot = domain.indexOf('.');
        if (dot <= 0) continue;
        const label = domain.slice(0, dot);
        byLabel.set(label, [...(byLabel.get(label) ?? []), domain.slice(dot)]);
      }
      const jobs = [...byLabel].flatMap(([label, tlds]) =>
        chunks(tlds, LOOKUP_MAX_TLDS).map((chunk) => ({ label, tlds: chunk })),
      );
      const results: AvailabilityResult[] = [];
      const failures: unknown[] = [];
      await eachLimited(jobs, LOOKUP_CONCURRENCY, async ({ label, tlds }) => {
        try {
          const asked = new Set(tlds.map((tld) => `${label}${tld}`));
          const elements = await api.lookup({ searchTerm: label, tldsToInclude: tlds, premiumEnabled: true }, on(ctx));
          for (const element of elements) {
            const answer = availabilityFrom(element);
            if (asked.has(answer.domain)) results.push(answer);
          }
        } catch (error) {
          failures.push(error);
        }
      });
      // Names of a failed lookup are left out, which the platform reads as unknown; all failing is a fault.
      if (failures.length > 0 && failures.length === jobs.length) throw faultOf(failures[0], 'availability lookup');
      if (failures.length > 0)
        logger.warn(
          { failed: failures.length, lookups: jobs.length, err: faultOf(failures[0], 'availability lookup').message },
          'some upstream lookups failed; their names count as unknown',
        );
      return results;
    },

    async register(input, ctx) {
      try {
        await api.register(orderOf(input), paid(ctx));
      } catch (error) {
        return orderFailure('register', input.domain, error, () => isAbsent(input.domain, ctx));
      }
      return registration(input.domain, ctx);
    },

    async renew(input, ctx) {
      // The upstream's expiry before, to tell afterwards whether its "success" is done or still pending.
      const before = await readState(input.domain, ctx);
      if (!('state' in before)) {
        const refusal = refusalOf((before as { error: unknown }).error, 'manage');
        return refused(
          `cannot read ${input.domain} at the upstream before renewing it, so nothing was renewed: ${refusal?.message ?? faultOf((before as { error: unknown }).error, 'information').message}`,
        );
      }
      const from = before.state.expiryDate;
      if (!from) return refused(`the upstream reports no expiry date for ${input.domain}, so nothing was renewed`);
      try {
        await api.renew({ domain: input.domain, period: input.period }, paid(ctx));
      } catch (error) {
        // No check afterwards: an expiry not moved yet does not prove a registry will not move it.
        // Reconciliation compares it again once the registry has had time (docs/orders.md).
        return orderFailure('renew', input.domain, error);
      }
      const after = await readState(input.domain, ctx);
      const expiryDate = 'state' in after ? after.state.expiryDate : undefined;
      if (expiryDate && expiryDate >= addYears(from, input.period)) return { ok: true, expiryDate };
      return pending(
        `the upstream accepted the renewal of ${input.domain} but still reports ${expiryDate ?? 'no'} expiry date (was ${from})`,
      );
    },

    transfer: {
      async transfer(input, ctx) {
        try {
          await api.transfer({ ...orderOf(input), eppCode: input.eppCode }, paid(ctx));
        } catch (error) {
          return orderFailure('transfer', input.domain, error, () => isAbsent(input.domain, ctx));
        }
        // Registries finish transfers later; done only when the upstream says so with an expiry date.
        try {
          const status = await api.transferSync(input.domain, on(ctx));
          const expiryDate = dateOf(status.expirydate);
          if (status.completed && !status.failed && expiryDate) return { ok: true, expiryDate };
        } catch {
          // Its state is read again by transfer sync.
        }
        return pending(`the upstream accepted the transfer of ${input.domain}; waiting for it to complete`);
      },
    },

    domainInformation: {
      async get({ domain }, ctx) {
        const outcome = await attempt('information', 'settle', async () =>
          informationFrom(await api.information(domain, on(ctx))),
        );
        // Relayed as pending, so that nothing (reconciliation included) takes a registration that is not finished for done.
        if (outcome.ok && isPendingStatus(outcome.registrationStatus))
          return pending(`${domain} is ${outcome.registrationStatus} at the upstream`);
        return outcome;
      },
    },

    nameservers: {
      get: ({ domain }, ctx) =>
        attempt('nameservers', 'manage', async () => {
          const set = await api.nameservers(domain, on(ctx));
          return { nameservers: [set.ns1, set.ns2, set.ns3, set.ns4, set.ns5].filter((ns) => ns.trim() !== '') };
        }),
      save: ({ domain, nameservers }, ctx) =>
        change('nameserver change', domain, () => api.saveNameservers(domain, nameservers, on(ctx))),
    },

    childHosts: {
      register: ({ domain, host: child, ipAddress }, ctx) =>
        change('child nameserver registration', domain, () =>
          api.registerNameserver(domain, child, ipAddress, on(ctx)),
        ),
      modify: ({ domain, host: child, currentIpAddress, newIpAddress }, ctx) =>
        change('child nameserver change', domain, () =>
          api.modifyNameserver(domain, child, currentIpAddress, newIpAddress, on(ctx)),
        ),
      delete: ({ domain, host: child }, ctx) =>
        change('child nameserver deletion', domain, () => api.deleteNameserver(domain, child, on(ctx))),
    },

    dnsRecords: {
      get: ({ domain }, ctx) =>
        attempt('DNS records', 'manage', async () => ({
          records: dnsRecordsFrom(await api.dnsRecords(domain, on(ctx))),
        })),
      save: ({ domain, records }, ctx) =>
        change('DNS change', domain, () => api.saveDnsRecords(domain, records, on(ctx))),
    },

    registrarLock: {
      get: ({ domain }, ctx) =>
        attempt('lock', 'manage', async () => ({ locked: (await api.lock(domain, on(ctx))) === 'locked' })),
      save: ({ domain, locked }, ctx) => change('lock change', domain, () => api.saveLock(domain, locked, on(ctx))),
    },

    idProtection: {
      save: ({ domain, enabled }, ctx) =>
        change('ID protection change', domain, () => api.saveIdProtection(domain, enabled, on(ctx))),
    },

    eppCode: {
      get: ({ domain }, ctx) =>
        attempt('EPP code', 'manage', async () => ({ eppCode: await api.eppCode(domain, on(ctx)) })),
    },

    contacts: {
      get: ({ domain }, ctx) =>
        attempt('contacts', 'manage', async () => ({ contacts: contactsFrom(await api.contacts(domain, on(ctx))) })),
      save: ({ domain, contacts }, ctx) =>
        change('contact change', domain, () => api.saveContacts(domain, contacts, on(ctx))),
    },

    emailForwarding: {
      get: ({ domain }, ctx) =>
        attempt('email forwarding', 'manage', async () => ({
          forwards: (await api.emailForwarding(domain, on(ctx))).map((f) => ({
            prefix: f.prefix,
            forwardTo: f.forwardto,
          })),
        })),
      save: ({ domain, forwards }, ctx) =>
        change('email forwarding change', domain, () => api.saveEmailForwarding(domain, forwards, on(ctx))),
    },

    delete: {
      delete: ({ domain }, ctx) => change('deletion', domain, () => api.delete(domain, on(ctx))),
    },

    release: {
      release: ({ domain, transferTag }, ctx) =>
        change('release', domain, () => api.release(domain, transferTag, on(ctx))),
    },

    domainSync: {
      async sync({ domain }, ctx): Promise<RegistrarOutcome<DomainSyncResult>> {
        const outcome = await attempt('sync', 'settle', () => api.sync(domain, on(ctx)));
        if (!outcome.ok) return outcome;
        const expiryDate = dateOf(outcome.expirydate);
        const result: DomainSyncResult = {
          active: outcome.active,
          expired: outcome.expired,
          transferredAway: outcome.transferredAway,
          cancelled: outcome.cancelled === true,
          ...(expiryDate ? { expiryDate } : {}),
        };
        if (!result.active && !result.expired && !result.transferredAway && !result.cancelled) {
          // Neither active nor gone: an upstream whose order is still pending answers this way. Only its status tells.
          const read = await readState(domain, ctx);
          if (!('state' in read))
            throw new Error(
              `the upstream reports ${domain} neither active nor gone, and its status cannot be read: ${faultOf(read.error, 'information').message}`,
            );
          if (isPendingStatus(read.state.registrationStatus))
            return pending(`${domain} is ${read.state.registrationStatus} at the upstream`);
        }
        return { ok: true, ...result };
      },
    },

    transferSync: {
      async sync({ domain }, ctx): Promise<RegistrarOutcome<TransferSyncResult>> {
        let reply;
        try {
          reply = await api.transferSync(domain, on(ctx));
        } catch (error) {
          // Not in our account upstream: the transfer there failed (and was refunded) or never arrived.
          if (isNotOurs(error))
            return {
              ok: true,
              completed: false,
              failed: true,
              reason: `${domain} is not in our account at the upstream`,
            };
          throw faultOf(error, 'transfer sync');
        }
        const expiryDate = dateOf(reply.expirydate);
        if (reply.completed && !expiryDate) {
          // docs/api.md#transfer-sync: an upstream whose registrar cannot tell answers "completed" with its own record; a pending one is not.
          const read = await readState(domain, ctx);
          if ('state' in read && isPendingStatus(read.state.registrationStatus))
            return { ok: true, completed: false, failed: false };
        }
        return {
          ok: true,
          completed: reply.completed,
          failed: reply.failed,
          ...(reply.reason ? { reason: reply.reason } : {}),
          ...(expiryDate ? { expiryDate } : {}),
        };
      },
    },

    suggestions: {
      async suggest({ term, tlds, limit }, ctx) {
        if (limit <= 0 || tlds.length === 0) return [];
        let elements;
        try {
          elements = await api.suggestions(
            { searchTerm: term, tldsToInclude: tlds, suggestionSettings: { maxResults: Math.min(100, limit) } },
            on(ctx),
          );
        } catch (error) {
          throw faultOf(error, 'suggestions');
        }
        const exact = new Set(tlds.map((tld) => `${term}${tld}`.toLowerCase()));
        return elements
          .filter((e) => e.isAvailable && !exact.has(e.domainName.toLowerCase()))
          .slice(0, limit)
          .map((e) => ({
            domain: e.domainName.toLowerCase(),
            ...(Number.isFinite(e.score) ? { score: Math.max(0, Math.min(100, e.score)) } : {}),
          }));
      },
    },

    tldPricing: {
      async prices(ctx) {
        try {
          return pricesFrom(await api.tldPricing(on(ctx)));
        } catch (error) {
          throw faultOf(error, 'TLD pricing');
        }
      },
    },
  };
}

function addonsOf(addons: Readonly<Record<string, boolean>>): Addons {
  return {
    dnsManagement: addons.dnsmanagement === true,
    emailForwarding: addons.emailforwarding === true,
    idProtection: addons.idprotection === true,
  };
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
