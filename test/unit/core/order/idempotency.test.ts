import { createHash, randomBytes } from 'node:crypto';
import { fingerprintOf, isFingerprintOf } from '../../../../src/core/order/idempotency';
import { AesSecretBox } from '../../../../src/infra/crypto/aes-secret-box';

/** How fingerprints were made before they were keyed: SHA-256 over the canonical request, nothing secret in it. */
const unkeyed = (canonical: string) => createHash('sha256').update(canonical).digest('hex');

describe('idempotency fingerprints', () => {
  const box = new AesSecretBox(randomBytes(32));

  it('ignore key order and undefined fields, and see every other difference', () => {
    expect(fingerprintOf('register', { a: 1, b: { c: 2, d: undefined } }, box)).toBe(
      fingerprintOf('register', { b: { c: 2 }, a: 1 }, box),
    );
    expect(fingerprintOf('register', { a: 1 }, box)).not.toBe(fingerprintOf('renew', { a: 1 }, box));
    expect(fingerprintOf('register', { a: [1, 2] }, box)).not.toBe(fingerprintOf('register', { a: [2, 1] }, box));
  });

  it('give away no EPP code to whoever reads them without the master key, however short the code', () => {
    const stored = fingerprintOf('transfer', { domain: 'guess-me.com', eppCode: '4711' }, box);
    // Every four-digit code, hashed as the request would be: none is the stored fingerprint.
    const guessed = Array.from({ length: 10_000 }, (_, n) => String(n).padStart(4, '0')).find(
      (code) =>
        unkeyed(`{"action":"transfer","command":{"domain":"guess-me.com","eppCode":"${code}"}}`) === stored ||
        stored.includes(unkeyed(`{"action":"transfer","command":{"domain":"guess-me.com","eppCode":"${code}"}}`)),
    );
    expect(guessed).toBeUndefined();
    // Under another master key the same request has another fingerprint.
    expect(
      fingerprintOf('transfer', { domain: 'guess-me.com', eppCode: '4711' }, new AesSecretBox(randomBytes(32))),
    ).not.toBe(stored);
    expect(isFingerprintOf(stored, 'transfer', { domain: 'guess-me.com', eppCode: '4711' }, box)).toBe(true);
    expect(isFingerprintOf(stored, 'transfer', { domain: 'guess-me.com', eppCode: '4712' }, box)).toBe(false);
  });

  it('still recognise a request whose key was stored before fingerprints were keyed (an upgrade within the TTL)', () => {
    const before = unkeyed('{"action":"transfer","command":{"domain":"old.com","eppCode":"4711"}}');
    expect(isFingerprintOf(before, 'transfer', { eppCode: '4711', domain: 'old.com' }, box)).toBe(true);
    expect(isFingerprintOf(before, 'transfer', { eppCode: '4712', domain: 'old.com' }, box)).toBe(false);
    expect(isFingerprintOf(before, 'register', { eppCode: '4711', domain: 'old.com' }, box)).toBe(false);
  });
});
