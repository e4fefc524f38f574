import { BlockList, isIP } from 'node:net';
import fc from 'fast-check';
import { addressAllowed, parseClientAddress, parseIpNetwork } from '../../../../src/core/auth/ip-network';

describe('IP networks', () => {
  describe('parseIpNetwork', () => {
    it.each([
      ['203.0.113.0/24', '203.0.113.0/24'],
      ['10.1.2.3/8', '10.0.0.0/8'],
      ['192.0.2.7', '192.0.2.7/32'],
      ['0.0.0.0/0', '0.0.0.0/0'],
      ['2001:DB8::/32', '2001:db8::/32'],
      ['2001:db8:0:0:0:0:0:1', '2001:db8::1/128'],
      ['2001:db8:1:2:3:4:5:6/48', '2001:db8:1::/48'],
      ['::/0', '::/0'],
      ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
      ['fe80::1%eth0', 'fe80::1/128'],
    ])('reads %s as %s', (input, cidr) => {
      expect(parseIpNetwork(input).cidr).toBe(cidr);
    });

    it.each([
      '',
      'example.com',
      '10.0.0.0/33',
      '2001:db8::/129',
      '10.0.0/8',
      '10.0.0.01',
      '1::2::3',
      '10.0.0.0/8/8',
      '::ffff:1.2.3',
    ])('refuses %j', (input) => {
      expect(() => parseIpNetwork(input)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    });
  });

  it('reads every address node:net reads, to the same address', () => {
    const v6 = fc
      .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })
      .map((groups) => groups.map((g) => g.toString(16)).join(':'));
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6(), v6), (text) => {
        const family = isIP(text);
        expect(parseClientAddress(text)).toBeDefined();
        fc.pre(!(family === 6 && parseClientAddress(text)!.family === 4)); // IPv4-mapped: read as IPv4 on purpose
        const single = parseIpNetwork(text);
        const list = new BlockList();
        list.addAddress(single.cidr.split('/')[0]!, family === 4 ? 'ipv4' : 'ipv6');
        expect(list.check(text, family === 4 ? 'ipv4' : 'ipv6')).toBe(true);
      }),
    );
  });

  it('decides membership as node:net BlockList does', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 0, max: 32 }), fc.ipV4(), (network, prefix, address) => {
        const list = new BlockList();
        list.addSubnet(network, prefix, 'ipv4');
        expect(addressAllowed([`${network}/${prefix}`], address)).toBe(list.check(address, 'ipv4'));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.ipV6(), fc.integer({ min: 0, max: 128 }), fc.ipV6(), (network, prefix, address) => {
        // node:net matches IPv4-mapped addresses against IPv4 rules differently; those are covered above.
        fc.pre(
          !/ffff:\d+\./i.test(network) && !/^::ffff:/i.test(address) && !/\./.test(address) && !/\./.test(network),
        );
        const list = new BlockList();
        list.addSubnet(network, prefix, 'ipv6');
        expect(addressAllowed([`${network}/${prefix}`], address)).toBe(list.check(address, 'ipv6'));
      }),
      { numRuns: 500 },
    );
  });

  describe('addressAllowed', () => {
    it('allows every address when the list is empty', () => {
      expect(addressAllowed([], 'anything')).toBe(true);
    });

    it('matches an IPv4 client a dual-stack socket reports as IPv4-mapped IPv6', () => {
      expect(addressAllowed(['192.0.2.0/24'], '::ffff:192.0.2.9')).toBe(true);
      expect(addressAllowed(['192.0.2.0/24'], '::ffff:198.51.100.9')).toBe(false);
    });

    it('fails closed: an address it cannot read, or a damaged range, matches nothing', () => {
      expect(addressAllowed(['192.0.2.0/24'], 'unknown')).toBe(false);
      expect(addressAllowed(['not-a-range'], '192.0.2.1')).toBe(false);
    });
  });
});
