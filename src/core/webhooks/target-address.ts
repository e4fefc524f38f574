import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may never reach unless the operator allows insecure targets: loopback,
 * private, shared (CGNAT), link-local (and so the cloud metadata service at 169.254.169.254 and
 * fd00:ec2::254), multicast, reserved and unspecified ranges.
 */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
  // IPv4-mapped in hex form (::ffff:7f00:1); the dotted form is judged as its IPv4 address below.
  ['::ffff:0:0', 96],
] as const)
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');

/** True for an address a webhook must not be sent to (an IPv4-mapped IPv6 address is judged as its IPv4 address). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return FORBIDDEN.check(mapped[1]!, 'ipv4');
    return FORBIDDEN.check(address, 'ipv6');
  }
  return FORBIDDEN.check(address, 'ipv4');
}
