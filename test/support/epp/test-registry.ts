import { isIP } from 'node:net';
import { LOGIN_SECURITY_SENTINEL } from '../../../plugins/epp/src/frames';
import { child, childText, children, el, NS, type XmlElement, type XmlNode } from '../../../plugins/epp/src/xml';

/** RFC 5730 section 3 messages. */
export const RESULT_MESSAGES: Record<number, string> = {
  1000: 'Command completed successfully',
  1001: 'Command completed successfully; action pending',
  1300: 'Command completed successfully; no messages',
  1301: 'Command completed successfully; ack to dequeue',
  1500: 'Command completed successfully; ending session',
  2000: 'Unknown command',
  2001: 'Command syntax error',
  2002: 'Command use error',
  2003: 'Required parameter missing',
  2004: 'Parameter value range error',
  2005: 'Parameter value syntax error',
  2100: 'Unimplemented protocol version',
  2101: 'Unimplemented command',
  2102: 'Unimplemented option',
  2103: 'Unimplemented extension',
  2104: 'Billing failure',
  2105: 'Object is not eligible for renewal',
  2106: 'Object is not eligible for transfer',
  2200: 'Authentication error',
  2201: 'Authorization error',
  2202: 'Invalid authorization information',
  2300: 'Object pending transfer',
  2301: 'Object not pending transfer',
  2302: 'Object exists',
  2303: 'Object does not exist',
  2304: 'Object status prohibits operation',
  2305: 'Object association prohibits operation',
  2306: 'Parameter value policy error',
  2307: 'Unimplemented object service',
  2308: 'Data management policy violation',
  2400: 'Command failed',
  2500: 'Command failed; server closing connection',
  2501: 'Authentication error; server closing connection',
  2502: 'Session limit exceeded; server closing connection',
};

export interface DomainRecord {
  name: string;
  roid: string;
  sponsor: string;
  creator: string;
  createdAt: Date;
  updatedAt?: Date;
  expiresAt: Date;
  transferredAt?: Date;
  statuses: Set<string>;
  rgp: Set<string>;
  registrant?: string;
  contacts: Array<{ type: string; id: string }>;
  hostObjects: string[];
  hostAttributes: string[];
  authInfo: string;
  dsRecords: Array<{ keyTag: string; alg: string; digestType: string; digest: string }>;
  transfer?: {
    status: string;
    requestedBy: string;
    requestedAt: Date;
    actingRegistrar: string;
    actBy: Date;
    years: number;
  };
  pendingCreateTrid?: string;
}

export interface HostRecord {
  name: string;
  roid: string;
  sponsor: string;
  createdAt: Date;
  addresses: Array<{ ip: string; address: string }>;
}
export interface ContactRecord {
  id: string;
  roid: string;
  sponsor: string;
  createdAt: Date;
  data: XmlElement;
  authInfo: string;
}
interface QueuedMessage {
  id: string;
  date: Date;
  text: string;
  resData?: XmlNode;
}

/** What a command handler answers: the result and any data; the server adds trID. */
export interface Answer {
  readonly code: number;
  readonly reason?: { readonly value: XmlNode; readonly text: string };
  readonly resData?: XmlNode;
  readonly extension?: readonly XmlNode[];
  readonly msgQ?: { readonly count: number; readonly id: string; readonly date?: Date; readonly text?: string };
}

export interface SessionState {
  clientId?: string;
  objects: Set<string>;
  extensions: Set<string>;
}

export interface TestRegistryOptions {
  /** TLDs the registry serves (without dots). Default: test, example. */
  readonly tlds?: readonly string[];
  /** Registrars: client id → password. Default: registrar-a/password-a and registrar-b/password-b. */
  readonly registrars?: Readonly<Record<string, string>>;
  /** Offer host objects (else only host attributes). Default true. */
  readonly hostObjects?: boolean;
  /** Offer contact objects (a "thin" registry offers none). Default true. */
  readonly contacts?: boolean;
  readonly extensions?: readonly string[];
  /** Names refused as reserved. */
  readonly reserved?: readonly string[];
  /** Most names one check may carry. Default 5. */
  readonly maxCheckNames?: number;
  /** RFC 3915: a restore request leaves the domain in pendingRestore until a report. Default false. */
  readonly requireRestoreReport?: boolean;
  /**
   * Auth info codes set by a client (contact and domain create, domain update) must have this many
   * printable ASCII characters, as registries with secure authinfo (RFC 9154) demand. Default 20 to 64.
   */
  readonly authInfoLength?: { readonly min: number; readonly max: number };
  /** Like some registries: ignore `hosts="all"` and never list subordinate hosts in `<domain:infData>`. */
  readonly omitsSubordinateHosts?: boolean;
  /**
   * Like an independently written registry: the loginSec passwords are read only as unprefixed
   * `<pw>` / `<newPW>` children (a default namespace); prefixed ones go unseen, and the
   * `[LOGIN-SECURITY]` placeholder in `<pw>` is then taken for the password itself.
   */
  readonly loginSecUnprefixedOnly?: boolean;
  readonly now?: () => Date;
}

const err = (code: number, text?: string, value?: XmlNode): Answer => ({
  code,
  reason: text ? { value: value ?? el('domain:name', '-'), text } : undefined,
});
const ok = (resData?: XmlNode, extension?: XmlNode[]): Answer => ({ code: 1000, resData, extension });
const iso = (d: Date) => d.toISOString();
const addYears = (d: Date, years: number) => {
  const n = new Date(d);
  n.setUTCFullYear(n.getUTCFullYear() + years);
  return n;
};

