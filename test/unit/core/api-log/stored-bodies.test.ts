import { BODY_CAP, storedReplyBody, storedRequestBody } from '../../../../src/core/api-log/api-log';

describe('API log bodies as stored', () => {
  describe('storedRequestBody', () => {
    it('redacts EPP and auth codes, passwords, tokens, API keys and secrets at any depth and in any spelling', () => {
      const stored = storedRequestBody({
        domain: 'example.com',
        eppcode: 'E1',
        authCode: 'A1',
        auth_info: 'A2',
        Password: 'P1',
        contacts: { Registrant: { 'First Name': 'Ada', password: 'P2' } },
        list: [{ apiKey: 'K1' }, { token: 'T1' }, { client_secret: 'S1' }],
      });
      expect(JSON.parse(stored!)).toEqual({
        domain: 'example.com',
        eppcode: '[redacted]',
        authCode: '[redacted]',
        auth_info: '[redacted]',
        Password: '[redacted]',
        contacts: { Registrant: { 'First Name': 'Ada', password: '[redacted]' } },
        list: [{ apiKey: '[redacted]' }, { token: '[redacted]' }, { client_secret: '[redacted]' }],
      });
      for (const secret of ['E1', 'A1', 'A2', 'P1', 'P2', 'K1', 'T1', 'S1'])
        expect(stored).not.toContain(`"${secret}"`);
    });

    it('stores nothing for a call without parameters', () => {
      expect(storedRequestBody(undefined)).toBeNull();
      expect(storedRequestBody(Object.create(null))).toBeNull();
    });

    it('keeps at most BODY_CAP characters and says how many were cut', () => {
      const stored = storedRequestBody({ note: 'x'.repeat(10_000) })!;
      expect(stored.startsWith('{"note":"xxx')).toBe(true);
      expect(stored.length).toBeLessThan(BODY_CAP + 50);
      expect(stored).toMatch(/… \[\d+ more characters not kept\]$/);
    });
  });

  describe('storedReplyBody', () => {
    it('redacts the EPP code of a reply and keeps a reply without secrets as sent', () => {
      expect(storedReplyBody('{"eppcode":"S3cr3t"}')).toBe('{"eppcode":"[redacted]"}');
      expect(storedReplyBody('"100.00"')).toBe('"100.00"');
      expect(storedReplyBody('{"success":true,"locked":true}')).toBe('{"success":true,"locked":true}');
    });

    it('keeps out a reply that is not JSON and may hold a secret', () => {
      expect(storedReplyBody('eppcode: S3cr3t')).toBe('[redacted]');
    });

    it('stores nothing for an empty reply', () => {
      expect(storedReplyBody(undefined)).toBeNull();
      expect(storedReplyBody('')).toBeNull();
    });
  });
});
