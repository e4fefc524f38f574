/**
 * Wire formats of the domain-management endpoints: how billing platforms send DNS records,
 * nameservers, contacts and forwards, and the reply shapes of docs/api.md they expect back.
 */
import { z } from 'zod';
import type { DomainRecord } from '../../core/domain/domain';
import type { DnsRecordInput } from '../../core/domain/dns-records';
import type { DnsRecord, EmailForward } from '../../core/registrar/plugin';
import type { DomainInformationView, SyncView, TransferSyncView } from '../../core/registrar/registrar-gateway';
import { DomainError, isDomainError } from '../../core/common/errors';
import type { WireValue } from './form-body';
import { nameserversFromWire, topLevelNameservers } from './nameservers-wire';

/** Runs a wire mapping inside a schema; its validation error becomes a schema issue (a 400 with its message). */
export const mapped = <T>(map: (value: WireValue | undefined) => T) =>
  z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      try {
        return map(value as WireValue | undefined);
      } catch (error) {
        if (!isDomainError(error)) throw error;
        ctx.addIssue({ code: 'custom', message: error.message });
        return z.NEVER;
      }
    });

/** The same for a whole input: maps the validated fields, turning validation errors into schema issues. */
export const mapInput = <S extends z.ZodType, T>(schema: S, map: (input: z.infer<S>) => T) =>
  schema.transform((input, ctx) => {
    try {
      return map(input);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message });
      return z.NEVER;
    }
  });

const bad = (message: string) => new DomainError('validation_failed', message);
const isObject = (v: WireValue | undefined): v is { [key: string]: WireValue } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A list as PHP sends it: repeated names or `name[]` (an array), `name[0]` (an array, or an object keyed by index past qs's limit), or one value. */
function listOf(value: WireValue | undefined, field: string): WireValue[] {
  if (value === undefined || value === '') return [];
  if (Array.isArray(value)) return value;
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (!keys.every((k) => /^\d{1,4}$/.test(k))) throw bad(`${field} must be a list`);
    return keys.sort((a, b) => Number(a) - Number(b)).map((k) => value[k]!);
  }
  return [value];
}

const textOf = (value: WireValue | undefined, field: string): string | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw bad(`${field} must be a single text value`);
  return value;
};

// ---- requests ----

const RECORD_KEYS = ['hostname', 'type', 'address', 'priority', 'recid'] as const;

/** `dnsrecords`: one record (`dnsrecords[hostname]=…`) or a list (`dnsrecords[0][hostname]=…`). Absent is an empty zone (PHP drops empty arrays). */
export function dnsRecordsFromWire(value: WireValue | undefined): DnsRecordInput[] {
  const isSingle = isObject(value) && RECORD_KEYS.some((k) => k in value);
  const items = isSingle ? [value] : listOf(value, 'dnsrecords');
  return items.map((item, i) => {
    if (!isObject(item)) throw bad(`dnsrecords[${i}] must be a record with hostname, type, address and priority`);
    const record: Record<string, string | undefined> = {};
    for (const key of RECORD_KEYS) record[key] = textOf(item[key], `dnsrecords[${i}][${key}]`);
    return record as DnsRecordInput;
  });
}

/** Nameservers as `nameservers[ns1]`, `nameservers[0]` or top-level `ns1`…`ns5`, through the one reader (nameservers-wire.ts). */
export function nameserversOfParams(params: { [key: string]: WireValue | undefined }): string[] {
  const nested = params.nameservers;
  return nameserversFromWire(nested !== undefined && nested !== '' ? nested : topLevelNameservers(params));
}

export const textList = (field: string) =>
  mapped((value) => listOf(value, field).map((v, i) => textOf(v, `${field}[${i}]`) ?? ''));

// ---- replies ----

const isoDate = (date: string | undefined) => (date ? `${date}T00:00:00Z` : undefined);

/** docs/api.md#domain-information plus `status` (docs/api.md); a date that is unknown is left out, never null. */
export function informationReply(domain: DomainRecord, info: DomainInformationView): Record<string, unknown> {
  const extra = info.extra;
  const reply: Record<string, unknown> = {
    domain: domain.unicodeName,
    nameservers: info.nameservers,
    transferLock: info.transferLock ?? false,
    expiryDate: isoDate(info.expiryDate),
    registrationStatus: info.registrationStatus,
    status: info.registrationStatus,
    restorable: info.restorable,
    renewBeforeExpiration: extra.renewBeforeExpiration ?? true,
    idProtectionStatus: info.idProtection,
    dnsManagementStatus: info.dnsManagement,
    emailForwardingStatus: info.emailForwarding,
    transferLockExpiryDate: extra.transferLockExpiryDate,
    irtpOptOutStatus: extra.irtpOptOutStatus ?? false,
    irtpTransferLock: extra.irtpTransferLock ?? false,
    irtpTransferLockExpiryDate: extra.irtpTransferLockExpiryDate,
    domainContactChangePending: extra.domainContactChangePending ?? false,
    domainContactChangeExpiryDate: extra.domainContactChangeExpiryDate,
    willDomainSuspend: extra.willDomainSuspend ?? false,
    isIrtpEnabled: extra.isIrtpEnabled ?? false,
    irtpVerificationTriggerFields: extra.irtpVerificationTriggerFields ?? [],
    registrantEmailAddress: info.registrantEmail,
  };
  return Object.fromEntries(Object.entries(reply).filter(([, v]) => v !== undefined));
}

/** `{"ns1": "...", …, "ns5": "..."}`, unset ones as empty strings. */
export function nameserversReply(nameservers: readonly string[]): Record<string, string> {
  return Object.fromEntries([1, 2, 3, 4, 5].map((i) => [`ns${i}`, nameservers[i - 1] ?? '']));
}

export function syncReply(view: SyncView): Record<string, unknown> {
  return {
    active: view.active,
    expired: view.expired,
    transferredAway: view.transferredAway,
    cancelled: view.cancelled,
    ...(view.expiryDate ? { expirydate: view.expiryDate } : {}),
  };
}

export function transferSyncReply(view: TransferSyncView): Record<string, unknown> {
  return {
    completed: view.completed,
    failed: view.failed,
    reason: view.reason ?? '',
    ...(view.expiryDate ? { expirydate: view.expiryDate } : {}),
  };
}

/** Billing platforms show `N/A` for a record type without a priority. */
export function dnsRecordsReply(records: readonly DnsRecord[]): Array<Record<string, string>> {
  return records.map((r) => ({
    hostname: r.hostname,
    type: r.type,
    address: r.address,
    priority: r.priority ?? 'N/A',
    ...(r.recid ? { recid: r.recid } : {}),
  }));
}

export function emailForwardsReply(forwards: readonly EmailForward[]): Array<{ prefix: string; forwardto: string }> {
  return forwards.map((f) => ({ prefix: f.prefix, forwardto: f.forwardTo }));
}

/** `{"success": true, …}` for the writes docs/api.md gives an object reply; `pending` when the registrar completes later. */
export function successReply(pending: boolean, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { success: true, ...extra, ...(pending ? { pending: true } : {}) };
}