/**
 * A small, stateful registry behind the EPP test server: domains, hosts, contacts, transfers,
 * RGP, DS records and a poll queue per registrar, with the rules real registries enforce
 * (sponsorship, statuses, associations, auth codes). Test helpers act as the registry operator
 * and the other registrars (approve a transfer, take a domain away, purge a deletion).
 *
 * Test names: an SLD starting `pending-` is created pending (1001) until `completePendingCreate`;
 * one starting `policy-` is refused with 2306 and the registry's reason.
 *
 * Login as registries enforce it: `<pw>` and `<newPW>` of 6 to 16 characters (RFC 5730), longer
 * ones only through the Login Security extension (RFC 8807) when the registry offers it (list
 * its URI in `extensions`).
 */
export class TestRegistry {
  readonly domains = new Map<string, DomainRecord>();
  /** Every successful login, with the services it chose. */
  readonly logins: Array<{ clientId: string; objects: string[]; extensions: string[] }> = [];
  readonly hosts = new Map<string, HostRecord>();
  readonly contacts = new Map<string, ContactRecord>();
  private readonly queues = new Map<string, QueuedMessage[]>();
  private readonly passwords: Map<string, string>;
  private serial = 1;
  readonly tlds: readonly string[];
  readonly offersHostObjects: boolean;
  readonly offersContacts: boolean;
  readonly extensions: readonly string[];
  private readonly reserved: Set<string>;
  readonly maxCheckNames: number;
  private readonly requireRestoreReport: boolean;
  private readonly authInfoLength: { readonly min: number; readonly max: number };
  private readonly omitsSubordinateHosts: boolean;
  private readonly loginSecUnprefixedOnly: boolean;
  readonly now: () => Date;

  constructor(options: TestRegistryOptions = {}) {
    this.tlds = options.tlds ?? ['test', 'example'];
    this.passwords = new Map(
      Object.entries(options.registrars ?? { 'registrar-a': 'password-a', 'registrar-b': 'password-b' }),
    );
    this.offersHostObjects = options.hostObjects ?? true;
    this.offersContacts = options.contacts ?? true;
    this.extensions = options.extensions ?? [NS.secDNS, NS.rgp];
    this.reserved = new Set(options.reserved ?? []);
    this.maxCheckNames = options.maxCheckNames ?? 5;
    this.requireRestoreReport = options.requireRestoreReport ?? false;
    this.authInfoLength = options.authInfoLength ?? { min: 20, max: 64 };
    this.omitsSubordinateHosts = options.omitsSubordinateHosts ?? false;
    this.loginSecUnprefixedOnly = options.loginSecUnprefixedOnly ?? false;
    this.now = options.now ?? (() => new Date());
  }

  get objectUris(): string[] {
    return [NS.domain, ...(this.offersHostObjects ? [NS.host] : []), ...(this.offersContacts ? [NS.contact] : [])];
  }

  // ---- operator and other-registrar helpers for tests ----

  /** Puts a domain into the registry as if registered earlier (by us or by another registrar). */
  seedDomain(
    name: string,
    init: { sponsor: string; authInfo?: string; expiresAt?: Date; statuses?: string[]; hostObjects?: string[] },
  ): DomainRecord {
    const now = this.now();
    const record: DomainRecord = {
      name,
      roid: this.roid('D'),
      sponsor: init.sponsor,
      creator: init.sponsor,
      createdAt: now,
      expiresAt: init.expiresAt ?? addYears(now, 1),
      statuses: new Set(init.statuses ?? []),
      rgp: new Set(),
      contacts: [],
      hostObjects: init.hostObjects ?? [],
      hostAttributes: [],
      authInfo: init.authInfo ?? 'Seeded#Auth1',
      dsRecords: [],
    };
    for (const h of record.hostObjects)
      if (!this.hosts.has(h))
        this.hosts.set(h, { name: h, roid: this.roid('H'), sponsor: init.sponsor, createdAt: now, addresses: [] });
    this.domains.set(name, record);
    return record;
  }

  /** The losing registrar or the registry settles a pending transfer; both sides get a poll message. */
  resolveTransfer(
    name: string,
    status: 'clientApproved' | 'serverApproved' | 'clientRejected' | 'clientCancelled' | 'serverCancelled',
  ): void {
    const d = this.mustGet(name);
    if (d.transfer?.status !== 'pending') throw new Error(`${name} has no pending transfer`);
    const losing = d.sponsor;
    d.transfer.status = status;
    d.transfer.actBy = this.now();
    d.statuses.delete('pendingTransfer');
    if (status === 'clientApproved' || status === 'serverApproved') {
      d.sponsor = d.transfer.requestedBy;
      d.expiresAt = addYears(d.expiresAt, d.transfer.years);
      d.transferredAt = this.now();
      d.authInfo = `Moved#${this.serial++}x`;
      for (const s of [...d.statuses]) if (s.startsWith('client')) d.statuses.delete(s);
    }
    const text = `Transfer ${status.replace(/^(client|server)/, '').toLowerCase()}.`;
    this.enqueue(d.transfer.requestedBy, text, this.trnData(d));
    if (losing !== d.transfer.requestedBy) this.enqueue(losing, text, this.trnData(d));
  }

