/**
 * Builders of every frame the plugin sends. Each returns the serialised `<epp>` instance; values
 * only ever enter through `el()` children and attributes, which the DOM serializer escapes.
 * `test/plugins/epp/frames.test.ts` validates each against the RFC schemas.
 */
import { el, elDefault, NS, renderEpp, type XmlChild, type XmlNode } from './xml';

export const OBJECT_URIS = { domain: NS.domain, host: NS.host, contact: NS.contact } as const;
export const EXTENSION_URIS = { secDNS: NS.secDNS, rgp: NS.rgp, loginSec: NS.loginSec } as const;

const command = (verb: XmlNode, clTRID: string, extension?: XmlChild): string =>
  renderEpp(el('command', verb, extension ? el('extension', extension) : null, el('clTRID', clTRID)));

type Verb = 'check' | 'create' | 'delete' | 'info' | 'renew' | 'update';

/** An object command: `<command><check><domain:check>…</domain:check></check>…</command>`. */
const objectCommand = (verb: Verb, object: XmlNode, clTRID: string, extension?: XmlChild): string =>
  command(el(verb, object), clTRID, extension);

// ---- session ----

export const helloFrame = (): string => renderEpp(el('hello'));

/** RFC 5730's `pwType`: a password of more characters only travels through loginSec (RFC 8807). */
export const PLAIN_PASSWORD_LENGTH = { min: 6, max: 16 } as const;
/** RFC 8807: the value of `<pw>` / `<newPW>` saying the real one is in the loginSec extension. */
export const LOGIN_SECURITY_SENTINEL = '[LOGIN-SECURITY]';

export interface LoginParams {
  readonly clientId: string;
  readonly password: string;
  /** Only for the operator's one-time password change, never on a normal login. */
  readonly newPassword?: string;
  readonly language: string;
  readonly objectUris: readonly string[];
  /** With the loginSec URI among them, passwords over 16 characters go in `<loginSec:pw>` / `<loginSec:newPW>`. */
  readonly extensionUris: readonly string[];
}

export function loginFrame(p: LoginParams, clTRID: string): string {
  const isSecured = (pw: string | undefined) =>
    pw !== undefined && pw.length > PLAIN_PASSWORD_LENGTH.max && p.extensionUris.includes(NS.loginSec);
  const securePw = isSecured(p.password);
  const secureNew = isSecured(p.newPassword);
  return command(
    el(
      'login',
      el('clID', p.clientId),
      el('pw', securePw ? LOGIN_SECURITY_SENTINEL : p.password),
      p.newPassword ? el('newPW', secureNew ? LOGIN_SECURITY_SENTINEL : p.newPassword) : null,
      el('options', el('version', '1.0'), el('lang', p.language)),
      el(
        'svcs',
        p.objectUris.map((uri) => el('objURI', uri)),
        p.extensionUris.length > 0
          ? el(
              'svcExtension',
              p.extensionUris.map((uri) => el('extURI', uri)),
            )
          : null,
      ),
    ),
    clTRID,
    securePw || secureNew
      ? // Default namespace, not a prefix: some registries read only unprefixed loginSec children.
        elDefault(
          'loginSec',
          'loginSec',
          securePw ? elDefault('loginSec', 'pw', p.password) : null,
          secureNew ? elDefault('loginSec', 'newPW', p.newPassword) : null,
        )
      : undefined,
  );
}

export const logoutFrame = (clTRID: string): string => command(el('logout'), clTRID);
export const pollRequestFrame = (clTRID: string): string => command(el('poll', { op: 'req' }), clTRID);
export const pollAckFrame = (messageId: string, clTRID: string): string =>
  command(el('poll', { op: 'ack', msgID: messageId }), clTRID);

// ---- domain (RFC 5731) ----

export interface DsRecord {
  readonly keyTag: number;
  readonly algorithm: number;
  readonly digestType: number;
  /** Hexadecimal. */
  readonly digest: string;
}

export type Nameservers = { readonly hostObjects: readonly string[] } | { readonly hostAttributes: readonly string[] };

const nsElement = (ns: Nameservers | undefined): XmlNode | null => {
  if (!ns) return null;
  if ('hostObjects' in ns)
    return ns.hostObjects.length
      ? el(
          'domain:ns',
          ns.hostObjects.map((h) => el('domain:hostObj', h)),
        )
      : null;
  return ns.hostAttributes.length
    ? el(
        'domain:ns',
        ns.hostAttributes.map((h) => el('domain:hostAttr', el('domain:hostName', h))),
      )
    : null;
};

export interface DomainContactRef {
  readonly type: 'admin' | 'tech' | 'billing';
  readonly id: string;
}

export const domainCheckFrame = (names: readonly string[], clTRID: string): string =>
  objectCommand(
    'check',
    el(
      'domain:check',
      names.map((n) => el('domain:name', n)),
    ),
    clTRID,
  );

