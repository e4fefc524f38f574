import { randomUUID } from 'node:crypto';
import { apiToken } from './api-token';
import { encodeDomainFields, encodeForm, type FormValue, type PhpValue } from './form-encoding';
import * as reply from './replies';
import { ResellerApiError } from './reseller-api-error';

export interface ResellerClientOptions {
  /** Where the API is served, with any base path: `https://api.example.com` or `https://example.com/modules/addons/DomainsReseller/api/index.php`. */
  readonly baseUrl: string;
  /** The reseller's email address (the `username` header). */
  readonly email: string;
  readonly apiKey: string;
  /** Per-call timeout, covering every attempt of the call. Default `DEFAULT_TIMEOUT_MS` (75000 ms). */
  readonly timeoutMs?: number;
  /**
   * Send the optional `timestamp` header and build the token from that instant (docs/api.md#authentication). Default
   * true: the server then never has to guess the hour near a boundary. Turn it off for a client
   * whose clock may be more than 60 s off.
   */
  readonly sendTimestamp?: boolean;
  /** How many times a call that is safe to repeat is retried after a network failure, 429 or 503. Default 2. */
  readonly retries?: number;
  /** First backoff delay; doubled on each retry, with jitter. Default 250 ms. */
  readonly retryDelayMs?: number;
  /** The clock the token is computed from. Default: the system clock. */
  readonly now?: () => Date;
  /** A `fetch` implementation. Default: Node's global `fetch`. */
  readonly fetch?: typeof fetch;
  readonly userAgent?: string;
}

/**
 * The default per-call timeout. It must outlast the server's longest answer, or the client gives
 * up on an order the server is about to answer: an order makes two registrar calls one after the
 * other (the premium check, then the order itself), each under the server's REGISTRAR_TIMEOUT_MS
 * (default 30 s), so 2 × 30 s plus 15 s for the database and the network. Raise it with the
 * server's REGISTRAR_TIMEOUT_MS: at least twice that plus a margin.
 */
export const DEFAULT_TIMEOUT_MS = 75_000;

/** Options every call takes. */
export interface CallOptions {
  /** Abort the call (and any pending retry) when this fires. */
  readonly signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  readonly timeoutMs?: number;
}

/** Options of the three paid calls (register, renew, transfer). */
export interface OrderCallOptions extends CallOptions {
  /**
   * Sent as `Idempotency-Key`: a retry with the same key and body is answered from the first
   * attempt and charged once. Generated when left out; it is on the error of a failed call so the
   * caller can retry later with it. `null` sends no key, and the call is then never retried.
   */
  readonly idempotencyKey?: string | null;
}

export type ContactRole = 'registrant' | 'admin' | 'tech' | 'billing';
/** Contact fields by the lower-case names of docs/api.md#contacts-field: firstname, lastname, companyname, email, address1, address2, city, state, postcode, country, phonenumber, … */
export type ContactFields = Readonly<Record<string, string>>;
export type ContactSet = Readonly<Partial<Record<ContactRole, ContactFields>>>;

export interface Addons {
  readonly dnsManagement?: boolean;
  readonly emailForwarding?: boolean;
  readonly idProtection?: boolean;
}

export interface RegisterOrder {
  readonly domain: string;
  /** Years, 1 to 10. */
  readonly period: number;
  /** Two to five host names (ns1 to ns5). */
  readonly nameservers: readonly string[];
  /** `(docs/api.md#contacts-field): `Registrant|registrant` is required unless the reseller's group has a default contact. */
  readonly contacts?: ContactSet;
  readonly addons?: Addons;
  /** TLD-specific fields, sent as base64 of a PHP-serialized array; a string is sent as it is (already encoded). */
  readonly domainFields?: Readonly<Record<string, PhpValue>> | string;
  readonly idnLanguage?: string;
  /** The billing platform's original parameters; stored by the server, never interpreted. */
  readonly originalVars?: Readonly<Record<string, FormValue>>;
  /**
   * Accepts a premium name's price (docs/orders.md#premium-names): an amount like "600.00", at least
   * the current premium price for the whole period (search quotes it in `premiumCostPricing`). Sent
   * as `premiumEnabled=1` and `premiumCost`; without it a premium name is refused and nothing is charged.
   */
  readonly premiumCost?: string;
}