  /** Another registrar takes the domain (a transfer requested elsewhere and approved). */
  transferAway(name: string, to: string): void {
    const d = this.mustGet(name);
    d.transfer = {
      status: 'pending',
      requestedBy: to,
      requestedAt: this.now(),
      actingRegistrar: d.sponsor,
      actBy: addYears(this.now(), 0),
      years: 1,
    };
    d.statuses.add('pendingTransfer');
    this.resolveTransfer(name, 'serverApproved');
  }

  /** Ends the redemption period: the domain is gone. */
  purge(name: string): void {
    this.mustGet(name);
    this.domains.delete(name);
  }

  /** A pending create is settled; the sponsor is told with a panData poll message. */
  completePendingCreate(name: string, isApproved: boolean): void {
    const d = this.mustGet(name);
    d.statuses.delete('pendingCreate');
    const pan = el(
      'domain:panData',
      el('domain:name', { paResult: isApproved ? '1' : '0' }, name),
      el(
        'domain:paTRID',
        d.pendingCreateTrid ? el('clTRID', d.pendingCreateTrid) : null,
        el('svTRID', `SV-PAN-${this.serial++}`),
      ),
      el('domain:paDate', iso(this.now())),
    );
    if (!isApproved) this.domains.delete(name);
    this.enqueue(d.sponsor, isApproved ? 'Pending create approved.' : 'Pending create rejected.', pan);
  }

  /** The password the registry now holds for a registrar. */
  passwordOf(clientId: string): string | undefined {
    return this.passwords.get(clientId);
  }

  queueLength(clientId: string): number {
    return this.queues.get(clientId)?.length ?? 0;
  }

  // ---- the protocol ----

  login(session: SessionState, cmd: XmlElement, extension?: XmlElement): Answer & { close?: boolean } {
    if (session.clientId) return err(2002, 'Already logged in', el('clID', session.clientId));
    const clientId = childText(cmd, NS.epp, 'clID') ?? '';
    const options = child(cmd, NS.epp, 'options');
    if (childText(options, NS.epp, 'version') !== '1.0') return { code: 2100 };
    const svcs = child(cmd, NS.epp, 'svcs');
    const objects = children(svcs, NS.epp, 'objURI').map((o) => o.text.trim());
    const extensions = children(child(svcs, NS.epp, 'svcExtension'), NS.epp, 'extURI').map((o) => o.text.trim());
    const unknownObject = objects.find((o) => !this.objectUris.includes(o));
    if (unknownObject) return err(2307, `${unknownObject} is not offered`, el('objURI', unknownObject));
    const unknownExt = extensions.find((e) => !this.extensions.includes(e));
    if (unknownExt) return err(2103, `${unknownExt} is not offered`, el('extURI', unknownExt));
    const loginSec = child(extension, NS.loginSec, 'loginSec');
    if (loginSec && !extensions.includes(NS.loginSec))
      return err(2103, 'loginSec is used but not listed in svcExtension', el('extURI', NS.loginSec));
    const password = this.loginPassword(cmd, loginSec, 'pw');
    if (typeof password !== 'string') return password ?? { code: 2003 };
    const newPassword = this.loginPassword(cmd, loginSec, 'newPW');
    if (typeof newPassword !== 'string' && newPassword !== undefined) return newPassword;
    if (this.passwords.get(clientId) !== password) return { code: 2200 };
    if (newPassword) this.passwords.set(clientId, newPassword);
    session.clientId = clientId;
    this.logins.push({ clientId, objects, extensions });
    session.objects = new Set(objects);
    session.extensions = new Set(extensions);
    return ok();
  }

  /** The password the client means by `<pw>` or `<newPW>`: itself, or the loginSec one behind RFC 8807's sentinel. */
  private loginPassword(
    cmd: XmlElement,
    loginSec: XmlElement | undefined,
    name: 'pw' | 'newPW',
  ): string | Answer | undefined {
    const plain = childText(cmd, NS.epp, name);
    if (this.loginSecUnprefixedOnly) {
      const unprefixed = loginSec?.children.find((c) => c.ns === NS.loginSec && c.qname === name);
      return plain === LOGIN_SECURITY_SENTINEL && unprefixed ? unprefixed.text.trim() : plain;
    }
    const secured = childText(loginSec, NS.loginSec, name);
    if (plain === LOGIN_SECURITY_SENTINEL) {
      if (secured === undefined)
        return err(2003, `<${name}> says [LOGIN-SECURITY] but <loginSec:${name}> is missing`, el(name, plain));
      return secured;
    }
    if (secured !== undefined)
      return err(2306, `<loginSec:${name}> is given but <${name}> is not [LOGIN-SECURITY]`, el(name, '-'));
    if (plain !== undefined && (plain.length < 6 || plain.length > 16))
      return err(
        2306,
        plain.length > 16
          ? `Password length exceeds 16 characters without loginSec extension`
          : 'Password shorter than 6 characters',
        el(name, '-'),
      );
    return plain;
  }

  /** RFC 9154-style policy on the auth info codes clients set; undefined when the code is acceptable. */
  private authInfoRefusal(code: string | undefined, value: XmlNode): Answer | undefined {
    if (code === undefined) return undefined;
    const { min, max } = this.authInfoLength;
    if (code.length < min || code.length > max || !/^[\x21-\x7e]+$/.test(code))
      return err(2306, `Auth info must be ${min} to ${max} printable ASCII characters`, value);
    return undefined;
  }

