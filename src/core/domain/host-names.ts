import { isIPv4, isIPv6 } from 'node:net';
import { DomainError } from '../common/errors';
import { parseDomainName } from './domain-name';

const quote = (value: string) => JSON.stringify(String(value).slice(0, 80));

/** A host name (a nameserver, a record's target): normalised like a domain name, ASCII, without a trailing dot. */
export function parseHostName(input: string, what: string): string {
  try {
    return parseDomainName(String(input ?? '')).ascii;
  } catch {
    throw new DomainError('validation_failed', `${what} must be a host name like ns1.example.net; got ${quote(input)}`);
  }
}

export type IpVersion = 4 | 6;

/** An IPv4 or IPv6 address, in its canonical lower-case text. */
export function parseIpAddress(input: string, what: string, versions: readonly IpVersion[] = [4, 6]): string {
  const text = String(input ?? '')
    .trim()
    .toLowerCase();
  if ((versions.includes(4) && isIPv4(text)) || (versions.includes(6) && isIPv6(text))) return text;
  const kind =
    versions.length === 2 ? 'an IPv4 or IPv6 address' : versions[0] === 4 ? 'an IPv4 address' : 'an IPv6 address';
  throw new DomainError('validation_failed', `${what} must be ${kind}; got ${quote(input)}`);
}
