import { isIP } from 'node:net';
import type { DsRecord, HostAddress } from './frames';

/** Bad input found before anything was sent: a definite refusal. */
export class InputError extends Error {}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A domain name in lower-case ASCII (punycode) form, without a trailing dot. */
export function domainName(raw: string): string {
  const name = String(raw).trim().toLowerCase().replace(/\.$/, '');
  if (name.length > 253 || name.split('.').length < 2 || !name.split('.').every((l) => LABEL.test(l)))
    throw new InputError(`"${raw}" is not a domain name in ASCII (punycode) form`);
  return name;
}

export function hostName(raw: string): string {
  try {
    return domainName(raw);
  } catch {
    throw new InputError(`"${raw}" is not a host name`);
  }
}

/** RFC 5731: a registration or renewal period of 1 to 10 years. */
export function period(years: number): number {
  if (!Number.isInteger(years) || years < 1 || years > 10) throw new InputError('the period must be 1 to 10 years');
  return years;
}

export function address(ip: string): HostAddress {
  const text = String(ip).trim();
  const version = isIP(text);
  if (version === 0) throw new InputError(`"${ip}" is not an IP address`);
  return { ip: version === 4 ? 'v4' : 'v6', address: text.toLowerCase() };
}

/** DS records from TLD fields (`dsRecords`: a list of {keyTag, algorithm, digestType, digest}), checked for the schema. */
export function dsRecordsFrom(fields: Readonly<Record<string, unknown>>): DsRecord[] {
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
