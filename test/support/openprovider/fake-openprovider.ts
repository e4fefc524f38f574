import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Ajv, { type ValidateFunction } from 'ajv';
import {
  BASE_PATH,
  DEFINITIONS,
  OPERATIONS,
  type VendorOperation,
} from '../../../plugins/openprovider/src/vendor/openprovider-api.generated';

/**
 * An in-process Openprovider (REST v1beta) for tests, no more lenient than the vendor's document:
 * every request is validated against the schemas derived from the vendor's Swagger document
 * (unknown operations, unknown or mistyped query parameters, unknown body fields, wrong types,
 * missing required fields: a 400 with Openprovider's error body), and every answer it gives is
 * validated against the document too. A violation either way is recorded (`requestViolations`,
 * `answerViolations`), and tests expect both empty.
 *
 * It keeps an account (balance, customers, domains, zones, child nameservers) and a world outside
 * it: names starting `taken-` are registered elsewhere (transferable with the EPP code
 * `TRANSFER-OK`), `premium-` names are premium, `reserved-` names are reserved. Transfers stay
 * requested until `completeTransfer` (or `transferDelayMs` on its clock). Fault modes, armed per
 * operation: a lost answer after acting, slowness, a 5xx, a 429 with Retry-After, an expired token.
 */

/** Openprovider's error codes the fake answers, in the ranges the vendor publishes (1xx customers/auth, 2xx nameservers, 3-7xx domains, 8xx DNS, 9xx payments). */
export const CODES = {
  authentication: 196,
  handleNotFound: 101,
  invalidRequest: 1,
  nameserverExists: 201,
  nameserverNotFound: 202,
  domainExists: 346,
  domainNotFound: 320,
  premiumFeeNotAccepted: 352,
  invalidAuthCode: 367,
  notRestorable: 375,
  zoneNotFound: 817,
  balance: 904,
  internal: 500,
} as const;

export type FaultKind = 'lost' | 'slow' | '5xx' | '429' | 'expire-token' | 'html-502';

export interface Fault {
  readonly kind: FaultKind;
  /** For `slow`: milliseconds before answering (after acting); for `429`: the Retry-After in seconds. */
  readonly ms?: number;
  readonly retryAfterSeconds?: number;
  /** Told when the fake has acted on the call (recorded it, changed its state), before it answers. */
  readonly onActed?: () => void;
}

export interface FakeDomain {
  id: number;
  name: string;
  extension: string;
  status: 'ACT' | 'REQ' | 'DEL' | 'FAI';
  expiration: Date;
  created: Date;
  owner_handle: string;
  admin_handle: string;
  tech_handle: string;
  billing_handle: string;
  name_servers: Array<{ name: string; seq_nr: number }>;
  is_locked: boolean;
  is_private_whois_enabled: boolean;
  auth_code: string;
  is_deleted: boolean;
  restorable_until?: Date;
  is_premium: boolean;
  transferRequestedAt?: Date;
  transferOutcome?: 'ACT' | 'FAI';
  /** False for a TLD whose registrant changes only by a trade. */
  modify_owner_allowed?: boolean;
}

export interface FakeCustomer {
  handle: string;
  body: Record<string, any>;
}

export interface FakeCall {
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string | string[]>;
  readonly body: any;
  readonly status: number;
}

export interface FakeOpenproviderOptions {
  readonly username?: string;
  readonly password?: string;
  /** The account's balance in cents of EUR. */
  readonly balance?: number;
  readonly now?: () => Date;
  /** A requested transfer completes this long after it was requested, when next read (default: only by completeTransfer). */
  readonly transferDelayMs?: number;
}

/** Yearly prices in EUR of the account (the reseller price) and in USD of the supplier (the product price). */
const TLD_PRICES: Record<string, { create: number; renew: number; transfer: number; restore: number }> = {
  com: { create: 8.5, renew: 9.25, transfer: 8.5, restore: 75 },
  net: { create: 10.1, renew: 10.1, transfer: 10.1, restore: 75 },
  eu: { create: 4.99, renew: 4.99, transfer: 0, restore: 20 },
  nl: { create: 3.95, renew: 3.95, transfer: 0, restore: 15 },
};
const PREMIUM = { create: 500, renew: 550, transfer: 500, productCreate: 600 };
const USD_PER_EUR = 1.1;

