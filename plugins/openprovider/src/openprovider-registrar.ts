import type {
  AvailabilityResult,
  AvailabilityStatus,
  CallContext,
  Contact,
  ContactRole,
  Contacts,
  DnsRecord,
  DomainSyncResult,
  PluginHost,
  RegisterInput,
  RegistrarOutcome,
  RegistrarPlugin,
  Registered,
  TldPriceOffer,
  TransferSyncResult,
} from 'domain-reseller';
import { contactFrom, contactKey, customerFrom, sameContact } from './customers';
import { OpenproviderClient, isOpenproviderError } from './openprovider-client';
import type { OpenproviderOptions } from './options';
import { classify, faultOf, pending, refused, unavailable, vendorMessage, type Failure } from './vendor-errors';
import {
  DEFINITIONS,
  type AuthcodeGetAuthCodeResponse,
  type AuthcodeResetAuthCodeResponse,
  type CustomerCreateCustomerResponse,
  type CustomerGetCustomerResponse,
  type DomainCheckDomainResponse,
  type DomainCreateDomainRequest,
  type DomainCreateDomainResponse,
  type DomainGetDomainResponse,
  type DomainGetDomainResponseData,
  type DomainListDomainsResponse,
  type DomainPriceGroup,
  type DomainSuggestNameDomainResponse,
  type DomainTransferDomainRequest,
  type DomainTransferDomainResponse,
  type DomainUpdateDomainRequest,
  type NameserverGetNameserverResponse,
  type PriceGetPriceResponse,
  type TldListTldsResponse,
  type TldPrice,
  type ZoneGetZoneResponse,
  type ZoneRecord,
} from './vendor/openprovider-api.generated';

type Domain = DomainGetDomainResponseData;

/** Openprovider's domain statuses: active, requested (a registration or transfer under way), deleted, failed. */
const ACTIVE = 'ACT';
const IN_PROGRESS = new Set(['REQ', 'PEN', 'SCH']);
const FAILED = 'FAI';
const DELETED = 'DEL';

/** Zones hosted by Openprovider carry NS and SOA records it makes itself and nobody may edit. */
const VENDOR_RECORDS = new Set(['SOA', 'NS']);
const ADDITIONAL_DATA_FIELDS = new Set(
  Object.keys((DEFINITIONS.domainAdditionalData as { properties: Record<string, unknown> }).properties),
);
const ROLE_HANDLES: Record<ContactRole, 'owner_handle' | 'admin_handle' | 'tech_handle' | 'billing_handle'> = {
  registrant: 'owner_handle',
  admin: 'admin_handle',
  tech: 'tech_handle',
  billing: 'billing_handle',
};
const TLD_PAGE = 100;

/**
 * A registrar plugin over Openprovider's REST API (v1beta). Requests are shaped by the types
 * derived from the vendor's Swagger document (./vendor). Money rules, since Openprovider charges
 * our account there while the platform charges the reseller here:
 * - a create (register, transfer) is sent at most once per call, and never after a lost answer
 *   without looking the domain up first (a marker in the plugin store says a create may be out);
 * - a definite refusal is returned only when Openprovider answered with its error body, or when
 *   nothing was sent; a 5xx, a timeout or a cut connection is thrown, and reconciliation asks
 *   domain sync, which answers "not in our account" only from a listing that says so;
 * - the account's balance running out is a refusal the operator sees: logged at error level with
 *   what to do, and named in the message.
 */
