import { Writable } from 'node:stream';
import { storedEntry, storedReplyBody, storedRequestBody } from '../../../src/core/api-log/api-log';
import { withoutSecrets } from '../../../src/core/audit/audit-log';
import { createLogger } from '../../../src/infra/logging';

/**
 * Every spelling of a secret a client, a plugin or our own code may use, each with its own value:
 * one rule decides, and neither the API log nor the process log may keep any of them.
 */
const SPELLINGS = [
  'eppcode',
  'eppCode',
  'EPP-Code',
  'epp_code',
  'authCode',
  'auth_code',
  'AuthInfo',
  'auth-info',
  'transferCode',
  'transfer_code',
  'password',
  'Password',
  'newPassword',
  'new_password',
  'passwd',
  'passwordHash',
  'apiKey',
  'api_key',
  'API-KEY',
  'x-api-key',
  'token',
  'accessToken',
  'refresh_token',
  'secret',
  'clientSecret',
  'client_secret',
  'sealedSecret',
  'sealedApiKey',
  'webhookSecret',
  'masterKey',
  'master_key',
  'recoveryCodes',
  'authorization',
  'Cookie',
];
const secretValue = (i: number) => `S3CRET-${String(i).padStart(2, '0')}-VALUE`;
const flat = () => Object.fromEntries(SPELLINGS.map((name, i) => [name, secretValue(i)]));
/** The secrets at the top, nested in an object, and in a list. */
const carrying = () => ({ domain: 'example.com', ...flat(), nested: { deeper: flat() }, list: [flat()] });

function leaked(text: string): string[] {
  return SPELLINGS.filter((_, i) => text.includes(secretValue(i)));
}

describe('one rule for secrets, in the API log, the process log and the audit log', () => {
  it('keeps every spelling of a secret out of the API log rows, request and reply', () => {
    const row = storedEntry({
      resellerId: 'r1',
      at: new Date(0),
      method: 'POST',
      route: '/order/domains/transfer',
      domain: 'example.com',
      status: 200,
      durationMs: 1,
      error: null,
      requestId: 'q1',
      clientIp: null,
      requestParams: carrying(),
      replyText: JSON.stringify(carrying()),
    });
    expect(leaked(JSON.stringify(row))).toEqual([]);
    expect(JSON.parse(row.requestBody!)).toMatchObject({ domain: 'example.com' });
    expect(leaked(storedRequestBody(carrying())!)).toEqual([]);
    expect(leaked(storedReplyBody(JSON.stringify(carrying()))!)).toEqual([]);
  });

  it('keeps every spelling of a secret out of the process log, in a line and in a child logger', () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger('debug', stream as never);
    logger.info(carrying(), 'a line');
    logger.child(flat()).warn({ err: Object.assign(new Error('failed'), flat()) }, 'a child line');
    expect(lines).toHaveLength(2);
    expect(leaked(lines.join('\n'))).toEqual([]);
    expect(JSON.parse(lines[0]!)).toMatchObject({ domain: 'example.com', msg: 'a line' });
  });

  it('keeps every spelling of a secret out of the audit log', () => {
    expect(leaked(JSON.stringify(withoutSecrets(carrying())))).toEqual([]);
  });
});
