import { DomainError } from '../common/errors';

/** An IPv4 or IPv6 address as a number, with its family. */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly value: bigint;
}

/** A CIDR range: the network address (host bits cleared) and the prefix length. */
export interface IpNetwork {
  readonly family: 4 | 6;
  readonly network: bigint;
  readonly prefix: number;
  /** Canonical text: `203.0.113.0/24`, `2001:db8::/32`. */
  readonly cidr: string;
}

const BITS = { 4: 32, 6: 128 } as const;

function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part.startsWith('0'))) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseIpv6(input: string): bigint | undefined {
  // A zone (fe80::1%eth0) names an interface, not a different address.
  let text = input.replace(/%[0-9A-Za-z._-]+$/, '');
  let tail: number[] = [];
  if (text.includes('.')) {
    // An embedded IPv4 address (::ffff:192.0.2.1) is the last two groups.
    const lastColon = text.lastIndexOf(':');
    if (lastColon < 0) return undefined;
    const v4 = parseIpv4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail = [Number(v4 >> 16n), Number(v4 & 0xffffn)];
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string): number[] | undefined => {
    if (part === '') return [];
    const groups = part.split(':');
    if (!groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
    return groups.map((g) => parseInt(g, 16));
  };
  const head = groupsOf(halves[0]!);
  const rest = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!head || !rest) return undefined;
  const given = [...head, ...rest, ...tail];
  let groups: number[];
  if (halves.length === 2) {
    const missing = 8 - given.length;
    if (missing < 1) return undefined;
    groups = [...head, ...new Array<number>(missing).fill(0), ...rest, ...tail];
  } else {
    groups = given;
  }
  if (groups.length !== 8) return undefined;
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

/**
 * An address as a socket or a proxy reports it. IPv4-mapped IPv6 (`::ffff:192.0.2.1`, what a
 * dual-stack socket reports for an IPv4 client) counts as the IPv4 address. Undefined for garbage.
 */
export function parseClientAddress(text: string): IpAddress | undefined {
  const trimmed = text.trim();
  const v4 = parseIpv4(trimmed);
  if (v4 !== undefined) return { family: 4, value: v4 };
  if (!trimmed.includes(':')) return undefined;
  const v6 = parseIpv6(trimmed.replace(/^\[|\]$/g, ''));
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === 0xffffn) return { family: 4, value: v6 & 0xffffffffn };
  return { family: 6, value: v6 };
}

function formatAddress(family: 4 | 6, value: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // RFC 5952: the longest run of two or more zero groups becomes "::".
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/**
 * `203.0.113.0/24`, `2001:db8::/32`, or a single address (a /32 or /128). Host bits set in the
 * address are cleared (`10.1.2.3/8` is `10.0.0.0/8`). An IPv4-mapped IPv6 range is an IPv4 range.
 */
export function parseIpNetwork(text: string): IpNetwork {
  const input = String(text ?? '').trim();
  const [addressText, prefixText, extra] = input.split('/');
  const address = addressText ? parseClientAddress(addressText) : undefined;
  if (!address || extra !== undefined) {
    throw new DomainError(
      'validation_failed',
      `"${input.slice(0, 60)}" is not an IP address or CIDR range like 203.0.113.0/24 or 2001:db8::/32`,
    );
  }
  const max = BITS[address.family];
  let prefix: number = max;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText))
      throw new DomainError(
        'validation_failed',
        `the prefix length in "${input.slice(0, 60)}" must be a number from 0 to ${max}`,
      );
    prefix = Number(prefixText);
    // A mapped IPv4 range written in IPv6 (::ffff:10.0.0.0/104) counts its prefix over 128 bits.
    if (address.family === 4 && addressText!.includes(':')) prefix -= 96;
    if (prefix < 0 || prefix > max)
      throw new DomainError(
        'validation_failed',
        `the prefix length in "${input.slice(0, 60)}" must be a number from 0 to ${max}`,
      );
  }
  const hostBits = BigInt(max - prefix);
  const network = (address.value >> hostBits) << hostBits;
  return { family: address.family, network, prefix, cidr: `${formatAddress(address.family, network)}/${prefix}` };
}

export function networkContains(network: IpNetwork, address: IpAddress): boolean {
  if (network.family !== address.family) return false;
  const hostBits = BigInt(BITS[network.family] - network.prefix);
  return address.value >> hostBits === network.network >> hostBits;
}

const parsedNetworks = new Map<string, IpNetwork | null>();

/**
 * Whether the address is inside one of the ranges; an empty list allows every address. Ranges
 * are parsed once and remembered; one that cannot be parsed (edited by hand in the database)
 * matches nothing, so a damaged allow-list fails closed.
 */
export function addressAllowed(allowed: readonly string[], addressText: string): boolean {
  if (allowed.length === 0) return true;
  const address = parseClientAddress(addressText);
  if (!address) return false;
  for (const cidr of allowed) {
    let network = parsedNetworks.get(cidr);
    if (network === undefined) {
      try {
        network = parseIpNetwork(cidr);
      } catch {
        network = null;
      }
      if (parsedNetworks.size > 10_000) parsedNetworks.clear();
      parsedNetworks.set(cidr, network);
    }
    if (network && networkContains(network, address)) return true;
  }
  return false;
}