  poll(session: SessionState, poll: XmlElement): Answer {
    const queue = this.queues.get(session.clientId!) ?? [];
    if (poll.attrs.op === 'req') {
      const head = queue[0];
      if (!head) return { code: 1300 };
      return {
        code: 1301,
        msgQ: { count: queue.length, id: head.id, date: head.date, text: head.text },
        resData: head.resData,
      };
    }
    const i = queue.findIndex((m) => m.id === poll.attrs.msgID);
    if (i < 0) return err(2303, 'No such message', el('msgID', poll.attrs.msgID ?? ''));
    queue.splice(i, 1);
    return { code: 1000, msgQ: { count: queue.length, id: queue[0]?.id ?? poll.attrs.msgID ?? '0' } };
  }

  /** One object command; `verb` is check/create/info/…, `op` the transfer operation. */
  execute(
    session: SessionState,
    verb: string,
    object: XmlElement,
    extension: XmlElement | undefined,
    op: string | undefined,
    clTRID: string | undefined,
  ): Answer {
    const client = session.clientId!;
    if (!session.objects.has(object.ns))
      return err(2307, `${object.ns} was not chosen at login`, el('objURI', object.ns));
    for (const ext of extension?.children ?? [])
      if (!session.extensions.has(ext.ns)) return err(2103, `${ext.ns} was not chosen at login`, el('extURI', ext.ns));
    if (object.ns === NS.domain) return this.domainCommand(client, session, verb, object, extension, op, clTRID);
    if (object.ns === NS.host) return this.hostCommand(client, verb, object);
    if (object.ns === NS.contact) return this.contactCommand(client, verb, object);
    return { code: 2000 };
  }

  // ---- domains ----

  private domainCommand(
    client: string,
    session: SessionState,
    verb: string,
    o: XmlElement,
    ext: XmlElement | undefined,
    op: string | undefined,
    clTRID: string | undefined,
  ): Answer {
    const names = children(o, NS.domain, 'name').map((n) => n.text.trim().toLowerCase());
    const name = names[0] ?? '';
    if (verb === 'check') {
      if (names.length > this.maxCheckNames)
        return err(
          2306,
          `At most ${this.maxCheckNames} names per check`,
          el('domain:name', names[this.maxCheckNames]!),
        );
      // Like registries: one name the registry cannot parse fails the whole command, naming it.
      const malformed = names.find((n) => !isDomainSyntax(n));
      if (malformed) return err(2005, `Invalid domain name syntax: ${malformed}`, el('domain:name', malformed));
      return ok(
        el(
          'domain:chkData',
          names.map((n) => {
            const why = this.unavailableReason(n);
            return el(
              'domain:cd',
              el('domain:name', { avail: why ? '0' : '1' }, n),
              why ? el('domain:reason', why) : null,
            );
          }),
        ),
      );
    }
    if (verb === 'create') return this.domainCreate(client, o, ext, clTRID);
    const d = this.domains.get(name);
    if (!d) return err(2303, `${name} is not registered`, el('domain:name', name));
    const isSponsor = d.sponsor === client;
    const nameValue = el('domain:name', name);
    switch (verb) {
      case 'info': {
        const given = childText(child(o, NS.domain, 'authInfo'), NS.domain, 'pw');
        if (!isSponsor && given !== d.authInfo) return err(2201, 'Not the sponsoring registrar', nameValue);
        return ok(this.infData(d, isSponsor), this.infExtensions(d, session));
      }
      case 'renew': {
        if (!isSponsor) return err(2201, 'Not the sponsoring registrar', nameValue);
        if (
          d.statuses.has('pendingDelete') ||
          d.statuses.has('clientRenewProhibited') ||
          d.statuses.has('serverRenewProhibited')
        )
          return err(2304, 'The domain status prohibits renewal', nameValue);
        const cur = childText(o, NS.domain, 'curExpDate');
        if (cur !== iso(d.expiresAt).slice(0, 10))
          return err(2004, `curExpDate must be ${iso(d.expiresAt).slice(0, 10)}`, el('domain:curExpDate', cur ?? ''));
        const years = Number(childText(o, NS.domain, 'period') ?? 1);
        const next = addYears(d.expiresAt, years);
        if (next > addYears(this.now(), 10))
          return err(
            2306,
            'A registration cannot run more than 10 years ahead',
            el('domain:period', { unit: 'y' }, String(years)),
          );
        d.expiresAt = next;
        d.rgp.add('renewPeriod');
        return ok(el('domain:renData', el('domain:name', name), el('domain:exDate', iso(d.expiresAt))));
      }
      case 'transfer':
        return this.domainTransfer(client, d, o, op);
      case 'update':
        return this.domainUpdate(client, d, o, ext);
      case 'delete': {
        if (!isSponsor) return err(2201, 'Not the sponsoring registrar', nameValue);
        if (d.statuses.has('pendingDelete')) return err(2304, 'The domain is already deleted', nameValue);
        if (['clientDeleteProhibited', 'serverDeleteProhibited'].some((s) => d.statuses.has(s)))
          return err(2304, 'The domain status prohibits deletion', nameValue);
        const children_ = [...this.hosts.values()].filter((h) => h.name.endsWith(`.${name}`));
        if (children_.length)
          return err(
            2305,
            `Delete the child nameservers first (${children_.map((h) => h.name).join(', ')})`,
            nameValue,
          );
        d.statuses = new Set(['pendingDelete']);
        d.rgp = new Set(['redemptionPeriod']);
        d.updatedAt = this.now();
        return ok();
      }
      default:
        return { code: 2101 };
    }
  }