export function createOpenproviderRegistrar(
  options: OpenproviderOptions,
  host: PluginHost,
  fetchImpl?: typeof fetch,
): RegistrarPlugin {
  const { logger, store, clock } = host;
  const client = new OpenproviderClient(options, logger, fetchImpl);
  const today = () => clock.now().toISOString().slice(0, 10);

  const get = <T extends object>(path: string, ctx: CallContext, query?: Record<string, string | number | boolean>) =>
    client.request<T & { data?: unknown }>('GET', path, { signal: ctx.signal, ...(query ? { query } : {}) });
  const send = <T extends object>(
    method: 'POST' | 'PUT' | 'DELETE',
    path: string,
    body: object | undefined,
    ctx: CallContext,
  ) => client.request<T & { data?: unknown }>(method, path, { signal: ctx.signal, ...(body ? { body } : {}) });

  /** The domain in our account (deleted ones included, which are restorable for a while), or undefined when Openprovider lists none. */
  async function find(domain: string, ctx: CallContext): Promise<Domain | undefined> {
    for (const isDeleted of [false, true]) {
      const answer = await get<DomainListDomainsResponse>('/domains', ctx, {
        full_name: domain,
        ...(isDeleted ? { is_deleted: true } : {}),
      });
      const hit = (answer.data?.results ?? []).find((d) => fullName(d) === domain);
      if (hit) return hit;
    }
    return undefined;
  }

  /** The live domain for a management call, or the refusal to answer with. */
  async function ours(domain: string, ctx: CallContext, operation: string): Promise<Domain | Failure> {
    let found: Domain | undefined;
    try {
      found = await find(domain, ctx);
    } catch (error) {
      throw faultOf(error, operation);
    }
    if (!found || found.id === undefined) return refused(`${domain} is not in our Openprovider account`);
    if (found.is_deleted || found.status === DELETED)
      return refused(`${domain} is deleted at Openprovider (restorable by renewing it)`);
    return found;
  }

  /** A management call: Openprovider's refusal returned with its words, anything else thrown. */
  async function manage<T extends object>(
    domain: string,
    operation: string,
    ctx: CallContext,
    call: (found: Domain) => Promise<RegistrarOutcome<T>>,
  ): Promise<RegistrarOutcome<T>> {
    const found = await ours(domain, ctx, operation);
    if ('ok' in found) return found;
    try {
      return await call(found);
    } catch (error) {
      return failureOf(error, operation, 'manage');
    }
  }

  /**
   * Under `order` a definite refusal is returned (the platform refunds); a rate limit too, since
   * Openprovider did nothing. Under `manage` credentials and rate limits are thrown. Anything
   * that is not a definite answer is thrown under both.
   */
  function failureOf(error: unknown, operation: string, policy: 'order' | 'manage'): Failure {
    const kind = classify(error);
    if (!isOpenproviderError(error) || kind === 'unknown') throw faultOf(error, operation);
    const message = vendorMessage(error);
    switch (kind) {
      case 'unavailable':
        return policy === 'order' ? unavailable(message) : refused(message);
      case 'balance':
        logger.error(
          { operation, code: error.code },
          `openprovider ${operation} refused: the Openprovider account cannot pay (${error.desc ?? error.message}); top up the Openprovider balance`,
        );
        return refused(`${message} (the registrar account's balance is too low; the operator has been told)`);
      case 'credentials':
        logger.error({ operation, status: error.status }, `openprovider ${operation}: ${error.message}`);
        if (policy === 'manage') throw faultOf(error, operation);
        return refused(`Openprovider refused our credentials; nothing was done (${message})`);
      default:
        if (error.kind === 'rate_limited' && policy === 'manage') throw faultOf(error, operation);
        return refused(message);
    }
  }

  /** One handle per distinct contact; the same data reuses the handle made before (kept in the plugin store). */
  async function handleFor(contact: Contact, ctx: CallContext): Promise<string | Failure> {
    const customer = customerFrom(contact);
    if ('problem' in customer) return refused(`Openprovider needs a complete contact: ${customer.problem}`);
    const key = `handle:${contactKey(customer)}`;
    const known = await store.get<string>(key);
    if (known) return known;
    let answer: CustomerCreateCustomerResponse;
    try {
      answer = await send<CustomerCreateCustomerResponse>('POST', '/customers', customer, ctx);
    } catch (error) {
      // Nothing was ordered yet: whatever happened to the customer, the order can be refused.
      return isOpenproviderError(error) && error.kind === 'vendor'
        ? refused(`Openprovider refused the contact: ${error.desc ?? error.message}`)
        : refused(
            `could not create the contact at Openprovider, so nothing was ordered: ${faultOf(error, 'customer').message}`,
          );
    }
    const handle = answer.data?.handle;
    if (!handle) throw new Error('openprovider answered a customer creation without a handle');
    await store.set(key, handle);
    return handle;
  }

  /** Handles for every role; a role left out is held by the registrant's handle. */
  async function handlesFor(
    contacts: Contacts,
    ctx: CallContext,
  ): Promise<Record<(typeof ROLE_HANDLES)[ContactRole], string> | Failure> {
    const registrant = contacts.registrant;
    if (!registrant) return refused('Openprovider needs a registrant contact');
    const handles = { owner_handle: '', admin_handle: '', tech_handle: '', billing_handle: '' };
    for (const [role, field] of Object.entries(ROLE_HANDLES) as [ContactRole, (typeof ROLE_HANDLES)[ContactRole]][]) {
      const contact = contacts[role] ?? registrant;
      const handle = await handleFor(contact, ctx);
      if (typeof handle !== 'string') return handle;
      handles[field] = handle;
    }
    return handles;
  }

  function additionalData(fields: Readonly<Record<string, unknown>>): Record<string, string> | undefined {
    const data: Record<string, string> = {};
    for (const [key, value] of Object.entries(fields)) {
      if (ADDITIONAL_DATA_FIELDS.has(key) && typeof value === 'string') data[key] = value;
      else logger.warn({ field: key }, 'openprovider: a TLD field Openprovider does not take was left out');
    }
    return Object.keys(data).length > 0 ? data : undefined;
  }

  /**
   * docs/plugins.md#the-openprovider-registrar-plugin, premium names: `accept_premium_fee` is sent
   * only for a premium price the order accepted (`premiumCost`, the registry cost in minor units
   * the platform priced the order on); a price that rose since is refused before anything is ordered.
   */
  async function premiumFee(input: RegisterInput, ctx: CallContext): Promise<{ readonly fee?: number } | Failure> {
    let result;
    try {
      const answer = await send<DomainCheckDomainResponse>(
        'POST',
        '/domains/check',
        { domains: [splitName(input.domain)], with_price: true },
        ctx,
      );
      result = (answer.data?.results ?? []).find((r) => r.domain === input.domain);
    } catch (error) {
      return refused(
        `could not ask Openprovider for the price of ${input.domain}, so nothing was ordered: ${faultOf(error, 'check').message}`,
      );
    }
    if (!result?.is_premium) return {};
    const cost = minorOf(result.price?.reseller, options.currency);
    const accepted = input.premiumCost;
    if (accepted === undefined)
      return refused(`${input.domain} is a premium name at Openprovider and the order did not accept a premium price`);
    if (cost === undefined || cost > accepted)
      return refused(
        `the premium price of ${input.domain} at Openprovider is now ${cost === undefined ? 'unknown' : formatMinor(cost)} ${options.currency}, more than the ${formatMinor(accepted)} the order accepted; nothing was registered`,
      );
    const fee = result.premium?.price?.create;
    if (typeof fee !== 'number') return refused(`Openprovider gave no premium fee for ${input.domain}`);
    return { fee };
  }

  const markerOf = (domain: string) => `create:${domain}`;

  /**
   * Sends a create (register or transfer) at most once: if an earlier call may have sent one for
   * this name (its answer lost), the domain is looked up first and, when it is there, answered from
   * what Openprovider holds. After a lost answer the domain is looked up again before giving up.
   */
  async function createOnce(
    domain: string,
    operation: 'register' | 'transfer',
    ctx: CallContext,
    create: () => Promise<{ data?: { status?: string; expiration_date?: string } }>,
  ): Promise<RegistrarOutcome<Partial<Registered>>> {
    const marker = markerOf(domain);
    if ((await store.get(marker)) !== undefined) {
      const found = await find(domain, ctx).catch((error) => {
        throw faultOf(error, `${operation} (looking ${domain} up after an earlier attempt)`);
      });
      if (found && !found.is_deleted && found.status !== FAILED) return outcomeOf(found, operation);
    }
    await store.set(marker, { transactionId: ctx.transactionId, at: clock.now().toISOString() });
    let answer;
    try {
      answer = await create();
    } catch (error) {
      const kind = classify(error);
      if (kind !== 'unknown') {
        await store.delete(marker);
        return failureOf(error, operation, 'order');
      }
      // The answer is lost: Openprovider may have acted. Only a listing that shows the domain tells.
      const found = await find(domain, ctx).catch(() => undefined);
      if (found && !found.is_deleted && found.status !== FAILED) {
        logger.warn(
          { operation, domain },
          `openprovider ${operation}: the answer was lost, but the domain is in our account`,
        );
        return outcomeOf(found, operation);
      }
      throw faultOf(error, operation);
    }
    await store.delete(marker);
    return outcomeOf(answer.data ?? {}, operation);
  }

  function outcomeOf(
    state: { status?: string; expiration_date?: string },
    operation: 'register' | 'transfer',
  ): RegistrarOutcome<Partial<Registered>> {
    const expiryDate = dateOf(state.expiration_date);
    if (state.status === ACTIVE && expiryDate) return { ok: true, expiryDate };
    return pending(
      `Openprovider accepted the ${operation === 'register' ? 'registration' : 'transfer'}; it is ${state.status ?? 'in progress'} there`,
    );
  }

  async function orderBody(input: RegisterInput, ctx: CallContext) {
    const handles = await handlesFor(input.contacts, ctx);
    if ('ok' in handles) return handles;
    const data = additionalData(input.fields);
    return {
      domain: splitName(input.domain),
      ...handles,
      name_servers: input.nameservers.map((name, i) => ({ name, seq_nr: i })),
      autorenew: 'off',
      ...(input.addons.idprotection ? { is_private_whois_enabled: true } : {}),
      ...(data ? { additional_data: data } : {}),
    };
  }

  async function checkAvailability(domains: readonly string[], ctx: CallContext): Promise<AvailabilityResult[]> {
    const results: AvailabilityResult[] = [];
    const valid = domains.filter((d) => d.includes('.'));
    for (let i = 0; i < valid.length; i += options.checkBatchSize) {
      const batch = valid.slice(i, i + options.checkBatchSize);
      let answer: DomainCheckDomainResponse;
      try {
        answer = await send<DomainCheckDomainResponse>(
          'POST',
          '/domains/check',
          { domains: batch.map(splitName), with_price: true },
          ctx,
        );
      } catch (error) {
        throw faultOf(error, 'availability check');
      }
      for (const r of answer.data?.results ?? []) {
        if (!r.domain || !batch.includes(r.domain)) continue;
        const status = availabilityOf(r.status);
        if (!r.is_premium) {
          results.push({ domain: r.domain, status, isPremium: false });
          continue;
        }
        const register = minorOf(r.price?.reseller, options.currency);
        if (register === undefined) {
          // A premium name without a price in our currency cannot be sold; saying so keeps it from the TLD price.
          results.push({ domain: r.domain, status, isPremium: true });
          continue;
        }
        const [renew, transfer] = await Promise.all(
          (['renew', 'transfer'] as const).map((operation) =>
            priceOf(r.domain!, operation, ctx).catch(() => undefined),
          ),
        );
        results.push({
          domain: r.domain,
          status,
          isPremium: true,
          premiumPrice: {
            register,
            ...(renew !== undefined ? { renew } : {}),
            ...(transfer !== undefined ? { transfer } : {}),
          },
        });
      }
    }
    return results;
  }

  /** The account's price of one operation on a name for a year, in minor units of our currency (domains/prices). */
  async function priceOf(domain: string, operation: 'create' | 'renew' | 'transfer', ctx: CallContext) {
    const { name, extension } = splitName(domain);
    const answer = await get<PriceGetPriceResponse>('/domains/prices', ctx, {
      'domain.name': name,
      'domain.extension': extension,
      operation,
      period: 1,
    });
    return minorOf(answer.data?.price?.reseller, options.currency);
  }

  return {
    id: 'openprovider',
    checkAvailability,

    async register(input, ctx) {
      const premium = await premiumFee(input, ctx);
      if ('ok' in premium) return premium;
      const body = await orderBody(input, ctx);
      if ('ok' in body) return body;
      const request: DomainCreateDomainRequest = {
        ...body,
        period: input.period,
        ...(premium.fee !== undefined ? { accept_premium_fee: premium.fee } : {}),
      };
      const outcome = await createOnce(input.domain, 'register', ctx, () =>
        send<DomainCreateDomainResponse>('POST', '/domains', request, ctx),
      );
      if (outcome.ok && !outcome.expiryDate)
        return pending(`Openprovider registered ${input.domain} without telling its expiry date yet`);
      return outcome as RegistrarOutcome<Registered>;
    },

    async renew(input, ctx) {
      let found: Domain | undefined;
      try {
        found = await find(input.domain, ctx);
      } catch (error) {
        return refused(
          `could not read ${input.domain} at Openprovider before renewing it, so nothing was renewed: ${faultOf(error, 'renew').message}`,
        );
      }
      if (!found || found.id === undefined) return refused(`${input.domain} is not in our Openprovider account`);
      const before = dateOf(found.expiration_date);
      const isRestore = found.is_deleted === true || found.status === DELETED;
      if (isRestore && !isRestorable(found, today()))
        return refused(`${input.domain} was deleted at Openprovider and can no longer be restored`);
      try {
        if (isRestore)
          await send('POST', `/domains/${found.id}/restore`, { id: found.id, domain: splitName(input.domain) }, ctx);
        else
          await send(
            'POST',
            `/domains/${found.id}/renew`,
            { id: found.id, domain: splitName(input.domain), period: input.period },
            ctx,
          );
      } catch (error) {
        // No look-up after a lost answer: an expiry not moved yet does not prove it will not move.
        return failureOf(error, isRestore ? 'restore' : 'renew', 'order');
      }
      const after = await find(input.domain, ctx).catch(() => undefined);
      const expiryDate = dateOf(after?.expiration_date);
      if (
        after?.status === ACTIVE &&
        expiryDate &&
        (isRestore || !before || expiryDate >= addYears(before, input.period))
      )
        return { ok: true, expiryDate };
      return pending(
        `Openprovider accepted the ${isRestore ? 'restore' : 'renewal'} of ${input.domain} but reports ${expiryDate ?? 'no'} expiry date (was ${before ?? 'unknown'})`,
      );
    },

    transfer: {
      async transfer(input, ctx) {
        const body = await orderBody(input, ctx);
        if ('ok' in body) return body;
        const request: DomainTransferDomainRequest = { ...body, auth_code: input.eppCode };
        return createOnce(input.domain, 'transfer', ctx, () =>
          send<DomainTransferDomainResponse>('POST', '/domains/transfer', request, ctx),
        );
      },
    },

    transferSync: {
      async sync({ domain }, ctx): Promise<RegistrarOutcome<TransferSyncResult>> {
        let found: Domain | undefined;
        try {
          found = await find(domain, ctx);
        } catch (error) {
          throw faultOf(error, 'transfer sync');
        }
        if (!found) return refused(`Openprovider has no transfer of ${domain} in our account`);
        const expiryDate = dateOf(found.expiration_date);
        if (found.status === ACTIVE)
          return { ok: true, completed: true, failed: false, ...(expiryDate ? { expiryDate } : {}) };
        if (found.status === FAILED || found.is_deleted)
          return {
            ok: true,
            completed: false,
            failed: true,
            reason: `the transfer of ${domain} failed at Openprovider`,
          };
        return { ok: true, completed: false, failed: false };
      },
    },

    domainSync: {
      async sync({ domain }, ctx): Promise<RegistrarOutcome<DomainSyncResult>> {
        let found: Domain | undefined;
        try {
          found = await find(domain, ctx);
        } catch (error) {
          throw faultOf(error, 'sync');
        }
        // Only a listing that does not show it says the name is not ours; every error above was thrown.
        if (!found) return refused(`${domain} is not in our Openprovider account`);
        const expiryDate = dateOf(found.expiration_date);
        const withExpiry = expiryDate ? { expiryDate } : {};
        if (found.is_deleted || found.status === DELETED || found.status === FAILED)
          return { ok: true, active: false, expired: false, transferredAway: false, cancelled: true, ...withExpiry };
        if (found.status === ACTIVE) {
          const expired = expiryDate !== undefined && expiryDate < today();
          return { ok: true, active: !expired, expired, transferredAway: false, cancelled: false, ...withExpiry };
        }
        return pending(`${domain} is ${found.status ?? 'in progress'} at Openprovider`);
      },
    },

    domainInformation: {
      async get({ domain }, ctx) {
        let found: Domain | undefined;
        try {
          found = await find(domain, ctx);
        } catch (error) {
          throw faultOf(error, 'information');
        }
        if (!found) return refused(`${domain} is not in our Openprovider account`);
        if (found.status && IN_PROGRESS.has(found.status))
          return pending(`${domain} is ${found.status} at Openprovider`);
        if (!found.is_deleted && found.id !== undefined) {
          // The domain's own record (domains/{id}) is the full one; the listing found its id.
          try {
            found = (await get<DomainGetDomainResponse>(`/domains/${found.id}`, ctx)).data ?? found;
          } catch (error) {
            throw faultOf(error, 'information');
          }
        }
        const expiryDate = dateOf(found.expiration_date);
        const deleted = found.is_deleted === true || found.status === DELETED;
        let registrantEmail: string | undefined;
        if (found.owner_handle && !deleted) {
          const owner = await get<CustomerGetCustomerResponse>(
            `/customers/${encodeURIComponent(found.owner_handle)}`,
            ctx,
          ).catch(() => undefined);
          registrantEmail = owner?.data?.email || undefined;
        }
        return {
          ok: true,
          nameservers: nameserversOf(found),
          transferLock: found.is_locked === true,
          ...(expiryDate ? { expiryDate } : {}),
          registrationStatus: deleted ? 'Cancelled' : statusName(found.status, expiryDate, today()),
          idProtection: found.is_private_whois_enabled === true,
          restorable: deleted && isRestorable(found, today()),
          ...(registrantEmail ? { registrantEmail } : {}),
          extra: {
            openproviderId: found.id,
            openproviderStatus: found.status,
            ...(found.restorable_until ? { restorableUntil: found.restorable_until } : {}),
          },
        };
      },
    },

    nameservers: {
      get: ({ domain }, ctx) =>
        manage(domain, 'nameservers', ctx, async (found) => ({ ok: true, nameservers: nameserversOf(found) })),
      save: ({ domain, nameservers }, ctx) =>
        manage(domain, 'nameserver change', ctx, async (found) => {
          await update(found, { name_servers: nameservers.map((name, i) => ({ name, seq_nr: i })) }, ctx);
          return { ok: true };
        }),
    },

    registrarLock: {
      get: ({ domain }, ctx) =>
        manage(domain, 'lock', ctx, async (found) => ({ ok: true, locked: found.is_locked === true })),
      save: ({ domain, locked }, ctx) =>
        manage(domain, 'lock change', ctx, async (found) => {
          if (found.is_lockable === false)
            return refused(`Openprovider cannot lock ${domain} (its registry has no lock)`);
          await update(found, { is_locked: locked }, ctx);
          return { ok: true };
        }),
    },

    idProtection: {
      save: ({ domain, enabled }, ctx) =>
        manage(domain, 'ID protection change', ctx, async (found) => {
          if (enabled && found.is_private_whois_allowed === false)
            return refused(`Openprovider offers no WHOIS privacy for ${domain}`);
          await update(found, { is_private_whois_enabled: enabled }, ctx);
          return { ok: true };
        }),
    },

    eppCode: {
      get: ({ domain }, ctx) =>
        manage(domain, 'EPP code', ctx, async (found) => {
          const answer = await get<AuthcodeGetAuthCodeResponse>(`/domains/${found.id}/authcode`, ctx);
          let code = answer.data?.auth_code;
          if (!code) {
            // Openprovider holds no code for it: have one made (some registries send it to the owner instead).
            const reset = await send<AuthcodeResetAuthCodeResponse>(
              'POST',
              `/domains/${found.id}/authcode/reset`,
              { id: found.id, domain: splitName(domain) },
              ctx,
            );
            code = reset.data?.auth_code;
          }
          if (!code)
            return refused(`Openprovider shows no EPP code for ${domain}; its registry sends it to the registrant`);
          return { ok: true, eppCode: code };
        }),
    },

    contacts: {
      get: ({ domain }, ctx) =>
        manage(domain, 'contacts', ctx, async (found) => {
          const contacts: Partial<Record<ContactRole, Contact>> = {};
          const cache = new Map<string, Contact>();
          for (const [role, field] of Object.entries(ROLE_HANDLES) as [ContactRole, keyof Domain][]) {
            const handle = found[field] as string | undefined;
            if (!handle) continue;
            if (!cache.has(handle)) {
              const answer = await get<CustomerGetCustomerResponse>(`/customers/${encodeURIComponent(handle)}`, ctx);
              cache.set(handle, contactFrom(answer.data ?? {}));
            }
            contacts[role] = cache.get(handle)!;
          }
          return { ok: true, contacts };
        }),
      save: ({ domain, contacts }, ctx) =>
        manage(domain, 'contact change', ctx, async (found) => {
          const change: Record<string, string> = {};
          for (const [role, field] of Object.entries(ROLE_HANDLES) as [
            ContactRole,
            (typeof ROLE_HANDLES)[ContactRole],
          ][]) {
            const contact = contacts[role];
            if (!contact) continue;
            const current = found[field];
            if (current) {
              const held = await get<CustomerGetCustomerResponse>(`/customers/${encodeURIComponent(current)}`, ctx);
              if (sameContact(contactFrom(held.data ?? {}), contact)) continue;
            }
            if (role === 'registrant' && found.modify_owner_allowed === false)
              return refused(`the registrant of ${domain} can only be changed by a trade at Openprovider`);
            const handle = await handleFor(contact, ctx);
            if (typeof handle !== 'string') return handle;
            change[field] = handle;
          }
          if (Object.keys(change).length === 0) return { ok: true };
          await update(found, change, ctx);
          return { ok: true };
        }),
    },

    childHosts: {
      register: ({ domain, host: name, ipAddress }, ctx) =>
        manage(domain, 'child nameserver registration', ctx, async () => {
          if (!isUnder(name, domain)) return refused(`${name} is not a host under ${domain}`);
          await send('POST', '/dns/nameservers', ipField(name, ipAddress), ctx);
          return { ok: true };
        }),
      modify: ({ domain, host: name, newIpAddress }, ctx) =>
        manage(domain, 'child nameserver change', ctx, async () => {
          if (!isUnder(name, domain)) return refused(`${name} is not a host under ${domain}`);
          await get<NameserverGetNameserverResponse>(`/dns/nameservers/${encodeURIComponent(name)}`, ctx);
          await send('PUT', `/dns/nameservers/${encodeURIComponent(name)}`, ipField(name, newIpAddress), ctx);
          return { ok: true };
        }),
      delete: ({ domain, host: name }, ctx) =>
        manage(domain, 'child nameserver deletion', ctx, async () => {
          if (!isUnder(name, domain)) return refused(`${name} is not a host under ${domain}`);
          await send('DELETE', `/dns/nameservers/${encodeURIComponent(name)}`, undefined, ctx);
          return { ok: true };
        }),
    },

    dnsRecords: {
      get: ({ domain }, ctx) =>
        manage(domain, 'DNS records', ctx, async () => {
          const zone = await readZone(domain, ctx);
          return { ok: true, records: zone ? recordsFrom(zone, domain) : [] };
        }),
      save: ({ domain, records }, ctx) =>
        manage(domain, 'DNS change', ctx, async () => {
          const wanted = records.map(recordOf);
          const zone = await readZone(domain, ctx);
          if (!zone)
            await send('POST', '/dns/zones', { domain: splitName(domain), type: 'master', records: wanted }, ctx);
          else
            await send(
              'PUT',
              `/dns/zones/${encodeURIComponent(domain)}`,
              { name: domain, records: { replace: wanted } },
              ctx,
            );
          return { ok: true };
        }),
    },

    delete: {
      delete: ({ domain }, ctx) =>
        manage(domain, 'deletion', ctx, async (found) => {
          await send('DELETE', `/domains/${found.id}`, undefined, ctx);
          return { ok: true };
        }),
    },

    suggestions: {
      async suggest({ term, tlds, limit }, ctx) {
        if (limit <= 0 || tlds.length === 0) return [];
        let answer: DomainSuggestNameDomainResponse;
        try {
          answer = await send<DomainSuggestNameDomainResponse>(
            'POST',
            '/domains/suggest-name',
            { name: term, tlds: tlds.map((t) => t.replace(/^\./, '')), limit: Math.min(limit, 100), sensitive: true },
            ctx,
          );
        } catch (error) {
          throw faultOf(error, 'suggestions');
        }
        const exact = new Set(tlds.map((tld) => `${term}${tld}`.toLowerCase()));
        const seen = new Set<string>();
        return (answer.data?.results ?? [])
          .map((r) => (r.domain ?? `${r.name ?? ''}.${r.tld ?? ''}`).toLowerCase())
          .filter((d) => /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d) && !exact.has(d) && !seen.has(d) && seen.add(d))
          .slice(0, limit)
          .map((domain) => ({ domain }));
      },
    },

    domainPricing: {
      // domains/prices answers for any name, registered ones included, with the account's price for the period.
      async price({ domain, action, period }, ctx) {
        const { name, extension } = splitName(domain);
        let answer: PriceGetPriceResponse;
        try {
          answer = await get<PriceGetPriceResponse>('/domains/prices', ctx, {
            'domain.name': name,
            'domain.extension': extension,
            operation: action,
            period,
          });
        } catch (error) {
          throw faultOf(error, `${action} price`);
        }
        const cost = minorOf(answer.data?.price?.reseller, options.currency);
        if (answer.data?.is_premium !== true) return { ok: true, isPremium: false, ...(cost ? { cost } : {}) };
        // A premium name is never priced from a cost we cannot read: the platform then refuses the order.
        if (!cost)
          return refused(`Openprovider gave no ${action} price in ${options.currency} for the premium name ${domain}`);
        return { ok: true, isPremium: true, cost };
      },
    },

    tldPricing: {
      async prices(ctx) {
        const offers: TldPriceOffer[] = [];
        try {
          for (let offset = 0; ; offset += TLD_PAGE) {
            const answer = await get<TldListTldsResponse>('/tlds', ctx, { with_price: true, limit: TLD_PAGE, offset });
            const page = answer.data?.results ?? [];
            for (const tld of page) {
              if (!tld.name || !tld.prices || (tld.min_period ?? 1) > 1) continue;
              const register = minorOf(tldPriceOf(tld.prices.create_price), options.currency);
              const renew = minorOf(tldPriceOf(tld.prices.renew_price), options.currency);
              const transfer = minorOf(tldPriceOf(tld.prices.transfer_price), options.currency);
              if (register === undefined && renew === undefined && transfer === undefined) continue;
              offers.push({
                tld: `.${tld.name.replace(/^\./, '').toLowerCase()}`,
                period: 1,
                ...(register !== undefined ? { register } : {}),
                ...(renew !== undefined ? { renew } : {}),
                ...(transfer !== undefined ? { transfer } : {}),
              });
            }
            if (page.length < TLD_PAGE || offset + TLD_PAGE >= (answer.data?.total ?? 0)) break;
          }
        } catch (error) {
          throw faultOf(error, 'TLD prices');
        }
        return offers;
      },
    },
  };

  async function update(found: Domain, change: DomainUpdateDomainRequest, ctx: CallContext): Promise<void> {
    await send('PUT', `/domains/${found.id}`, { id: found.id, domain: found.domain, ...change }, ctx);
  }

  /** The zone, or undefined when Openprovider hosts none for the domain (its 4xx answer says so). */
  async function readZone(domain: string, ctx: CallContext) {
    try {
      return (await get<ZoneGetZoneResponse>(`/dns/zones/${encodeURIComponent(domain)}`, ctx, { with_records: true }))
        .data;
    } catch (error) {
      if (
        isOpenproviderError(error) &&
        error.kind === 'vendor' &&
        (error.status === 404 || ((error.code ?? 0) >= 800 && (error.code ?? 0) < 900))
      )
        return undefined;
      throw error;
    }
  }
}

