import type { DomainContactRef, DsRecord } from './frames';
import type { EppResponse } from './responses';
import { child, childText, children, NS, type XmlElement } from './xml';

/** `<domain:infData>` with its rgp and secDNS extensions, read into plain values. */
export interface DomainInfo {
  readonly name: string;
  readonly roid: string;
  readonly statuses: readonly string[];
  readonly registrant?: string;
  readonly contacts: readonly DomainContactRef[];
  readonly hostObjects: readonly string[];
  readonly hostAttributes: readonly string[];
  /** Subordinate hosts (child nameservers) the registry holds under the domain. */
  readonly subordinateHosts: readonly string[];
  readonly sponsor: string;
  readonly createdAt?: string;
  readonly updatedAt?: string;
  readonly expiresAt?: string;
  readonly transferredAt?: string;
  readonly authInfo?: string;
  readonly rgpStatuses: readonly string[];
  readonly dsRecords: readonly DsRecord[];
}

export function readDomainInfo(response: EppResponse): DomainInfo | undefined {
  const inf = child(response.resData, NS.domain, 'infData');
  if (!inf) return undefined;
  const ns = child(inf, NS.domain, 'ns');
  const rgp = child(response.extension, NS.rgp, 'infData');
  const sec = child(response.extension, NS.secDNS, 'infData');
  return {
    name: (childText(inf, NS.domain, 'name') ?? '').toLowerCase(),
    roid: childText(inf, NS.domain, 'roid') ?? '',
    statuses: children(inf, NS.domain, 'status')
      .map((s) => s.attrs.s ?? '')
      .filter(Boolean),
    registrant: childText(inf, NS.domain, 'registrant') || undefined,
    contacts: children(inf, NS.domain, 'contact')
      .map((c) => ({ type: c.attrs.type as DomainContactRef['type'], id: c.text.trim() }))
      .filter((c) => c.type === 'admin' || c.type === 'tech' || c.type === 'billing'),
    hostObjects: children(ns, NS.domain, 'hostObj').map((h) => h.text.trim().toLowerCase()),
    hostAttributes: children(ns, NS.domain, 'hostAttr').map((h) =>
      (childText(h, NS.domain, 'hostName') ?? '').toLowerCase(),
    ),
    subordinateHosts: children(inf, NS.domain, 'host').map((h) => h.text.trim().toLowerCase()),
    sponsor: childText(inf, NS.domain, 'clID') ?? '',
    createdAt: childText(inf, NS.domain, 'crDate'),
    updatedAt: childText(inf, NS.domain, 'upDate'),
    expiresAt: childText(inf, NS.domain, 'exDate'),
    transferredAt: childText(inf, NS.domain, 'trDate'),
    authInfo: childText(child(inf, NS.domain, 'authInfo'), NS.domain, 'pw') || undefined,
    rgpStatuses: children(rgp, NS.rgp, 'rgpStatus')
      .map((s) => s.attrs.s ?? '')
      .filter(Boolean),
    dsRecords: children(sec, NS.secDNS, 'dsData').map(readDs),
  };
}

function readDs(ds: XmlElement): DsRecord {
  return {
    keyTag: Number(childText(ds, NS.secDNS, 'keyTag')),
    algorithm: Number(childText(ds, NS.secDNS, 'alg')),
    digestType: Number(childText(ds, NS.secDNS, 'digestType')),
    digest: (childText(ds, NS.secDNS, 'digest') ?? '').toUpperCase(),
  };
}

/** `<domain:trnData>`: a transfer's state, in a transfer response or a poll message. */
export interface TransferData {
  readonly name: string;
  readonly status: string;
  readonly requestedBy: string;
  readonly requestedAt: string;
  readonly actingRegistrar?: string;
  readonly actBy?: string;
  readonly expiresAt?: string;
}

export function readTransferData(resData: XmlElement | undefined): TransferData | undefined {
  const trn = child(resData, NS.domain, 'trnData');
  if (!trn) return undefined;
  return {
    name: (childText(trn, NS.domain, 'name') ?? '').toLowerCase(),
    status: childText(trn, NS.domain, 'trStatus') ?? '',
    requestedBy: childText(trn, NS.domain, 'reID') ?? '',
    requestedAt: childText(trn, NS.domain, 'reDate') ?? '',
    actingRegistrar: childText(trn, NS.domain, 'acID'),
    actBy: childText(trn, NS.domain, 'acDate'),
    expiresAt: childText(trn, NS.domain, 'exDate'),
  };
}

/** The date part (YYYY-MM-DD, UTC) of an EPP dateTime. */
export function datePart(dateTime: string | undefined): string | undefined {
  if (!dateTime) return undefined;
  const d = new Date(dateTime);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString().slice(0, 10);
}