export interface TransferOrder extends Omit<RegisterOrder, 'nameservers'> {
  readonly eppCode: string;
  readonly nameservers?: readonly string[];
}

export interface RenewOrder {
  readonly domain: string;
  readonly period: number;
  readonly addons?: Addons;
  readonly idnLanguage?: string;
  /** As for a registration: the premium renewal price accepted. */
  readonly premiumCost?: string;
}

export interface SearchQuery {
  readonly searchTerm?: string;
  /** Takes priority over `searchTerm` on the server. */
  readonly punyCodeSearchTerm?: string;
  /** Each as `.extension`. */
  readonly tldsToInclude?: readonly string[];
  readonly isIdnDomain?: boolean;
  readonly premiumEnabled?: boolean;
  /** An array in PHP terms: a list, or keyed settings such as `{ maxResults: 10 }` (sent as `suggestionSettings[maxResults]=10`). */
  readonly suggestionSettings?: readonly FormValue[] | { readonly [key: string]: FormValue };
}

export interface DnsRecordInput {
  readonly hostname: string;
  readonly type: string;
  readonly address: string;
  readonly priority?: string | number;
  readonly recid?: string;
}

export interface EmailForwardInput {
  readonly prefix: string;
  readonly forwardTo: string;
}

export type PricingAction = 'register' | 'renew' | 'transfer';

/** Paging of the account lists (docs/api.md#lists). */
export interface PageQuery {
  /** Rows per page, 1 to 200 (default 50). */
  readonly limit?: number;
  /** The previous page's `next`. */
  readonly cursor?: string;
}

/** `GET /account/domains` filters (docs/api.md#domains-list). */
export interface DomainListQuery extends PageQuery {
  /** One or more statuses: `Active`, `Expired`, `Pending Transfer`, … */
  readonly status?: string | readonly string[];
  readonly tld?: string;
  /** Expiry from today to this many days ahead. */
  readonly expiringWithinDays?: number;
  /** Part of the name, Unicode or ASCII. */
  readonly search?: string;
  readonly sort?: 'name' | 'expiry';
}

/** `GET /account/orders` filters (docs/api.md#orders-list). */
export interface OrderListQuery extends PageQuery {
  readonly status?: reply.OrderStatusReply | readonly reply.OrderStatusReply[];
  readonly action?: PricingAction | readonly PricingAction[];
  readonly domain?: string;
  /** Placed on or after this day (YYYY-MM-DD, UTC). */
  readonly from?: string;
  /** Placed on or before this day. */
  readonly to?: string;
}

/** `GET /account/statement` range (docs/api.md#statement). */
export interface StatementQuery extends PageQuery {
  readonly from?: string;
  readonly to?: string;
}

/** Which calls may be repeated: reads and "set" calls always; paid calls only with an idempotency key; the rest never. */
type RetryRule = 'safe' | 'paid' | 'never';

interface Operation<T> {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly params?: { readonly [key: string]: FormValue };
  readonly repeat?: readonly string[];
  readonly retry: RetryRule;
  readonly parse: (json: unknown, what: string, headers: reply.ReplyHeaders) => T;
}