export interface DomainCreateParams {
  readonly name: string;
  readonly years: number;
  readonly nameservers?: Nameservers;
  readonly registrant?: string;
  readonly contacts: readonly DomainContactRef[];
  readonly authInfo: string;
  readonly dsRecords?: readonly DsRecord[];
}

const dsData = (r: DsRecord): XmlNode =>
  el(
    'secDNS:dsData',
    el('secDNS:keyTag', r.keyTag),
    el('secDNS:alg', r.algorithm),
    el('secDNS:digestType', r.digestType),
    el('secDNS:digest', r.digest),
  );

export function domainCreateFrame(p: DomainCreateParams, clTRID: string): string {
  return objectCommand(
    'create',
    el(
      'domain:create',
      el('domain:name', p.name),
      el('domain:period', { unit: 'y' }, p.years),
      nsElement(p.nameservers),
      p.registrant ? el('domain:registrant', p.registrant) : null,
      p.contacts.map((c) => el('domain:contact', { type: c.type }, c.id)),
      el('domain:authInfo', el('domain:pw', p.authInfo)),
    ),
    clTRID,
    p.dsRecords?.length ? el('secDNS:create', p.dsRecords.map(dsData)) : undefined,
  );
}

export const domainInfoFrame = (name: string, clTRID: string, authInfo?: string): string =>
  objectCommand(
    'info',
    el(
      'domain:info',
      el('domain:name', { hosts: 'all' }, name),
      authInfo ? el('domain:authInfo', el('domain:pw', authInfo)) : null,
    ),
    clTRID,
  );

export const domainRenewFrame = (name: string, currentExpiryDate: string, years: number, clTRID: string): string =>
  objectCommand(
    'renew',
    el(
      'domain:renew',
      el('domain:name', name),
      el('domain:curExpDate', currentExpiryDate),
      el('domain:period', { unit: 'y' }, years),
    ),
    clTRID,
  );

export function domainTransferFrame(
  op: 'request' | 'query',
  name: string,
  clTRID: string,
  opts: { years?: number; authInfo?: string } = {},
): string {
  return renderEpp(
    el(
      'command',
      el(
        'transfer',
        { op },
        el(
          'domain:transfer',
          el('domain:name', name),
          opts.years ? el('domain:period', { unit: 'y' }, opts.years) : null,
          opts.authInfo ? el('domain:authInfo', el('domain:pw', opts.authInfo)) : null,
        ),
      ),
      el('clTRID', clTRID),
    ),
  );
}

export interface DomainAddRem {
  readonly nameservers?: Nameservers;
  readonly contacts?: readonly DomainContactRef[];
  readonly statuses?: readonly string[];
}

export interface DomainUpdateParams {
  readonly name: string;
  readonly add?: DomainAddRem;
  readonly rem?: DomainAddRem;
  readonly chg?: { readonly registrant?: string; readonly authInfo?: string };
  /** RFC 3915: a restore is an update with an empty `<domain:chg/>` and the rgp extension. */
  readonly restore?: { readonly op: 'request' } | { readonly op: 'report'; readonly report: RestoreReport };
  /** RFC 5910: replace the DS records (remove all, then add these). */
  readonly dsRecords?: readonly DsRecord[];
}

export interface RestoreReport {
  readonly preData: string;
  readonly postData: string;
  readonly deletedAt: string;
  readonly restoredAt: string;
  readonly reason: string;
  readonly statements: readonly [string, string];
  readonly other?: string;
}

const addRem = (tag: 'add' | 'rem', v: DomainAddRem | undefined): XmlNode | null => {
  if (!v) return null;
  const parts = [
    nsElement(v.nameservers),
    ...(v.contacts ?? []).map((c) => el('domain:contact', { type: c.type }, c.id)),
    ...(v.statuses ?? []).map((s) => el('domain:status', { s })),
  ].filter(Boolean);
  return parts.length ? el(`domain:${tag}`, parts) : null;
};

export function domainUpdateFrame(p: DomainUpdateParams, clTRID: string): string {
  const chgParts = p.chg
    ? [
        p.chg.registrant ? el('domain:registrant', p.chg.registrant) : null,
        p.chg.authInfo ? el('domain:authInfo', el('domain:pw', p.chg.authInfo)) : null,
      ].filter(Boolean)
    : [];
  const chg = chgParts.length || p.restore ? el('domain:chg', chgParts) : null;
  const extensions: XmlNode[] = [];
  if (p.restore) {
    const r = p.restore;
    extensions.push(
      el(
        'rgp:update',
        el(
          'rgp:restore',
          { op: r.op },
          r.op === 'report'
            ? el(
                'rgp:report',
                el('rgp:preData', r.report.preData),
                el('rgp:postData', r.report.postData),
                el('rgp:delTime', r.report.deletedAt),
                el('rgp:resTime', r.report.restoredAt),
                el('rgp:resReason', r.report.reason),
                r.report.statements.map((s) => el('rgp:statement', s)),
                r.report.other ? el('rgp:other', r.report.other) : null,
              )
            : null,
        ),
      ),
    );
  }
  if (p.dsRecords) {
    extensions.push(
      el(
        'secDNS:update',
        el('secDNS:rem', el('secDNS:all', 'true')),
        p.dsRecords.length ? el('secDNS:add', p.dsRecords.map(dsData)) : null,
      ),
    );
  }
  return objectCommand(
    'update',
    el('domain:update', el('domain:name', p.name), addRem('add', p.add), addRem('rem', p.rem), chg),
    clTRID,
    extensions.length ? extensions : undefined,
  );
}