function splitName(domain: string): { name: string; extension: string } {
  const dot = domain.indexOf('.');
  return { name: domain.slice(0, dot), extension: domain.slice(dot + 1) };
}

function fullName(d: Domain): string {
  return `${d.domain?.name ?? ''}.${d.domain?.extension ?? ''}`.toLowerCase();
}

function nameserversOf(d: Domain): string[] {
  return [...(d.name_servers ?? [])]
    .sort((a, b) => (a.seq_nr ?? 0) - (b.seq_nr ?? 0))
    .map((ns) => (ns.name ?? '').toLowerCase())
    .filter((name) => name !== '');
}

function availabilityOf(status: string | undefined): AvailabilityStatus {
  switch (status) {
    case 'free':
      return 'available';
    case 'active':
    case 'in use':
      return 'registered';
    case 'reserved':
      return 'reserved';
    default:
      return 'unknown';
  }
}

/** Openprovider writes `2020-04-29 17:15:19`, and `0000-00-00 …` for none. */
export function dateOf(value: string | undefined): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})/.exec(value ?? '');
  return match && match[1] !== '0000-00-00' ? match[1] : undefined;
}

function isRestorable(d: Domain, today: string): boolean {
  const until = dateOf(d.restorable_until);
  return until !== undefined && until >= today;
}