const ROLE_KEYS: Record<ContactRole, string> = {
  registrant: 'Registrant',
  admin: 'Admin',
  tech: 'Tech',
  billing: 'Billing',
};
const RETRY_STATUSES = new Set([429, 503]);
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * A typed client for every operation of the reseller API: the 17 of the specification and the
 * 15 that deployed clients also call (docs/api.md#operations). No dependencies beyond Node's `fetch` and
 * `crypto`.
 *
 * Every failure is a `ResellerApiError` carrying the HTTP status and the server's `error` message.
 * Reads and settings are retried on network failures, 429 and 503 (with backoff, within the call's
 * timeout); the three paid orders carry an `Idempotency-Key` and are retried only with it;
 * deletions, releases and child-nameserver changes are never retried.
 *
 * @example
 * const client = new ResellerClient({ baseUrl: 'https://api.example.com', email: 'me@example.com', apiKey });
 * const balance = await client.credits();            // "100.00"
 * await client.register({ domain: 'example.com', period: 1, nameservers: ['ns1.host.net', 'ns2.host.net'], contacts: { registrant } });
 */
export class ResellerClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly sendTimestamp: boolean;
  private readonly now: () => Date;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: ResellerClientOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new TypeError(`baseUrl "${options.baseUrl}" is not an absolute URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new TypeError('baseUrl must be an http or https URL');
    if (url.search || url.hash) throw new TypeError('baseUrl must not carry a query string or fragment');
    if (!options.email || !options.apiKey) throw new TypeError('email and apiKey are required');
    this.baseUrl = url.toString().replace(/\/+$/, '');
    this.timeoutMs = positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
    this.retries = Math.max(0, Math.floor(options.retries ?? 2));
    this.retryDelayMs = positive(options.retryDelayMs, 250, 'retryDelayMs');
    this.sendTimestamp = options.sendTimestamp ?? true;
    this.now = options.now ?? (() => new Date());
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  // ---- account and catalogue ----

  /** `GET /version` (docs/api.md#version): the module version string. */
  version(options?: CallOptions): Promise<string> {
    return this.call({ method: 'GET', path: '/version', retry: 'safe', parse: reply.expectString }, options);
  }

  /** `GET /billing/credits` (docs/api.md#credits): the balance as a decimal string, like `"123.45"`. */
  credits(options?: CallOptions): Promise<string> {
    return this.call({ method: 'GET', path: '/billing/credits', retry: 'safe', parse: reply.expectAmount }, options);
  }

  /** `GET /tlds` (docs/api.md#tlds): the TLDs offered to the reseller, like `[".com", ".net"]`. */
  tlds(options?: CallOptions): Promise<string[]> {
    return this.call({ method: 'GET', path: '/tlds', retry: 'safe', parse: reply.expectStringArray }, options);
  }

  /** `GET /tlds/pricing`: one row per offered TLD and period. */
  tldPricing(options?: CallOptions): Promise<reply.TldPricingRow[]> {
    return this.call({ method: 'GET', path: '/tlds/pricing', retry: 'safe', parse: reply.expectTldPricing }, options);
  }

  /** `GET /order/pricing/domains/{register|renew|transfer}` (docs/api.md#pricing-of-one-domain): years → price for the domain's TLD. */
  pricing(domain: string, action: PricingAction = 'register', options?: CallOptions): Promise<reply.PeriodPrices> {
    return this.call(
      {
        method: 'GET',
        path: `/order/pricing/domains/${action}`,
        params: { domain },
        retry: 'safe',
        parse: reply.expectPeriodPrices,
      },
      options,
    );
  }

  // ---- search ----

  /** `POST /domains/lookup/suggestions` (docs/api.md#domain-suggestions). */
  suggestions(query: SearchQuery, options?: CallOptions): Promise<reply.DomainSuggestion[]> {
    return this.call(
      {
        method: 'POST',
        path: '/domains/lookup/suggestions',
        params: searchParams(query),
        repeat: ['tldsToInclude'],
        retry: 'safe',
        parse: reply.expectSuggestions,
      },
      options,
    );
  }

  /** `POST /domains/lookup`: availability of the exact name on each TLD, in the suggestion shape. */
  lookup(query: SearchQuery, options?: CallOptions): Promise<reply.DomainSuggestion[]> {
    return this.call(
      {
        method: 'POST',
        path: '/domains/lookup',
        params: searchParams(query),
        repeat: ['tldsToInclude'],
        retry: 'safe',
        parse: reply.expectSuggestions,
      },
      options,
    );
  }

  // ---- paid orders ----

  /**
   * `POST /order/domains/register` (docs/api.md#register-a-domain). Resolves with the order's id and
   * status when the server answers `success` (registration done, or started: `pending`).
   */
  register(order: RegisterOrder, options?: OrderCallOptions): Promise<reply.PlacedOrder> {
    return this.call(
      {
        method: 'POST',
        path: '/order/domains/register',
        params: orderParams(order),
        retry: 'paid',
        parse: reply.expectPlacedOrder,
      },
      options,
    );
  }

  /** `POST /order/domains/transfer`: the register body plus `eppcode`; resolves with the order's id and status. */
  transfer(order: TransferOrder, options?: OrderCallOptions): Promise<reply.PlacedOrder> {
    return this.call(
      {
        method: 'POST',
        path: '/order/domains/transfer',
        params: { ...orderParams(order), eppcode: order.eppCode },
        retry: 'paid',
        parse: reply.expectPlacedOrder,
      },
      options,
    );
  }

  /** `POST /order/domains/renew` (docs/api.md#renew-a-domain); resolves with the order's id and status. */
  renew(order: RenewOrder, options?: OrderCallOptions): Promise<reply.PlacedOrder> {
    const params = {
      domain: order.domain,
      regperiod: order.period,
      addons: addonParams(order.addons),
      idnLanguage: order.idnLanguage,
      ...premiumParams(order.premiumCost),
    };
    return this.call(
      { method: 'POST', path: '/order/domains/renew', params, retry: 'paid', parse: reply.expectPlacedOrder },
      options,
    );
  }

  // ---- domain information and sync ----

  /** `GET /domains/{domain}/information` (docs/api.md#domain-information). */
  information(domain: string, options?: CallOptions): Promise<reply.DomainInformation> {
    return this.call(this.domainOp('GET', domain, 'information', {}, 'safe', reply.expectInformation), options);
  }

  /** `POST /domains/{domain}/sync` (docs/api.md#domain-sync). */
  sync(domain: string, options?: CallOptions): Promise<reply.DomainSyncReply> {
    return this.call(this.domainOp('POST', domain, 'sync', {}, 'safe', reply.expectSync), options);
  }

  /** `POST /domains/{domain}/transfersync` (docs/api.md#transfer-sync). */
  transferSync(domain: string, options?: CallOptions): Promise<reply.TransferSyncReply> {
    return this.call(this.domainOp('POST', domain, 'transfersync', {}, 'safe', reply.expectTransferSync), options);
  }

  // ---- nameservers ----

  /** `GET /domains/{domain}/nameservers` (docs/api.md#nameservers): `ns1` to `ns5`, unset ones empty. */
  nameservers(domain: string, options?: CallOptions): Promise<reply.NameserverSet> {
    return this.call(this.domainOp('GET', domain, 'nameservers', {}, 'safe', reply.expectNameservers), options);
  }

  /** `POST /domains/{domain}/nameservers`: replaces the nameservers (two to five), sent as `ns1` to `ns5`. */
  saveNameservers(
    domain: string,
    nameservers: readonly string[],
    options?: CallOptions,
  ): Promise<reply.RegistrarResult> {
    return this.call(
      this.domainOp('POST', domain, 'nameservers', nameserverFields(nameservers), 'safe', reply.expectRegistrarResult),
      options,
    );
  }

  /** `POST /domains/{domain}/nameservers/register`: creates a child nameserver (glue) under the domain. */
  registerNameserver(
    domain: string,
    nameserver: string,
    ipAddress: string,
    options?: CallOptions,
  ): Promise<reply.RegistrarResult> {
    return this.call(
      this.domainOp(
        'POST',
        domain,
        'nameservers/register',
        { nameserver, ipaddress: ipAddress },
        'never',
        reply.expectRegistrarResult,
      ),
      options,
    );
  }

  /** `POST /domains/{domain}/nameservers/modify`: changes a child nameserver's address. */
  modifyNameserver(
    domain: string,
    nameserver: string,
    currentIpAddress: string,
    newIpAddress: string,
    options?: CallOptions,
  ): Promise<reply.RegistrarResult> {
    const params = { nameserver, currentipaddress: currentIpAddress, newipaddress: newIpAddress };
    return this.call(
      this.domainOp('POST', domain, 'nameservers/modify', params, 'never', reply.expectRegistrarResult),
      options,
    );
  }

  /** `POST /domains/{domain}/nameservers/delete` (docs/api.md#child-nameservers): deletes a child nameserver. */
  deleteNameserver(domain: string, nameserver: string, options?: CallOptions): Promise<reply.RegistrarResult> {
    return this.call(
      this.domainOp('POST', domain, 'nameservers/delete', { nameserver }, 'never', reply.expectRegistrarResult),
      options,
    );
  }

  // ---- lock, ID protection, EPP code ----

  /** `GET /domains/{domain}/lock`: `"locked"` or `"unlocked"`. */
  lock(domain: string, options?: CallOptions): Promise<'locked' | 'unlocked'> {
    return this.call(this.domainOp('GET', domain, 'lock', {}, 'safe', reply.expectLockState), options);
  }

  /** `POST /domains/{domain}/lock` (docs/api.md#registrar-lock). */
  saveLock(domain: string, locked: boolean, options?: CallOptions): Promise<reply.RegistrarResult> {
    return this.call(
      this.domainOp(
        'POST',
        domain,
        'lock',
        { lockstatus: locked ? 'locked' : 'unlocked' },
        'safe',
        reply.expectRegistrarResult,
      ),
      options,
    );
  }

  /** `POST /domains/{domain}/protectid` (docs/api.md#id-protection). */
  saveIdProtection(domain: string, enabled: boolean, options?: CallOptions): Promise<reply.RegistrarResult> {
    return this.call(
      this.domainOp('POST', domain, 'protectid', { status: enabled ? 1 : 0 }, 'safe', reply.expectRegistrarResult),
      options,
    );
  }

  /** `GET /domains/{domain}/eppcode` (docs/api.md#epp-code): the transfer authorisation code. */
  eppCode(domain: string, options?: CallOptions): Promise<string> {
    return this.call(this.domainOp('GET', domain, 'eppcode', {}, 'safe', reply.expectEppCode), options);
  }

  // ---- DNS, email forwarding, contacts ----

  /** `GET /domains/{domain}/dns`. */
  dnsRecords(domain: string, options?: CallOptions): Promise<reply.DnsRecordReply[]> {
    return this.call(this.domainOp('GET', domain, 'dns', {}, 'safe', reply.expectDnsRecords), options);
  }

  /** `POST /domains/{domain}/dns` (docs/api.md#dns-records): saves the records, sent as `dnsrecords[n][hostname]`, … */
  saveDnsRecords(
    domain: string,
    records: readonly DnsRecordInput[],
    options?: CallOptions,
  ): Promise<reply.RegistrarResult> {
    const dnsrecords = records.map((r) => ({
      hostname: r.hostname,
      type: r.type,
      address: r.address,
      priority: r.priority === undefined ? undefined : String(r.priority),
      recid: r.recid,
    }));
    return this.call(
      this.domainOp('POST', domain, 'dns', { dnsrecords }, 'safe', reply.expectRegistrarResult),
      options,
    );
  }

  /** `GET /domains/{domain}/email`: the email forwards. */
  emailForwarding(domain: string, options?: CallOptions): Promise<reply.EmailForwardReply[]> {
    return this.call(this.domainOp('GET', domain, 'email', {}, 'safe', reply.expectEmailForwards), options);
  }

  /** `POST /domains/{domain}/email`: replaces the forwards, sent as `prefix[n]` and `forwardto[n]`. */
  saveEmailForwarding(
    domain: string,
    forwards: readonly EmailForwardInput[],
    options?: CallOptions,
  ): Promise<reply.RegistrarResult> {
    const params = { prefix: forwards.map((f) => f.prefix), forwardto: forwards.map((f) => f.forwardTo) };
    return this.call(this.domainOp('POST', domain, 'email', params, 'safe', reply.expectRegistrarResult), options);
  }

  /** `GET /domains/{domain}/contact`: contact details by role. */
  contacts(domain: string, options?: CallOptions): Promise<reply.ContactDetails> {
    return this.call(this.domainOp('GET', domain, 'contact', {}, 'safe', reply.expectContactDetails), options);
  }

  /** `POST /domains/{domain}/contact`: saves contact details, sent as `contactdetails[Registrant][firstname]`, … */
  saveContacts(domain: string, contacts: ContactSet, options?: CallOptions): Promise<reply.RegistrarResult> {
    return this.call(
      this.domainOp(
        'POST',
        domain,
        'contact',
        { contactdetails: contactParams(contacts) },
        'safe',
        reply.expectRegistrarResult,
      ),
      options,
    );
  }

  // ---- deletion and release ----

  /** `POST /domains/{domain}/delete` (docs/api.md#delete-a-domain). Never retried. */
  delete(domain: string, options?: CallOptions): Promise<reply.RegistrarResult> {
    return this.call(this.domainOp('POST', domain, 'delete', {}, 'never', reply.expectRegistrarResult), options);
  }

  /** `POST /domains/{domain}/release`: releases the domain to another registrar's tag. Never retried. */
  release(domain: string, transferTag: string, options?: CallOptions): Promise<reply.RegistrarResult> {
    return this.call(
      this.domainOp('POST', domain, 'release', { transfertag: transferTag }, 'never', reply.expectRegistrarResult),
      options,
    );
  }

  // ---- account lists (beyond the contract) ----

  /** `GET /account/domains` (docs/api.md#domains-list): one page of the reseller's domains. */
  domains(query: DomainListQuery = {}, options?: CallOptions): Promise<reply.DomainPage> {
    return this.call(listOp('/account/domains', query, reply.expectDomainPage), options);
  }

  /** `GET /account/orders` (docs/api.md#orders-list): one page of the reseller's orders, newest first. */
  orders(query: OrderListQuery = {}, options?: CallOptions): Promise<reply.OrderPage> {
    return this.call(listOp('/account/orders', query, reply.expectOrderPage), options);
  }

  /** `GET /account/orders/{id}`: one order, to learn how a pending one ended; a 404 error for an id that is not the reseller's. */
  order(id: string, options?: CallOptions): Promise<reply.AccountOrder> {
    if (typeof id !== 'string' || id.trim() === '') throw new TypeError('id is required');
    return this.call(
      {
        method: 'GET',
        path: `/account/orders/${encodeURIComponent(id)}`,
        retry: 'safe',
        parse: reply.expectAccountOrder,
      },
      options,
    );
  }

  /** `GET /account/statement` (docs/api.md#statement): one page of ledger entries with the running balance. */
  statement(query: StatementQuery = {}, options?: CallOptions): Promise<reply.StatementPage> {
    return this.call(listOp('/account/statement', query, reply.expectStatementPage), options);
  }

  /** Every domain matching the filters, page after page: `for await (const d of client.eachDomain({ status: 'Active' }))`. */
  eachDomain(query: Omit<DomainListQuery, 'cursor'> = {}, options?: CallOptions): AsyncGenerator<reply.AccountDomain> {
    return eachRow(
      (cursor) => this.domains({ ...query, cursor }, options),
      (page) => page.domains,
    );
  }

  /** Every order matching the filters, newest first, page after page. */
  eachOrder(query: Omit<OrderListQuery, 'cursor'> = {}, options?: CallOptions): AsyncGenerator<reply.AccountOrder> {
    return eachRow(
      (cursor) => this.orders({ ...query, cursor }, options),
      (page) => page.orders,
    );
  }

  /** Every statement entry of the range, oldest first, page after page. */
  eachStatementEntry(
    query: Omit<StatementQuery, 'cursor'> = {},
    options?: CallOptions,
  ): AsyncGenerator<reply.StatementEntry> {
    return eachRow(
      (cursor) => this.statement({ ...query, cursor }, options),
      (page) => page.entries,
    );
  }

  // ---- transport ----

  private domainOp<T>(
    method: 'GET' | 'POST',
    domain: string,
    action: string,
    params: { readonly [key: string]: FormValue },
    retry: RetryRule,
    parse: (json: unknown, what: string) => T,
  ): Operation<T> {
    if (typeof domain !== 'string' || domain.trim() === '') throw new TypeError('domain is required');
    // docs/api.md#the-domain-in-a-path: the body (or query) repeats the path's domain.
    return {
      method,
      path: `/domains/${encodeURIComponent(domain)}/${action}`,
      params: { domain, ...params },
      retry,
      parse,
    };
  }

  private async call<T>(op: Operation<T>, options: OrderCallOptions = {}): Promise<T> {
    const operation = `${op.method} ${op.path}`;
    const timeoutMs = positive(options.timeoutMs, this.timeoutMs, 'timeoutMs');
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? anySignal([options.signal, timeout]) : timeout;
    const idempotencyKey =
      op.retry === 'paid'
        ? options.idempotencyKey === undefined
          ? randomUUID()
          : (options.idempotencyKey ?? undefined)
        : undefined;
    // No retries of a paid call without an idempotency key: a lost answer could mean a charge.
    const retriable = op.retry === 'safe' || (op.retry === 'paid' && idempotencyKey !== undefined);
    const encoded = op.params ? encodeForm(op.params, { repeat: op.repeat }) : '';
    const url = `${this.baseUrl}${op.path}${op.method === 'GET' && encoded ? `?${encoded}` : ''}`;
    const base = { operation, ...(idempotencyKey ? { idempotencyKey } : {}) };

    const stopped = (cause: unknown): ResellerApiError =>
      options.signal?.aborted
        ? new ResellerApiError('aborted', `${operation} was aborted`, base, { cause: options.signal.reason })
        : new ResellerApiError('timeout', `${operation} did not answer within ${timeoutMs} ms`, base, { cause });

    for (let attempt = 0; ; attempt++) {
      let response: Response;
      let text: string;
      try {
        response = await this.fetchImpl(url, {
          method: op.method,
          headers: this.headers(op.method === 'POST', idempotencyKey),
          body: op.method === 'POST' ? encoded : undefined,
          signal,
          redirect: 'manual',
        });
        text = await response.text();
      } catch (error) {
        if (signal.aborted) throw stopped(error);
        const failure = new ResellerApiError(
          'network',
          `${operation} failed: ${networkReason(error)}`,
          { ...base, status: 0 },
          { cause: error },
        );
        if (!retriable || attempt >= this.retries) throw failure;
        await this.backoff(attempt, undefined, signal).catch((e) => {
          throw stopped(e);
        });
        continue;
      }

      const requestId = response.headers.get('x-request-id') ?? undefined;
      const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'));
      const details = {
        ...base,
        status: response.status,
        requestId,
        ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
      };
      let json: unknown;
      let isJson = true;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        isJson = false;
      }
      const serverMessage =
        isJson && typeof json === 'object' && json !== null && typeof (json as { error?: unknown }).error === 'string'
          ? (json as { error: string }).error
          : undefined;

      if (response.status >= 300 && response.status < 400) {
        throw new ResellerApiError(
          'http',
          `${operation} was redirected to ${response.headers.get('location') ?? 'another address'}; set baseUrl to the final address`,
          details,
        );
      }
      if (response.status !== 200 || serverMessage !== undefined) {
        if (RETRY_STATUSES.has(response.status) && retriable && attempt < this.retries) {
          await this.backoff(attempt, retryAfterSeconds, signal).catch((e) => {
            throw stopped(e);
          });
          continue;
        }
        // Deployed servers may answer an error with status 200; clients read only `error` (docs/api.md#errors-and-status-codes).
        const message =
          serverMessage ?? `${operation} answered HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`;
        throw new ResellerApiError('http', message, { ...details, serverMessage });
      }
      if (!isJson)
        throw new ResellerApiError(
          'invalid_reply',
          `${operation} answered something that is not JSON: ${text.slice(0, 200)}`,
          details,
        );
      try {
        return op.parse(json, 'the reply', response.headers);
      } catch (error) {
        if (error instanceof reply.ReplyShapeError || error instanceof TypeError) {
          throw new ResellerApiError('invalid_reply', `${operation}: ${error.message}`, details, { cause: error });
        }
        throw error;
      }
    }
  }

  private headers(hasBody: boolean, idempotencyKey: string | undefined): Record<string, string> {
    const at = this.now();
    const headers: Record<string, string> = {
      accept: 'application/json',
      username: this.options.email,
      'user-agent': this.options.userAgent ?? 'domain-reseller-client',
    };
    if (this.sendTimestamp) {
      // The token is built from the very second sent, so client and server agree on the hour.
      const seconds = Math.floor(at.getTime() / 1000);
      headers.timestamp = String(seconds);
      headers.token = apiToken(this.options.email, this.options.apiKey, new Date(seconds * 1000));
    } else {
      headers.token = apiToken(this.options.email, this.options.apiKey, at);
    }
    if (hasBody) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    return headers;
  }

  private backoff(attempt: number, retryAfterSeconds: number | undefined, signal: AbortSignal): Promise<void> {
    const exponential = this.retryDelayMs * 2 ** attempt;
    const jittered = exponential / 2 + Math.random() * (exponential / 2);
    const ms = retryAfterSeconds !== undefined ? Math.min(retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS) : jittered;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** A list read: its filters in the query string, lists as repeated names, retried like every read. */
function listOp<T>(path: string, query: object, parse: (json: unknown, what: string) => T): Operation<T> {
  return {
    method: 'GET',
    path,
    params: { ...(query as { [key: string]: FormValue }) },
    repeat: ['status', 'action'],
    retry: 'safe',
    parse,
  };
}

async function* eachRow<P extends { readonly next?: string }, R>(
  read: (cursor: string | undefined) => Promise<P>,
  rows: (page: P) => readonly R[],
): AsyncGenerator<R> {
  let cursor: string | undefined;
  do {
    const page = await read(cursor);
    yield* rows(page);
    cursor = page.next;
  } while (cursor);
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`${name} must be a positive number of milliseconds`);
  return value;
}

/** `AbortSignal.any`, which Node has from 20.3; the fallback keeps the SDK working on 20.0–20.2. */
function anySignal(signals: AbortSignal[]): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any(signals);
  const controller = new AbortController();
  for (const s of signals) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    s.addEventListener('abort', () => controller.abort(s.reason), { once: true });
  }
  return controller.signal;
}

function parseRetryAfter(header: string | null): number | undefined {
  if (header === null || !/^\d{1,6}$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

function searchParams(query: SearchQuery): { [key: string]: FormValue } {
  return {
    searchTerm: query.searchTerm,
    punyCodeSearchTerm: query.punyCodeSearchTerm,
    tldsToInclude: query.tldsToInclude,
    isIdnDomain: query.isIdnDomain,
    premiumEnabled: query.premiumEnabled,
    suggestionSettings: query.suggestionSettings,
  };
}

function nameserverFields(nameservers: readonly string[]): { [key: string]: string } {
  if (nameservers.length > 5) throw new TypeError('at most five nameservers (ns1 to ns5)');
  return Object.fromEntries(nameservers.map((ns, i) => [`ns${i + 1}`, ns]));
}

function addonParams(addons: Addons | undefined): { [key: string]: boolean | undefined } | undefined {
  if (!addons) return undefined;
  return {
    dnsmanagement: addons.dnsManagement,
    emailforwarding: addons.emailForwarding,
    idprotection: addons.idProtection,
  };
}

function contactParams(contacts: ContactSet | undefined): { [key: string]: ContactFields } | undefined {
  if (!contacts) return undefined;
  const out: { [key: string]: ContactFields } = {};
  for (const [role, fields] of Object.entries(contacts) as Array<[ContactRole, ContactFields | undefined]>) {
    if (!ROLE_KEYS[role]) throw new TypeError(`unknown contact role "${role}"; use registrant, admin, tech or billing`);
    if (fields) out[ROLE_KEYS[role]] = fields;
  }
  return out;
}

function orderParams(order: Omit<RegisterOrder, 'nameservers'> & { readonly nameservers?: readonly string[] }): {
  [key: string]: FormValue;
} {
  if (!Number.isInteger(order.period)) throw new TypeError('period must be a whole number of years');
  return {
    domain: order.domain,
    regperiod: order.period,
    nameservers: order.nameservers ? nameserverFields(order.nameservers) : undefined,
    contacts: contactParams(order.contacts),
    addons: addonParams(order.addons),
    domainfields:
      typeof order.domainFields === 'string'
        ? order.domainFields
        : order.domainFields
          ? encodeDomainFields(order.domainFields)
          : undefined,
    idnLanguage: order.idnLanguage,
    originalvars: order.originalVars,
    ...premiumParams(order.premiumCost),
  };
}

/** WHMCS's own names for accepting a premium price. */
function premiumParams(premiumCost: string | undefined): { [key: string]: FormValue } {
  return premiumCost === undefined ? {} : { premiumEnabled: 1, premiumCost };
}
