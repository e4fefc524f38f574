import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { SecretBox } from '../../core/reseller/reseller';

const VERSION = 'v1';

/** AES-256-GCM under the operator's master key; sealed text is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export class AesSecretBox implements SecretBox {
  /** Per purpose, the MAC key HKDF derives from the master key: never the master key itself. */
  private readonly macKeys = new Map<string, Buffer>();

  constructor(private readonly masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
  }

  /** HMAC-SHA256 under HKDF-SHA256(master key, info "domain-reseller mac <purpose>"). */
  mac(purpose: string, message: string): string {
    let key = this.macKeys.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.masterKey, Buffer.alloc(0), `domain-reseller mac ${purpose}`, 32));
      this.macKeys.set(purpose, key);
    }
    return createHmac('sha256', key).update(message).digest('base64url');
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.masterKey, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [
      VERSION,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      body.toString('base64url'),
    ].join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined)
      throw new Error('sealed secret has an unknown format');
    const decipher = createDecipheriv('aes-256-gcm', this.masterKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('cannot open a sealed API key: the master key differs from the one that sealed it');
    }
  }
}