export const domainDeleteFrame = (name: string, clTRID: string): string =>
  objectCommand('delete', el('domain:delete', el('domain:name', name)), clTRID);

// ---- host (RFC 5732) ----

export interface HostAddress {
  readonly ip: 'v4' | 'v6';
  readonly address: string;
}

const addrs = (list: readonly HostAddress[] | undefined) =>
  (list ?? []).map((a) => el('host:addr', { ip: a.ip }, a.address));

export const hostCheckFrame = (names: readonly string[], clTRID: string): string =>
  objectCommand(
    'check',
    el(
      'host:check',
      names.map((n) => el('host:name', n)),
    ),
    clTRID,
  );
export const hostCreateFrame = (name: string, addresses: readonly HostAddress[], clTRID: string): string =>
  objectCommand('create', el('host:create', el('host:name', name), addrs(addresses)), clTRID);
export const hostInfoFrame = (name: string, clTRID: string): string =>
  objectCommand('info', el('host:info', el('host:name', name)), clTRID);
export const hostDeleteFrame = (name: string, clTRID: string): string =>
  objectCommand('delete', el('host:delete', el('host:name', name)), clTRID);

export function hostUpdateFrame(
  name: string,
  change: { add?: readonly HostAddress[]; rem?: readonly HostAddress[] },
  clTRID: string,
): string {
  return objectCommand(
    'update',
    el(
      'host:update',
      el('host:name', name),
      change.add?.length ? el('host:add', addrs(change.add)) : null,
      change.rem?.length ? el('host:rem', addrs(change.rem)) : null,
    ),
    clTRID,
  );
}

// ---- contact (RFC 5733) ----

export interface ContactData {
  readonly postalType: 'int' | 'loc';
  readonly name: string;
  readonly org?: string;
  readonly street: readonly string[];
  readonly city: string;
  readonly state?: string;
  readonly postcode?: string;
  readonly countryCode: string;
  readonly voice?: string;
  readonly fax?: string;
  readonly email: string;
}

const postalInfo = (c: ContactData): XmlNode =>
  el(
    'contact:postalInfo',
    { type: c.postalType },
    el('contact:name', c.name),
    c.org ? el('contact:org', c.org) : null,
    el(
      'contact:addr',
      c.street.map((s) => el('contact:street', s)),
      el('contact:city', c.city),
      c.state ? el('contact:sp', c.state) : null,
      c.postcode ? el('contact:pc', c.postcode) : null,
      el('contact:cc', c.countryCode),
    ),
  );

export const contactCheckFrame = (ids: readonly string[], clTRID: string): string =>
  objectCommand(
    'check',
    el(
      'contact:check',
      ids.map((id) => el('contact:id', id)),
    ),
    clTRID,
  );

export function contactCreateFrame(id: string, c: ContactData, authInfo: string, clTRID: string): string {
  return objectCommand(
    'create',
    el(
      'contact:create',
      el('contact:id', id),
      postalInfo(c),
      c.voice ? el('contact:voice', c.voice) : null,
      c.fax ? el('contact:fax', c.fax) : null,
      el('contact:email', c.email),
      el('contact:authInfo', el('contact:pw', authInfo)),
    ),
    clTRID,
  );
}

export const contactInfoFrame = (id: string, clTRID: string): string =>
  objectCommand('info', el('contact:info', el('contact:id', id)), clTRID);
export const contactDeleteFrame = (id: string, clTRID: string): string =>
  objectCommand('delete', el('contact:delete', el('contact:id', id)), clTRID);

/** Replaces the postal info, voice and email of a contact (fax too when given). */
export function contactUpdateFrame(id: string, c: ContactData, clTRID: string): string {
  return objectCommand(
    'update',
    el(
      'contact:update',
      el('contact:id', id),
      el(
        'contact:chg',
        postalInfo(c),
        el('contact:voice', c.voice ?? ''),
        c.fax ? el('contact:fax', c.fax) : null,
        el('contact:email', c.email),
      ),
    ),
    clTRID,
  );
}