  private unavailableReason(name: string): string | undefined {
    if (this.reserved.has(name)) return 'Reserved';
    if (this.domains.has(name)) return 'In use';
    if (!this.tlds.includes(name.split('.').slice(1).join('.'))) return 'TLD not served';
    return undefined;
  }

  private domainCreate(client: string, o: XmlElement, ext: XmlElement | undefined, clTRID: string | undefined): Answer {
    const name = (childText(o, NS.domain, 'name') ?? '').toLowerCase();
    const nameValue = el('domain:name', name);
    const [sld = '', ...rest] = name.split('.');
    if (!this.tlds.includes(rest.join('.'))) return err(2306, 'This registry does not serve that TLD', nameValue);
    if (!/^(?!-)[a-z0-9-]{1,63}(?<!-)$/.test(sld)) return err(2005, 'Invalid label', nameValue);
    if (this.domains.has(name)) return err(2302, 'The domain is registered', nameValue);
    if (this.reserved.has(name)) return err(2306, 'The name is reserved', nameValue);
    if (sld.startsWith('policy-')) return err(2306, 'Names starting with policy- are not allowed here', nameValue);
    const years = Number(childText(o, NS.domain, 'period') ?? 1);
    if (years < 1 || years > 10)
      return err(2004, 'Periods are 1 to 10 years', el('domain:period', { unit: 'y' }, String(years)));
    const badAuth = this.authInfoRefusal(childText(child(o, NS.domain, 'authInfo'), NS.domain, 'pw') ?? '', nameValue);
    if (badAuth) return badAuth;
    const ns = child(o, NS.domain, 'ns');
    const hostObjects = children(ns, NS.domain, 'hostObj').map((h) => h.text.trim().toLowerCase());
    const hostAttributes = children(ns, NS.domain, 'hostAttr').map((h) =>
      (childText(h, NS.domain, 'hostName') ?? '').toLowerCase(),
    );
    if (hostAttributes.length && this.offersHostObjects) return err(2306, 'This registry uses host objects', nameValue);
    const missingHost = hostObjects.find((h) => !this.hosts.has(h));
    if (missingHost) return err(2303, `Host ${missingHost} does not exist`, el('domain:hostObj', missingHost));
    const registrant = childText(o, NS.domain, 'registrant');
    const contacts = children(o, NS.domain, 'contact').map((c) => ({ type: c.attrs.type ?? '', id: c.text.trim() }));
    if (this.offersContacts) {
      if (!registrant) return err(2003, 'A registrant is required', nameValue);
      for (const type of ['admin', 'tech'])
        if (!contacts.some((c) => c.type === type)) return err(2003, `An ${type} contact is required`, nameValue);
      const missing = [registrant, ...contacts.map((c) => c.id)].find((id) => !this.contacts.has(id));
      if (missing) return err(2303, `Contact ${missing} does not exist`, el('domain:registrant', missing));
    }
    const now = this.now();
    const d: DomainRecord = {
      name,
      roid: this.roid('D'),
      sponsor: client,
      creator: client,
      createdAt: now,
      expiresAt: addYears(now, years),
      statuses: new Set(sld.startsWith('pending-') ? ['pendingCreate'] : []),
      rgp: new Set(['addPeriod']),
      registrant,
      contacts,
      hostObjects,
      hostAttributes,
      authInfo: childText(child(o, NS.domain, 'authInfo'), NS.domain, 'pw') ?? '',
      dsRecords: this.dsFrom(child(ext, NS.secDNS, 'create')),
      pendingCreateTrid: clTRID,
    };
    this.domains.set(name, d);
    const creData = el(
      'domain:creData',
      el('domain:name', name),
      el('domain:crDate', iso(now)),
      el('domain:exDate', iso(d.expiresAt)),
    );
    return { code: d.statuses.has('pendingCreate') ? 1001 : 1000, resData: creData };
  }

  private domainTransfer(client: string, d: DomainRecord, o: XmlElement, op: string | undefined): Answer {
    const nameValue = el('domain:name', d.name);
    if (op === 'query') {
      if (!d.transfer) return err(2301, 'No transfer on record', nameValue);
      if (d.sponsor !== client && d.transfer.requestedBy !== client)
        return err(2201, 'Not a party to the transfer', nameValue);
      return ok(this.trnData(d));
    }
    if (op !== 'request') return { code: 2101 };
    if (d.sponsor === client) return err(2106, 'You already sponsor this domain', nameValue);
    if (childText(child(o, NS.domain, 'authInfo'), NS.domain, 'pw') !== d.authInfo) return { code: 2202 };
    if (d.statuses.has('pendingTransfer')) return { code: 2300 };
    if (['clientTransferProhibited', 'serverTransferProhibited', 'pendingDelete'].some((s) => d.statuses.has(s)))
      return err(2304, 'The domain status prohibits transfer', nameValue);
    const years = Number(childText(o, NS.domain, 'period') ?? 1);
    d.transfer = {
      status: 'pending',
      requestedBy: client,
      requestedAt: this.now(),
      actingRegistrar: d.sponsor,
      actBy: new Date(this.now().getTime() + 5 * 86_400_000),
      years,
    };
    d.statuses.add('pendingTransfer');
    this.enqueue(d.sponsor, 'Transfer requested.', this.trnData(d));
    return { code: 1001, resData: this.trnData(d) };
  }