export interface FakeOpenprovider {
  readonly url: string;
  readonly domains: Map<string, FakeDomain>;
  readonly customers: Map<string, FakeCustomer>;
  readonly zones: Map<string, { id: number; records: Array<Record<string, any>> }>;
  readonly nameservers: Map<string, { ip?: string; ip6?: string }>;
  /** Names registered elsewhere, with their EPP codes. */
  readonly elsewhere: Map<string, string>;
  readonly calls: FakeCall[];
  readonly requestViolations: string[];
  readonly answerViolations: string[];
  readonly account: { balance: number; logins: number };
  /** Arms faults for the next calls of an operation (by the document's operationId). */
  fault(operation: string, ...faults: Fault[]): void;
  completeTransfer(domain: string, outcome?: 'ACT' | 'FAI'): void;
  expireTokens(): void;
  callsOf(operation: string): FakeCall[];
  close(): Promise<void>;
}

const fmt = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');
const addYears = (date: Date, years: number) => {
  const d = new Date(date);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d;
};
const round2 = (n: number) => Math.round(n * 100) / 100;

export async function startFakeOpenprovider(options: FakeOpenproviderOptions = {}): Promise<FakeOpenprovider> {
  const now = options.now ?? (() => new Date());
  const username = options.username ?? 'reseller-api';
  const password = options.password ?? 'op-secret-password';
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addSchema({ $id: 'openprovider', definitions: DEFINITIONS });
  const validators = new Map<string, ValidateFunction>();
  const validator = (name: string) => {
    let v = validators.get(name);
    if (!v) {
      v = ajv.compile({ $ref: `openprovider#/definitions/${name}` });
      validators.set(name, v);
    }
    return v;
  };
  const routes = OPERATIONS.map((op) => ({
    op,
    pattern: new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '([^/]+)')}$`),
    names: [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
  }));

  const domains = new Map<string, FakeDomain>();
  const customers = new Map<string, FakeCustomer>();
  const zones = new Map<string, { id: number; records: Array<Record<string, any>> }>();
  const nameservers = new Map<string, { ip?: string; ip6?: string }>();
  const elsewhere = new Map<string, string>();
  const tokens = new Set<string>();
  const faults = new Map<string, Fault[]>();
  const calls: FakeCall[] = [];
  const requestViolations: string[] = [];
  const answerViolations: string[] = [];
  const account = { balance: options.balance ?? 1_000_000, logins: 0 };
  let nextId = 1000;

  class VendorError extends Error {
    constructor(
      readonly status: number,
      readonly code: number,
      readonly desc: string,
    ) {
      super(desc);
    }
  }
  const fail = (status: number, code: number, desc: string): never => {
    throw new VendorError(status, code, desc);
  };

  const isTaken = (full: string) => full.startsWith('taken-') || elsewhere.has(full);
  const isPremium = (full: string) => full.startsWith('premium-');
  const pricesOf = (extension: string) =>
    TLD_PRICES[extension] ?? fail(400, 307, `Invalid domain extension: ${extension}`);
  const charge = (euros: number, what: string) => {
    const cents = Math.round(euros * 100);
    if (account.balance < cents)
      fail(400, CODES.balance, `Your account balance is insufficient for ${what}; please top up your balance`);
    account.balance -= cents;
  };
  const settleTransfers = () => {
    for (const d of domains.values()) {
      if (d.status !== 'REQ' || !d.transferRequestedAt) continue;
      if (
        options.transferDelayMs !== undefined &&
        now().getTime() >= d.transferRequestedAt.getTime() + options.transferDelayMs
      )
        d.transferOutcome = d.transferOutcome ?? 'ACT';
      if (d.transferOutcome) {
        d.status = d.transferOutcome;
        if (d.status === 'ACT') {
          d.expiration = addYears(d.expiration, 1);
          elsewhere.delete(`${d.name}.${d.extension}`);
        }
      }
    }
  };
  const byId = (raw: string) => {
    const id = Number(raw);
    for (const d of domains.values()) if (d.id === id) return d;
    return fail(404, CODES.domainNotFound, 'Domain not found');
  };
  const requireHandle = (handle: unknown, role: string) => {
    if (typeof handle !== 'string' || !customers.has(handle))
      fail(400, CODES.handleNotFound, `The ${role} handle ${String(handle)} does not exist`);
  };
  const domainView = (d: FakeDomain) => ({
    id: d.id,
    domain: { name: d.name, extension: d.extension },
    status: d.status,
    expiration_date: fmt(d.expiration),
    renewal_date: fmt(d.expiration),
    creation_date: fmt(d.created),
    order_date: fmt(d.created),
    owner_handle: d.owner_handle,
    admin_handle: d.admin_handle,
    tech_handle: d.tech_handle,
    billing_handle: d.billing_handle,
    name_servers: d.name_servers.map((ns) => ({ name: ns.name, seq_nr: ns.seq_nr, ip: '', ip6: '' })),
    is_locked: d.is_locked,
    is_lockable: true,
    is_private_whois_enabled: d.is_private_whois_enabled,
    is_private_whois_allowed: true,
    is_deleted: d.is_deleted,
    is_premium: d.is_premium,
    modify_owner_allowed: d.modify_owner_allowed ?? true,
    autorenew: 'off',
    type: d.transferRequestedAt ? 'TRANSFER' : 'NEW',
    ...(d.restorable_until ? { restorable_until: fmt(d.restorable_until) } : {}),
  });
  const priceGroup = (euros: number) => ({
    product: { currency: 'USD', price: round2(euros * USD_PER_EUR) },
    reseller: { currency: 'EUR', price: euros },
  });
  const nameserversOf = (body: any) =>
    ((body.name_servers ?? []) as Array<{ name: string; seq_nr?: number }>).map((ns, i) => ({
      name: ns.name.toLowerCase(),
      seq_nr: ns.seq_nr ?? i,
    }));

  type Handler = (args: { params: Record<string, string>; query: Record<string, any>; body: any }) => object;
  const handlers: Record<string, Handler> = {
    Login: ({ body }) => {
      if (body.username !== username || body.password !== password)
        fail(401, CODES.authentication, 'Authentication/Authorization Failed');
      const token = randomBytes(16).toString('hex');
      tokens.add(token);
      account.logins++;
      return { code: 0, desc: '', data: { token, reseller_id: 100001 } };
    },
    CheckDomain: ({ body }) => ({
      code: 0,
      desc: '',
      data: {
        results: (body.domains as Array<{ name: string; extension: string }>).map(({ name, extension }) => {
          const full = `${name}.${extension}`.toLowerCase();
          const ours = domains.get(full);
          const status =
            (ours && !ours.is_deleted) || isTaken(full) ? 'in use' : full.startsWith('reserved-') ? 'reserved' : 'free';
          const premium = isPremium(full);
          const price = premium ? PREMIUM.create : TLD_PRICES[extension]?.create;
          return {
            domain: full,
            status,
            ...(premium
              ? { is_premium: true, premium: { currency: 'USD', price: { create: PREMIUM.productCreate } } }
              : {}),
            ...(body.with_price && price !== undefined ? { price: priceGroup(price) } : {}),
          };
        }),
      },
    }),
    GetPrice: ({ query }) => {
      const full = `${query['domain.name']}.${query['domain.extension']}`;
      const operation = (query.operation ?? 'create') as 'create' | 'renew' | 'transfer';
      const euros = isPremium(full) ? PREMIUM[operation] : pricesOf(String(query['domain.extension']))[operation];
      return {
        code: 0,
        desc: '',
        data: { is_premium: isPremium(full), price: priceGroup(euros * Number(query.period ?? 1)) },
      };
    },
    SuggestNameDomain: ({ body }) => {
      const tlds: string[] = body.tlds ?? ['com'];
      const labels = [body.name, `${body.name}-online`, `get${body.name}`, `${body.name}hq`, `my${body.name}`];
      const results = labels.flatMap((name) => tlds.map((tld) => ({ name, tld, domain: `${name}.${tld}` })));
      return { code: 0, desc: '', data: { results: results.slice(0, body.limit ?? 10) } };
    },
    ListDomains: ({ query }) => {
      settleTransfers();
      const wantDeleted = query.is_deleted === 'true';
      const list = [...domains.values()].filter(
        (d) =>
          d.is_deleted === wantDeleted &&
          (query.full_name === undefined || `${d.name}.${d.extension}` === query.full_name),
      );
      const offset = Number(query.offset ?? 0);
      const limit = Number(query.limit ?? 100);
      return {
        code: 0,
        desc: '',
        data: { results: list.slice(offset, offset + limit).map(domainView), total: list.length },
      };
    },
    GetDomain: ({ params }) => {
      settleTransfers();
      return { code: 0, desc: '', data: domainView(byId(params.id!)) };
    },
    CreateDomain: ({ body }) => {
      const { name, extension } = body.domain;
      const full = `${name}.${extension}`.toLowerCase();
      const prices = pricesOf(extension);
      requireHandle(body.owner_handle, 'owner');
      for (const role of ['admin', 'tech', 'billing'])
        if (body[`${role}_handle`] !== undefined) requireHandle(body[`${role}_handle`], role);
      const existing = domains.get(full);
      if ((existing && !existing.is_deleted) || isTaken(full) || full.startsWith('reserved-'))
        fail(400, CODES.domainExists, `Domain ${full} already exists`);
      const premium = isPremium(full);
      if (premium && body.accept_premium_fee !== PREMIUM.productCreate)
        fail(
          400,
          CODES.premiumFeeNotAccepted,
          `${full} is a premium domain: accept_premium_fee must be ${PREMIUM.productCreate}`,
        );
      if (!premium && body.accept_premium_fee !== undefined)
        fail(400, CODES.premiumFeeNotAccepted, `${full} is not a premium domain`);
      charge((premium ? PREMIUM.create : prices.create) * body.period, `the registration of ${full}`);
      const created = now();
      const domain: FakeDomain = {
        id: nextId++,
        name,
        extension,
        status: 'ACT',
        created,
        expiration: addYears(created, body.period),
        owner_handle: body.owner_handle,
        admin_handle: body.admin_handle ?? body.owner_handle,
        tech_handle: body.tech_handle ?? body.owner_handle,
        billing_handle: body.billing_handle ?? body.owner_handle,
        name_servers: nameserversOf(body),
        is_locked: true,
        is_private_whois_enabled: body.is_private_whois_enabled === true,
        auth_code: randomBytes(6).toString('base64url'),
        is_deleted: false,
        is_premium: premium,
      };
      domains.set(full, domain);
      return {
        code: 0,
        desc: '',
        data: {
          id: domain.id,
          status: domain.status,
          auth_code: domain.auth_code,
          activation_date: fmt(created),
          expiration_date: fmt(domain.expiration),
          renewal_date: fmt(domain.expiration),
        },
      };
    },
    TransferDomain: ({ body }) => {
      const { name, extension } = body.domain;
      const full = `${name}.${extension}`.toLowerCase();
      const prices = pricesOf(extension);
      requireHandle(body.owner_handle, 'owner');
      const existing = domains.get(full);
      if (existing && !existing.is_deleted && existing.status !== 'FAI')
        fail(400, CODES.domainExists, `Domain ${full} is already in your account`);
      if (!isTaken(full)) fail(400, 368, `Domain ${full} is not registered, so it cannot be transferred`);
      const code = elsewhere.get(full) ?? 'TRANSFER-OK';
      if (body.auth_code !== code) fail(400, CODES.invalidAuthCode, 'The authorization code is invalid');
      charge(isPremium(full) ? PREMIUM.transfer : prices.transfer, `the transfer of ${full}`);
      const created = now();
      const domain: FakeDomain = {
        id: nextId++,
        name,
        extension,
        status: 'REQ',
        created,
        expiration: addYears(created, 1),
        owner_handle: body.owner_handle,
        admin_handle: body.admin_handle ?? body.owner_handle,
        tech_handle: body.tech_handle ?? body.owner_handle,
        billing_handle: body.billing_handle ?? body.owner_handle,
        name_servers: nameserversOf(body),
        is_locked: false,
        is_private_whois_enabled: false,
        auth_code: body.auth_code,
        is_deleted: false,
        is_premium: isPremium(full),
        transferRequestedAt: created,
      };
      domains.set(full, domain);
      return { code: 0, desc: '', data: { id: domain.id, status: 'REQ', expiration_date: fmt(domain.expiration) } };
    },
    UpdateDomain: ({ params, body }) => {
      const d = byId(params.id!);
      if (d.is_deleted) fail(400, 331, 'The domain is deleted');
      for (const role of ['owner', 'admin', 'tech', 'billing'] as const) {
        const handle = body[`${role}_handle`];
        if (handle === undefined) continue;
        requireHandle(handle, role);
        if (role === 'owner' && handle !== d.owner_handle && d.modify_owner_allowed === false)
          fail(400, 399, 'The owner of this domain can only be changed by a trade');
        d[`${role}_handle`] = handle;
      }
      if (body.name_servers !== undefined) d.name_servers = nameserversOf(body);
      if (body.is_locked !== undefined) d.is_locked = body.is_locked;
      if (body.is_private_whois_enabled !== undefined) d.is_private_whois_enabled = body.is_private_whois_enabled;
      return { code: 0, desc: '', data: { id: d.id, status: d.status } };
    },
    DeleteDomain: ({ params }) => {
      const d = byId(params.id!);
      if (d.is_deleted) fail(400, 331, 'The domain is already deleted');
      d.is_deleted = true;
      d.status = 'DEL';
      d.restorable_until = new Date(now().getTime() + 30 * 86_400_000);
      return { code: 0, desc: '', data: { status: 'DEL' } };
    },
    RenewDomain: ({ params, body }) => {
      const d = byId(params.id!);
      if (d.is_deleted || d.status !== 'ACT') fail(400, 360, `The domain cannot be renewed in status ${d.status}`);
      const period = body.period ?? 1;
      charge(
        (d.is_premium ? PREMIUM.renew : pricesOf(d.extension).renew) * period,
        `the renewal of ${d.name}.${d.extension}`,
      );
      d.expiration = addYears(d.expiration, period);
      return { code: 0, desc: '', data: { status: 'ACT' } };
    },
    RestoreDomain: ({ params }) => {
      const d = byId(params.id!);
      if (!d.is_deleted || !d.restorable_until || d.restorable_until < now())
        fail(400, CODES.notRestorable, 'The domain cannot be restored');
      charge(pricesOf(d.extension).restore, `the restore of ${d.name}.${d.extension}`);
      d.is_deleted = false;
      d.status = 'ACT';
      d.restorable_until = undefined;
      d.expiration = addYears(new Date(Math.max(d.expiration.getTime(), now().getTime())), 1);
      return { code: 0, desc: '', data: { status: 'ACT' } };
    },
    GetAuthCode: ({ params }) => {
      const d = byId(params.id!);
      return { code: 0, desc: '', data: { auth_code: d.auth_code, success: true, type: 'external' } };
    },
    ResetAuthCode: ({ params }) => {
      const d = byId(params.id!);
      d.auth_code = randomBytes(6).toString('base64url');
      return { code: 0, desc: '', data: { auth_code: d.auth_code, success: true, type: 'external' } };
    },
    CreateCustomer: ({ body }) => {
      const initials = `${body.name.first_name?.[0] ?? 'X'}${body.name.last_name?.[0] ?? 'X'}`.toUpperCase();
      const handle = `${initials}${String(900000 + customers.size)}-${body.address.country ?? 'XX'}`;
      customers.set(handle, { handle, body });
      return { code: 0, desc: '', data: { handle } };
    },
    GetCustomer: ({ params }) => {
      const customer = customers.get(params.handle!) ?? fail(404, CODES.handleNotFound, 'Customer not found');
      return { code: 0, desc: '', data: { handle: customer.handle, ...customer.body } };
    },
    CreateNameserver: ({ body }) => {
      const name = String(body.name).toLowerCase();
      const parent = [...domains.values()].find((d) => !d.is_deleted && name.endsWith(`.${d.name}.${d.extension}`));
      if (!parent) fail(400, 203, `No domain of yours is the parent of ${name}`);
      if (nameservers.has(name)) fail(400, CODES.nameserverExists, `Nameserver ${name} already exists`);
      nameservers.set(name, { ip: body.ip, ip6: body.ip6 });
      return {
        code: 0,
        desc: '',
        data: { name, ...(body.ip ? { ip: body.ip } : {}), ...(body.ip6 ? { ip6: body.ip6 } : {}) },
      };
    },
    GetNameserver: ({ params }) => {
      const ns = nameservers.get(params.name!) ?? fail(404, CODES.nameserverNotFound, 'Nameserver not found');
      return {
        code: 0,
        desc: '',
        data: { name: params.name, ...(ns.ip ? { ip: ns.ip } : {}), ...(ns.ip6 ? { ip6: ns.ip6 } : {}) },
      };
    },
    UpdateNameserver: ({ params, body }) => {
      if (!nameservers.has(params.name!)) fail(404, CODES.nameserverNotFound, 'Nameserver not found');
      nameservers.set(params.name!, { ip: body.ip, ip6: body.ip6 });
      return { code: 0, desc: '', data: { success: true } };
    },
    DeleteNameserver: ({ params }) => {
      if (!nameservers.delete(params.name!)) fail(404, CODES.nameserverNotFound, 'Nameserver not found');
      return { code: 0, desc: '', data: { success: true } };
    },
    CreateZone: ({ body }) => {
      const name = `${body.domain.name}.${body.domain.extension}`.toLowerCase();
      if (zones.has(name)) fail(400, 815, `Zone ${name} already exists`);
      const records = [
        { name, type: 'SOA', value: `ns1.openprovider.nl dns@openprovider.eu ${Date.now()}`, ttl: 3600, prio: 0 },
        { name, type: 'NS', value: 'ns1.openprovider.nl', ttl: 86400, prio: 0 },
        ...((body.records ?? []) as any[]).map((r) => ({ ...r, name: r.name ? `${r.name}.${name}` : name })),
      ];
      zones.set(name, { id: nextId++, records });
      return { code: 0, desc: '', data: { success: true } };
    },
    GetZone: ({ params }) => {
      const zone = zones.get(params.name!) ?? fail(404, CODES.zoneNotFound, 'Zone not found');
      return {
        code: 0,
        desc: '',
        data: {
          id: zone.id,
          name: params.name,
          type: 'master',
          active: true,
          records: zone.records.map((r) => ({
            name: r.name,
            type: r.type,
            value: r.value,
            ttl: r.ttl,
            prio: r.prio ?? 0,
          })),
        },
      };
    },
    UpdateZone: ({ params, body }) => {
      const zone = zones.get(params.name!) ?? fail(404, CODES.zoneNotFound, 'Zone not found');
      const name = params.name!;
      const full = (r: any) => ({ ...r, name: r.name ? `${r.name}.${name}` : name });
      if (body.records?.replace) {
        const kept = zone.records.filter((r) => r.type === 'SOA' || (r.type === 'NS' && r.name === name));
        zone.records = [...kept, ...body.records.replace.map(full)];
      }
      for (const r of body.records?.add ?? []) zone.records.push(full(r));
      return { code: 0, desc: '', data: { success: true } };
    },
    ListTlds: ({ query }) => {
      const all = Object.entries(TLD_PRICES).map(([name, p]) => ({
        name,
        status: 'ACT',
        min_period: 1,
        max_period: 10,
        prices: {
          create_price: priceGroup(p.create),
          renew_price: priceGroup(p.renew),
          transfer_price: priceGroup(p.transfer),
          restore_price: priceGroup(p.restore),
        },
      }));
      const offset = Number(query.offset ?? 0);
      const limit = Number(query.limit ?? 100);
      return { code: 0, desc: '', data: { results: all.slice(offset, offset + limit), total: all.length } };
    },
  };

  /** Ajv's findings as the vendor words them: where, what, and the unknown field's name. */
  function violations(validate: ValidateFunction, what: string): string[] {
    return (validate.errors ?? []).map((e) => {
      const field = (e.params as { additionalProperty?: string }).additionalProperty;
      return `${what}${e.instancePath || ''} ${e.message}${field ? `: ${field}` : ''}`;
    });
  }

  function checkQuery(op: VendorOperation, url: URL): string[] {
    const problems: string[] = [];
    for (const key of new Set(url.searchParams.keys())) {
      const spec = op.query[key];
      if (!spec) {
        problems.push(`unknown query parameter ${key}`);
        continue;
      }
      const values = url.searchParams.getAll(key);
      if (spec.type !== 'array' && values.length > 1)
        problems.push(`query parameter ${key} is given ${values.length} times`);
      const type = spec.type === 'array' ? spec.items : spec.type;
      for (const v of values) {
        if (type === 'integer' && !/^-?\d+$/.test(v)) problems.push(`query parameter ${key} must be an integer`);
        if (type === 'boolean' && v !== 'true' && v !== 'false')
          problems.push(`query parameter ${key} must be true or false`);
      }
    }
    return problems;
  }

  function answer(res: ServerResponse, op: VendorOperation | undefined, status: number, json: object, headers = {}) {
    if (op) {
      const name = status === 200 ? op.response : op.error;
      const validate = validator(name);
      if (!validate(json))
        answerViolations.push(
          `${op.id} ${status}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(json).slice(0, 300)}`,
        );
    }
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(json));
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.startsWith(BASE_PATH) ? url.pathname : '';
    const route = routes.find((r) => r.op.method === req.method && r.pattern.test(path));
    if (!route) {
      requestViolations.push(`${req.method} ${url.pathname}: no such operation in the document`);
      return answer(res, undefined, 404, { code: 404, desc: 'Not Found' });
    }
    const { op } = route;
    const match = route.pattern.exec(path)!;
    const params = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)]));
    const query: Record<string, any> = {};
    for (const key of new Set(url.searchParams.keys())) {
      const values = url.searchParams.getAll(key);
      query[key] = op.query[key]?.type === 'array' ? values : values[0];
    }
    const recordCall = (status: number, body: any) =>
      calls.push({ operation: op.id, method: req.method!, path: url.pathname, query, body, status });

    // Validation, as the vendor's gateway does it, before anything else.
    const problems = checkQuery(op, url);
    for (const p of op.pathParams)
      if (p.type === 'integer' && !/^\d+$/.test(params[p.name]!))
        problems.push(`path parameter ${p.name} must be an integer`);
    let body: any;
    if (op.body) {
      try {
        body = JSON.parse(raw);
      } catch {
        problems.push('the body is not JSON');
      }
      if (body !== undefined) {
        const validate = validator(op.body);
        if (!validate(body)) problems.push(...violations(validate, 'body'));
      }
    } else if (raw.trim() !== '') problems.push('this operation takes no body');
    if (problems.length > 0) {
      requestViolations.push(`${op.id}: ${problems.join('; ')}`);
      recordCall(400, body);
      return answer(res, op, 400, { code: CODES.invalidRequest, desc: `Invalid request: ${problems.join('; ')}` });
    }

    const fault = faults.get(op.id)?.shift();
    if (fault?.kind === 'expire-token') tokens.clear();
    if (op.id !== 'Login') {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token || !tokens.has(token)) {
        recordCall(401, body);
        return answer(res, op, 401, { code: CODES.authentication, desc: 'Authentication/Authorization Failed' });
      }
    }
    if (fault?.kind === '429') {
      recordCall(429, body);
      return answer(
        res,
        undefined,
        429,
        { code: 429, desc: 'Too many requests' },
        {
          'retry-after': String(fault.retryAfterSeconds ?? 1),
        },
      );
    }
    if (fault?.kind === '5xx') {
      recordCall(500, body);
      return answer(res, op, 500, { code: CODES.internal, desc: 'Internal error, please try again later' });
    }
    if (fault?.kind === 'html-502') {
      recordCall(502, body);
      res.writeHead(502, { 'content-type': 'text/html' });
      return res.end('<html><body>502 Bad Gateway</body></html>');
    }

    let status = 200;
    let json: object;
    try {
      json = handlers[op.id]!({ params, query, body });
    } catch (error) {
      if (!(error instanceof VendorError)) throw error;
      status = error.status;
      json = { code: error.code, desc: error.desc };
    }
    recordCall(status, body);
    fault?.onActed?.();
    if (fault?.kind === 'lost') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'slow') await new Promise((r) => setTimeout(r, fault.ms ?? 1_000));
    answer(res, op, status, json);
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error) => {
        answerViolations.push(`the fake failed: ${(error as Error).stack}`);
        if (!res.headersSent) answer(res, undefined, 500, { code: CODES.internal, desc: 'fake failure' });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    domains,
    customers,
    zones,
    nameservers,
    elsewhere,
    calls,
    requestViolations,
    answerViolations,
    account,
    fault(operation, ...list) {
      if (!OPERATIONS.some((o) => o.id === operation)) throw new Error(`no operation ${operation}`);
      faults.set(operation, [...(faults.get(operation) ?? []), ...list]);
    },
    completeTransfer(domain, outcome = 'ACT') {
      const d = domains.get(domain);
      if (d?.status !== 'REQ') throw new Error(`no requested transfer of ${domain}`);
      d.transferOutcome = outcome;
      settleTransfers();
    },
    expireTokens: () => tokens.clear(),
    callsOf: (operation) => calls.filter((c) => c.operation === operation),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