function statusName(status: string | undefined, expiryDate: string | undefined, today: string): string {
  if (status === ACTIVE) return expiryDate && expiryDate < today ? 'Expired' : 'Active';
  if (status === FAILED) return 'Cancelled';
  return status && IN_PROGRESS.has(status) ? 'Pending' : (status ?? 'Unknown');
}

/** Prices are decimal amounts; in minor units only when in our currency, rounded to the cent exactly. */
function minorOf(price: { currency?: string; price?: number } | undefined, currency: string): number | undefined {
  if (!price || typeof price.price !== 'number' || !Number.isFinite(price.price) || price.price < 0) return undefined;
  if ((price.currency ?? '').toUpperCase() !== currency) return undefined;
  return Math.round(Number(price.price.toFixed(6)) * 100);
}

function tldPriceOf(price: TldPrice | undefined): DomainPriceGroup['reseller'] {
  return price?.reseller;
}

function formatMinor(minor: number): string {
  return `${Math.trunc(minor / 100)}.${String(Math.abs(minor % 100)).padStart(2, '0')}`;
}

function addYears(date: string, years: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().slice(0, 10);
}

function isUnder(host: string, domain: string): boolean {
  return host.toLowerCase().endsWith(`.${domain.toLowerCase()}`);
}

function ipField(name: string, ip: string): { name: string; ip?: string; ip6?: string } {
  return ip.includes(':') ? { name, ip6: ip } : { name, ip };
}

/** Our record as Openprovider's: `@` is the apex, which Openprovider writes as an empty name. */
function recordOf(record: DnsRecord): ZoneRecord {
  const prio = record.priority !== undefined && record.priority !== '' ? Number(record.priority) : undefined;
  return {
    name: record.hostname === '@' ? '' : record.hostname,
    type: record.type.toUpperCase(),
    value: record.address,
    ttl: 3600,
    ...(prio !== undefined && Number.isInteger(prio) ? { prio } : {}),
  };
}

function recordsFrom(zone: NonNullable<ZoneGetZoneResponse['data']>, domain: string): DnsRecord[] {
  return (zone.records ?? [])
    .filter((r) => r.type && !VENDOR_RECORDS.has(r.type.toUpperCase()))
    .map((r) => {
      const name = (r.name ?? '').replace(/\.$/, '').toLowerCase();
      const hostname =
        name === '' || name === domain ? '@' : name.endsWith(`.${domain}`) ? name.slice(0, -domain.length - 1) : name;
      return {
        hostname,
        type: r.type!.toUpperCase(),
        address: r.value ?? '',
        ...(r.prio !== undefined && r.prio !== 0 ? { priority: String(r.prio) } : {}),
      };
    });
}