  private domainUpdate(client: string, d: DomainRecord, o: XmlElement, ext: XmlElement | undefined): Answer {
    const nameValue = el('domain:name', d.name);
    if (d.sponsor !== client) return err(2201, 'Not the sponsoring registrar', nameValue);
    const add = child(o, NS.domain, 'add');
    const rem = child(o, NS.domain, 'rem');
    const chg = child(o, NS.domain, 'chg');
    const restore = child(child(ext, NS.rgp, 'update'), NS.rgp, 'restore');
    const statusesOf = (x: XmlElement | undefined) => children(x, NS.domain, 'status').map((s) => s.attrs.s ?? '');
    if (restore) {
      if (restore.attrs.op === 'request') {
        if (!d.rgp.has('redemptionPeriod')) return err(2304, 'The domain is not in its redemption period', nameValue);
        if (this.requireRestoreReport) {
          d.rgp = new Set(['pendingRestore']);
        } else {
          d.rgp = new Set();
          d.statuses.delete('pendingDelete');
        }
      } else {
        if (!d.rgp.has('pendingRestore')) return err(2304, 'No restore is waiting for a report', nameValue);
        if (!child(restore, NS.rgp, 'report')) return err(2003, 'The report is missing', nameValue);
        d.rgp = new Set();
        d.statuses.delete('pendingDelete');
      }
      d.updatedAt = this.now();
      return ok(undefined, [
        el('rgp:upData', el('rgp:rgpStatus', { s: d.rgp.has('pendingRestore') ? 'pendingRestore' : 'addPeriod' })),
      ]);
    }
    if (d.statuses.has('pendingDelete')) return err(2304, 'The domain is deleted; restore it first', nameValue);
    const removing = new Set(statusesOf(rem));
    if (
      (d.statuses.has('clientUpdateProhibited') && !removing.has('clientUpdateProhibited')) ||
      d.statuses.has('serverUpdateProhibited')
    ) {
      return err(2304, 'The domain status prohibits updates', nameValue);
    }
    for (const s of [...statusesOf(add), ...removing])
      if (!s.startsWith('client'))
        return err(2306, `Registrars may only set client statuses, not ${s}`, el('domain:status', { s }));
    const addHosts = children(child(add, NS.domain, 'ns'), NS.domain, 'hostObj').map((h) =>
      h.text.trim().toLowerCase(),
    );
    const remHosts = children(child(rem, NS.domain, 'ns'), NS.domain, 'hostObj').map((h) =>
      h.text.trim().toLowerCase(),
    );
    const missingHost = addHosts.find((h) => !this.hosts.has(h));
    if (missingHost) return err(2303, `Host ${missingHost} does not exist`, el('domain:hostObj', missingHost));
    const already = addHosts.find((h) => d.hostObjects.includes(h));
    if (already) return err(2302, `${already} is already a nameserver of the domain`, el('domain:hostObj', already));
    const notThere = remHosts.find((h) => !d.hostObjects.includes(h));
    if (notThere) return err(2303, `${notThere} is not a nameserver of the domain`, el('domain:hostObj', notThere));
    const addAttrs = children(child(add, NS.domain, 'ns'), NS.domain, 'hostAttr').map((h) =>
      (childText(h, NS.domain, 'hostName') ?? '').toLowerCase(),
    );
    const remAttrs = children(child(rem, NS.domain, 'ns'), NS.domain, 'hostAttr').map((h) =>
      (childText(h, NS.domain, 'hostName') ?? '').toLowerCase(),
    );
    const addContacts = children(add, NS.domain, 'contact').map((c) => ({
      type: c.attrs.type ?? '',
      id: c.text.trim(),
    }));
    const remContacts = children(rem, NS.domain, 'contact').map((c) => ({
      type: c.attrs.type ?? '',
      id: c.text.trim(),
    }));
    const newRegistrant = childText(chg, NS.domain, 'registrant');
    const missingContact = [...addContacts.map((c) => c.id), ...(newRegistrant ? [newRegistrant] : [])].find(
      (id) => !this.contacts.has(id),
    );
    if (missingContact)
      return err(2303, `Contact ${missingContact} does not exist`, el('domain:registrant', missingContact));
    // Applied only once every check passed: an EPP command is all or nothing.
    d.hostObjects = [...d.hostObjects.filter((h) => !remHosts.includes(h)), ...addHosts];
    d.hostAttributes = [...d.hostAttributes.filter((h) => !remAttrs.includes(h)), ...addAttrs];
    d.contacts = [
      ...d.contacts.filter((c) => !remContacts.some((r) => r.type === c.type && r.id === c.id)),
      ...addContacts,
    ];
    for (const s of removing) d.statuses.delete(s);
    for (const s of statusesOf(add)) d.statuses.add(s);
    if (newRegistrant) d.registrant = newRegistrant;
    const newAuth = childText(child(chg, NS.domain, 'authInfo'), NS.domain, 'pw');
    const badAuth = this.authInfoRefusal(newAuth, el('domain:name', d.name));
    if (badAuth) return badAuth;
    if (newAuth) d.authInfo = newAuth;
    const sec = child(ext, NS.secDNS, 'update');
    if (sec) {
      if (childText(child(sec, NS.secDNS, 'rem'), NS.secDNS, 'all') === 'true') d.dsRecords = [];
      d.dsRecords.push(...this.dsFrom(child(sec, NS.secDNS, 'add')));
    }
    d.updatedAt = this.now();
    return ok();
  }

