import { randomBytes } from 'node:crypto';
import { AesSecretBox } from '../../../src/infra/crypto/aes-secret-box';

describe('AesSecretBox', () => {
  const box = new AesSecretBox(randomBytes(32));

  it('opens what it sealed, and never stores the plain text', () => {
    const sealed = box.seal('my-api-key');
    expect(sealed).not.toContain('my-api-key');
    expect(box.open(sealed)).toBe('my-api-key');
  });

  it('seals the same key differently each time', () => {
    expect(box.seal('k')).not.toBe(box.seal('k'));
  });

  it('refuses to open under another master key or after tampering', () => {
    const sealed = box.seal('my-api-key');
    expect(() => new AesSecretBox(randomBytes(32)).open(sealed)).toThrow(/master key/);
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
  });
});
