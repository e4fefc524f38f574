import type { DnsRecord } from '../registrar/plugin';
import { DomainError } from '../common/errors';
import { parseHostName, parseIpAddress } from './host-names';

/** A DNS record as a client sends it: text fields, `priority` possibly "N/A" or empty, `recid` possibly present. */
export interface DnsRecordInput {
  readonly hostname?: string;
  readonly type?: string;
  readonly address?: string;
  readonly priority?: string;
  readonly recid?: string;
}

export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'MXE', 'TXT', 'NS', 'SRV', 'CAA', 'URL', 'FRAME'] as const;
export type DnsRecordType = (typeof DNS_RECORD_TYPES)[number];

export const MAX_DNS_RECORDS = 500;

const HOST_LABEL = /^(?:\*|[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)$/;
const CAA_TAGS = ['issue', 'issuewild', 'iodef', 'issuevmc', 'issuemail'];

const invalid = (where: string, message: string) => new DomainError('validation_failed', `${where}: ${message}`);
const quote = (value: string) => JSON.stringify(String(value).slice(0, 80));

function uint16(text: string, where: string, what: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
    throw invalid(where, `${what} must be a whole number from 0 to 65535; got ${quote(text)}`);
  return Number(text);
}

/** "@" (or empty) for the apex, relative names ("www", "_dmarc", "*.shop"), or a name ending in the domain. */
function recordHostname(input: string | undefined, where: string): string {
  const text = String(input ?? '')
    .trim()
    .toLowerCase()
    .replace(/\.$/, '');
  if (text === '' || text === '@') return '@';
  if (text.length > 253 || !text.split('.').every((label, i) => HOST_LABEL.test(label) && (label !== '*' || i === 0))) {
    throw invalid(
      where,
      `hostname ${quote(input ?? '')} is not a valid record name (use @ for the domain itself, or names like www, _dmarc, *.shop)`,
    );
  }
  return text;
}

/** A target host (CNAME, MX, NS, SRV): a name, relative or absolute; a trailing dot is kept off. */
function target(input: string, where: string, what: string): string {
  const text = input.trim().replace(/\.$/, '');
  if (text.includes('.')) return parseHostName(text, `${where}: ${what}`);
  if (HOST_LABEL.test(text.toLowerCase()) && text !== '*') return text.toLowerCase();
  throw invalid(where, `${what} must be a host name; got ${quote(input)}`);
}

function noPriority(priority: string | undefined): boolean {
  const p = String(priority ?? '')
    .trim()
    .toUpperCase();
  return p === '' || p === 'N/A' || p === 'NA';
}

/**
 * Validates DNS records per type (docs/domain-management.md#wire-formats): A/MXE need an IPv4 address, AAAA an IPv6
 * address, CNAME/NS/MX a host name, MX and SRV a priority, SRV "weight port target" (or
 * "priority weight port target"), CAA `flags tag "value"`, URL/FRAME an http(s) address, TXT
 * printable text. Records with an empty address are blank rows of a billing platform's form
 * (or records it deletes) and are left out.
 */
export function validateDnsRecords(inputs: readonly DnsRecordInput[]): DnsRecord[] {
  if (inputs.length > MAX_DNS_RECORDS)
    throw new DomainError('validation_failed', `at most ${MAX_DNS_RECORDS} DNS records can be saved at once`);
  const records: DnsRecord[] = [];
  inputs.forEach((input, index) => {
    const where = `dnsrecords[${index}]`;
    const address = String(input.address ?? '').trim();
    if (address === '') return;
    const type = String(input.type ?? '')
      .trim()
      .toUpperCase();
    if (!(DNS_RECORD_TYPES as readonly string[]).includes(type)) {
      throw invalid(
        where,
        `type ${quote(input.type ?? '')} is not supported; use one of ${DNS_RECORD_TYPES.join(', ')}`,
      );
    }
    const hostname = recordHostname(input.hostname, where);
    const recid =
      input.recid !== undefined && String(input.recid).trim() !== ''
        ? String(input.recid).trim().slice(0, 64)
        : undefined;
    const record = (value: string, priority?: number): DnsRecord => ({
      hostname,
      type,
      address: value,
      ...(priority !== undefined ? { priority: String(priority) } : {}),
      ...(recid ? { recid } : {}),
    });
    switch (type as DnsRecordType) {
      case 'A':
      case 'MXE':
        records.push(record(parseIpAddress(address, `${where}: an ${type} record's address`, [4])));
        return;
      case 'AAAA':
        records.push(record(parseIpAddress(address, `${where}: an AAAA record's address`, [6])));
        return;
      case 'CNAME':
        if (hostname === '@') throw invalid(where, 'a CNAME record cannot be at the domain itself (@)');
        records.push(record(target(address, where, "a CNAME record's address")));
        return;
      case 'NS':
        records.push(record(target(address, where, "an NS record's address")));
        return;
      case 'MX': {
        if (noPriority(input.priority)) throw invalid(where, 'an MX record needs a priority, like 10');
        records.push(
          record(
            target(address, where, "an MX record's address"),
            uint16(String(input.priority).trim(), where, 'priority'),
          ),
        );
        return;
      }
      case 'SRV': {
        const parts = address.split(/\s+/);
        const withPriority = parts.length === 4;
        if (parts.length !== 3 && !withPriority)
          throw invalid(
            where,
            'an SRV record\'s address must be "weight port target" (priority separately) or "priority weight port target"',
          );
        if (!hostname.startsWith('_'))
          throw invalid(where, "an SRV record's hostname must name a service and protocol, like _sip._tcp");
        const priorityText = withPriority ? parts[0]! : String(input.priority ?? '').trim();
        if (noPriority(priorityText)) throw invalid(where, 'an SRV record needs a priority, like 10');
        const priority = uint16(priorityText, where, 'priority');
        const [weight, port, host] = withPriority ? parts.slice(1) : parts;
        uint16(weight!, where, 'weight');
        uint16(port!, where, 'port');
        const srvTarget = host === '.' ? '.' : target(host!, where, "an SRV record's target");
        records.push(record(`${weight} ${port} ${srvTarget}`, priority));
        return;
      }
      case 'CAA': {
        const match = /^(\d{1,3})\s+([a-z0-9]+)\s+(?:"([^"]*)"|(\S+))$/i.exec(address);
        if (!match || Number(match[1]) > 255 || !CAA_TAGS.includes(match[2]!.toLowerCase())) {
          throw invalid(
            where,
            `a CAA record's address must be 'flags tag "value"' with a tag of ${CAA_TAGS.join(', ')}, like 0 issue "letsencrypt.org"`,
          );
        }
        const value = match[3] ?? match[4] ?? '';
        if (/[\u0000-\u001f"]/.test(value) || value.length > 255)
          throw invalid(where, "a CAA record's value must be printable text");
        records.push(record(`${Number(match[1])} ${match[2]!.toLowerCase()} "${value}"`));
        return;
      }
      case 'URL':
      case 'FRAME': {
        let url: URL;
        try {
          url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `http://${address}`);
        } catch {
          throw invalid(
            where,
            `a ${type} record's address must be a web address like https://example.net/page; got ${quote(address)}`,
          );
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:')
          throw invalid(where, `a ${type} record's address must be an http or https address`);
        if (address.length > 2048) throw invalid(where, `a ${type} record's address is too long`);
        records.push(record(url.toString()));
        return;
      }
      case 'TXT':
        if (address.length > 4096 || /[\u0000-\u0008\u000a-\u001f\u007f]/.test(address))
          throw invalid(where, "a TXT record's address must be printable text of at most 4096 characters");
        records.push(record(address));
        return;
    }
  });
  return records;
}