  private infData(d: DomainRecord, isSponsor: boolean): XmlNode {
    const statuses = d.statuses.size ? [...d.statuses] : ['ok'];
    return el(
      'domain:infData',
      el('domain:name', d.name),
      el('domain:roid', d.roid),
      statuses.map((s) => el('domain:status', { s })),
      d.registrant ? el('domain:registrant', d.registrant) : null,
      d.contacts.map((c) => el('domain:contact', { type: c.type }, c.id)),
      d.hostObjects.length
        ? el(
            'domain:ns',
            d.hostObjects.map((h) => el('domain:hostObj', h)),
          )
        : d.hostAttributes.length
          ? el(
              'domain:ns',
              d.hostAttributes.map((h) => el('domain:hostAttr', el('domain:hostName', h))),
            )
          : null,
      this.omitsSubordinateHosts
        ? null
        : [...this.hosts.values()].filter((h) => h.name.endsWith(`.${d.name}`)).map((h) => el('domain:host', h.name)),
      el('domain:clID', d.sponsor),
      el('domain:crID', d.creator),
      el('domain:crDate', iso(d.createdAt)),
      d.updatedAt ? [el('domain:upID', d.sponsor), el('domain:upDate', iso(d.updatedAt))] : null,
      el('domain:exDate', iso(d.expiresAt)),
      d.transferredAt ? el('domain:trDate', iso(d.transferredAt)) : null,
      isSponsor && d.authInfo ? el('domain:authInfo', el('domain:pw', d.authInfo)) : null,
    );
  }

  private infExtensions(d: DomainRecord, session: SessionState): XmlNode[] {
    const out: XmlNode[] = [];
    if (d.rgp.size && session.extensions.has(NS.rgp))
      out.push(
        el(
          'rgp:infData',
          [...d.rgp].map((s) => el('rgp:rgpStatus', { s })),
        ),
      );
    if (d.dsRecords.length && session.extensions.has(NS.secDNS)) {
      out.push(
        el(
          'secDNS:infData',
          d.dsRecords.map((r) =>
            el(
              'secDNS:dsData',
              el('secDNS:keyTag', r.keyTag),
              el('secDNS:alg', r.alg),
              el('secDNS:digestType', r.digestType),
              el('secDNS:digest', r.digest),
            ),
          ),
        ),
      );
    }
    return out;
  }

  private trnData(d: DomainRecord): XmlNode {
    const t = d.transfer!;
    return el(
      'domain:trnData',
      el('domain:name', d.name),
      el('domain:trStatus', t.status),
      el('domain:reID', t.requestedBy),
      el('domain:reDate', iso(t.requestedAt)),
      el('domain:acID', t.actingRegistrar),
      el('domain:acDate', iso(t.actBy)),
      el('domain:exDate', iso(t.status === 'pending' ? addYears(d.expiresAt, t.years) : d.expiresAt)),
    );
  }

  private dsFrom(parent: XmlElement | undefined): DomainRecord['dsRecords'] {
    return children(parent, NS.secDNS, 'dsData').map((ds) => ({
      keyTag: childText(ds, NS.secDNS, 'keyTag') ?? '',
      alg: childText(ds, NS.secDNS, 'alg') ?? '',
      digestType: childText(ds, NS.secDNS, 'digestType') ?? '',
      digest: (childText(ds, NS.secDNS, 'digest') ?? '').toUpperCase(),
    }));
  }

  // ---- hosts ----

  private hostCommand(client: string, verb: string, o: XmlElement): Answer {
    const names = children(o, NS.host, 'name').map((n) => n.text.trim().toLowerCase());
    const name = names[0] ?? '';
    const nameValue = el('host:name', name);
    if (verb === 'check')
      return ok(
        el(
          'host:chkData',
          names.map((n) => el('host:cd', el('host:name', { avail: this.hosts.has(n) ? '0' : '1' }, n))),
        ),
      );
    const addrsOf = (x: XmlElement | undefined) =>
      children(x, NS.host, 'addr').map((a) => ({ ip: a.attrs.ip ?? 'v4', address: a.text.trim() }));
    if (verb === 'create') {
      if (this.hosts.has(name)) return err(2302, 'The host exists', nameValue);
      const addresses = addrsOf(o);
      const bad = addresses.find((a) => isIP(a.address) !== (a.ip === 'v6' ? 6 : 4));
      if (bad)
        return err(2005, `${bad.address} is not an IP${bad.ip} address`, el('host:addr', { ip: bad.ip }, bad.address));
      const superordinate = [...this.domains.values()].find((d) => name.endsWith(`.${d.name}`));
      const isInternal = this.tlds.some((t) => name.endsWith(`.${t}`));
      if (isInternal) {
        if (!superordinate) return err(2303, 'The superordinate domain does not exist', nameValue);
        if (superordinate.sponsor !== client)
          return err(2201, 'Not the sponsor of the superordinate domain', nameValue);
        if (addresses.length === 0)
          return err(2003, 'A host under a domain of this registry needs an IP address', nameValue);
      } else if (addresses.length) {
        return err(2306, 'Addresses are not allowed for hosts outside this registry', nameValue);
      }
      this.hosts.set(name, { name, roid: this.roid('H'), sponsor: client, createdAt: this.now(), addresses });
      return ok(el('host:creData', el('host:name', name), el('host:crDate', iso(this.now()))));
    }
    const h = this.hosts.get(name);
    if (!h) return err(2303, `${name} does not exist`, nameValue);
    const linked = [...this.domains.values()].some((d) => d.hostObjects.includes(name));
    switch (verb) {
      case 'info':
        return ok(
          el(
            'host:infData',
            el('host:name', h.name),
            el('host:roid', h.roid),
            el('host:status', { s: linked ? 'linked' : 'ok' }),
            h.addresses.map((a) => el('host:addr', { ip: a.ip }, a.address)),
            el('host:clID', h.sponsor),
            el('host:crID', h.sponsor),
            el('host:crDate', iso(h.createdAt)),
          ),
        );
      case 'update': {
        if (h.sponsor !== client) return err(2201, 'Not the sponsoring registrar', nameValue);
        const add = addrsOf(child(o, NS.host, 'add'));
        const rem = addrsOf(child(o, NS.host, 'rem'));
        const missing = rem.find((r) => !h.addresses.some((a) => a.address === r.address));
        if (missing)
          return err(
            2303,
            `${missing.address} is not an address of ${name}`,
            el('host:addr', { ip: missing.ip }, missing.address),
          );
        h.addresses = [...h.addresses.filter((a) => !rem.some((r) => r.address === a.address)), ...add];
        if (h.addresses.length === 0)
          return err(2306, 'A host under a domain of this registry needs an IP address', nameValue);
        return ok();
      }
      case 'delete':
        if (h.sponsor !== client) return err(2201, 'Not the sponsoring registrar', nameValue);
        if (linked) return err(2305, 'The host is a nameserver of a domain', nameValue);
        this.hosts.delete(name);
        return ok();
      default:
        return { code: 2101 };
    }
  }

  // ---- contacts ----

  private contactCommand(client: string, verb: string, o: XmlElement): Answer {
    const ids = children(o, NS.contact, 'id').map((n) => n.text.trim());
    const id = ids[0] ?? '';
    const idValue = el('contact:id', id);
    if (verb === 'check')
      return ok(
        el(
          'contact:chkData',
          ids.map((i) => el('contact:cd', el('contact:id', { avail: this.contacts.has(i) ? '0' : '1' }, i))),
        ),
      );
    if (verb === 'create') {
      if (this.contacts.has(id)) return err(2302, 'The contact id is taken', idValue);
      const badAuth = this.authInfoRefusal(
        childText(child(o, NS.contact, 'authInfo'), NS.contact, 'pw') ?? '',
        idValue,
      );
      if (badAuth) return badAuth;
      this.contacts.set(id, {
        id,
        roid: this.roid('C'),
        sponsor: client,
        createdAt: this.now(),
        data: o,
        authInfo: childText(child(o, NS.contact, 'authInfo'), NS.contact, 'pw') ?? '',
      });
      return ok(el('contact:creData', el('contact:id', id), el('contact:crDate', iso(this.now()))));
    }
    const c = this.contacts.get(id);
    if (!c) return err(2303, `${id} does not exist`, idValue);
    if (c.sponsor !== client) return err(2201, 'Not the sponsoring registrar', idValue);
    switch (verb) {
      case 'info': {
        const postal = children(c.data, NS.contact, 'postalInfo');
        const copy = (e: XmlElement): XmlNode =>
          el(`contact:${e.name}`, e.attrs, e.children.length ? e.children.map(copy) : e.text.trim());
        return ok(
          el(
            'contact:infData',
            el('contact:id', c.id),
            el('contact:roid', c.roid),
            el('contact:status', { s: 'ok' }),
            postal.map(copy),
            child(c.data, NS.contact, 'voice') ? copy(child(c.data, NS.contact, 'voice')!) : null,
            child(c.data, NS.contact, 'fax') ? copy(child(c.data, NS.contact, 'fax')!) : null,
            el('contact:email', childText(c.data, NS.contact, 'email') ?? ''),
            el('contact:clID', c.sponsor),
            el('contact:crID', c.sponsor),
            el('contact:crDate', iso(c.createdAt)),
          ),
        );
      }
      case 'update': {
        const chg = child(o, NS.contact, 'chg');
        const merged = new Map(c.data.children.map((e) => [e.name, e] as const));
        for (const e of chg?.children ?? []) merged.set(e.name, e);
        const order = ['id', 'postalInfo', 'voice', 'fax', 'email', 'authInfo'];
        c.data = {
          ...c.data,
          children: order.flatMap((k) =>
            merged.has(k) && (k !== 'voice' || merged.get(k)!.text.trim()) ? [merged.get(k)!] : [],
          ),
        };
        return ok();
      }
      case 'delete': {
        const linked = [...this.domains.values()].some(
          (d) => d.registrant === id || d.contacts.some((x) => x.id === id),
        );
        if (linked) return err(2305, 'The contact is linked to a domain', idValue);
        this.contacts.delete(id);
        return ok();
      }
      default:
        return { code: 2101 };
    }
  }

  private enqueue(clientId: string, text: string, resData?: XmlNode): void {
    const queue = this.queues.get(clientId) ?? [];
    queue.push({ id: String(this.serial++), date: this.now(), text, resData });
    this.queues.set(clientId, queue);
  }

  private roid(kind: string): string {
    return `${kind}${this.serial++}-TEST`;
  }

  private mustGet(name: string): DomainRecord {
    const d = this.domains.get(name);
    if (!d) throw new Error(`${name} is not in the test registry`);
    return d;
  }
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Host name syntax as registries check it: LDH labels, no `--` in positions 3–4 except IDNA's `xn--`. */
function isDomainSyntax(name: string): boolean {
  const labels = name.split('.');
  return (
    name.length <= 253 &&
    labels.length >= 2 &&
    labels.every((l) => LABEL.test(l) && (l.slice(2, 4) !== '--' || l.startsWith('xn--')))
  );
}
