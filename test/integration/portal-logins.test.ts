import { TOTP, Secret } from 'otpauth';
import type { Actor } from '../../src/core/audit/audit-log';
import { computeToken } from '../../src/core/auth/api-token';
import { cli } from '../support/cli';
import { startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';

const OPERATOR: Actor = { kind: 'cli', id: null, label: 'cli:test' };
const PASSWORD = 'correct horse battery';

/** docs/portal.md#signing-in: invitations, the portal password apart from the API key, the second factor. */
describe('portal logins', () => {
  let h: Harness;
  const logins = () => h.module.services.portalLogins;
  const resellerId = async () => (await h.module.services.resellers.byEmail(h.reseller.email)).id;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('has no password until the reseller follows its invitation, which works once', async () => {
    expect(await logins().checkPassword(h.reseller.email, PASSWORD)).toEqual({ ok: false, reason: 'invalid' });
    const invitation = await logins().invite(OPERATOR, 'Reseller@Example.com');
    expect(invitation.reseller.email).toBe('reseller@example.com');
    expect(invitation.expiresAt.getTime() - h.clock.now().getTime()).toBe(24 * 3_600_000);
    expect((await logins().invitationHolder(invitation.token))?.email).toBe('reseller@example.com');

    await expect(logins().acceptInvitation(invitation.token, 'short', 'short')).rejects.toThrow('at least 12');
    await expect(logins().acceptInvitation(invitation.token, PASSWORD, `${PASSWORD}!`)).rejects.toThrow('not the same');
    await logins().acceptInvitation(invitation.token, PASSWORD, PASSWORD);
    await expect(
      logins().acceptInvitation(invitation.token, 'another password 1', 'another password 1'),
    ).rejects.toThrow('expired or was used already');
    const signIn = await logins().checkPassword(' RESELLER@example.com ', PASSWORD);
    expect(signIn).toMatchObject({ ok: true, hasSecondFactor: false, reseller: { email: 'reseller@example.com' } });
    expect(JSON.stringify(signIn)).not.toMatch(/sealed|apiKey|hash/i);
  });

  it('stops an invitation after 24 hours, and a new one revokes the earlier', async () => {
    const first = await logins().invite(OPERATOR, h.reseller.email);
    const second = await logins().invite(OPERATOR, h.reseller.email);
    expect(await logins().invitationHolder(first.token)).toBeUndefined();
    h.clock.advance(24 * 3_600_000 + 1);
    expect(await logins().invitationHolder(second.token)).toBeUndefined();
    await expect(logins().acceptInvitation(second.token, 'a new password 1', 'a new password 1')).rejects.toThrow(
      'expired or was used already',
    );
    expect((await logins().checkPassword(h.reseller.email, PASSWORD)).ok).toBe(true);
  });

  it('keeps the API key and the portal password apart: neither opens the other door', async () => {
    expect(await logins().checkPassword(h.reseller.email, h.reseller.apiKey)).toEqual({ ok: false, reason: 'invalid' });
    const withPassword = await h.http
      .get('/billing/credits')
      .set({ username: h.reseller.email, token: computeToken(h.reseller.email, PASSWORD, h.clock.now()) });
    expect(withPassword.status).toBe(401);
    expect(withPassword.body).toEqual({ error: 'Invalid API Token provided' });
  });

  it('refuses a suspended reseller once the password matched, and a wrong password the same as an unknown email', async () => {
    await h.module.services.resellers.setStatus(h.reseller.email, 'suspended');
    try {
      expect(await logins().checkPassword(h.reseller.email, PASSWORD)).toEqual({ ok: false, reason: 'suspended' });
      expect(await logins().checkPassword(h.reseller.email, 'wrong password!')).toEqual({
        ok: false,
        reason: 'invalid',
      });
      expect(await logins().checkPassword('nobody@example.com', PASSWORD)).toEqual({ ok: false, reason: 'invalid' });
      const invitation = await logins().invite(OPERATOR, h.reseller.email);
      expect(await logins().invitationHolder(invitation.token)).toBeUndefined();
    } finally {
      await h.module.services.resellers.setStatus(h.reseller.email, 'active');
    }
  });

  it('turns on TOTP with recovery codes that each work once, and audits every step', async () => {
    const id = await resellerId();
    const actor: Actor = { kind: 'reseller', id, label: h.reseller.email };
    const reseller = await h.module.services.resellers.byEmail(h.reseller.email);
    const { secret, sealed } = logins().newSecondFactor(reseller);
    const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
    await expect(logins().enrol(actor, id, sealed, '000000')).rejects.toThrow('not right');
    const codes = await logins().enrol(actor, id, sealed, totp.generate({ timestamp: h.clock.now().getTime() }));
    expect(codes).toHaveLength(10);
    expect(await logins().checkPassword(h.reseller.email, PASSWORD)).toMatchObject({ ok: true, hasSecondFactor: true });

    // The code that confirmed the secret does not sign in again; the next one does, once.
    const enrolCode = totp.generate({ timestamp: h.clock.now().getTime() });
    expect(await logins().checkSecondFactor(actor, id, enrolCode)).toBe(false);
    h.clock.advance(30_000);
    const next = totp.generate({ timestamp: h.clock.now().getTime() });
    expect(await logins().checkSecondFactor(actor, id, next)).toBe(true);
    expect(await logins().checkSecondFactor(actor, id, next)).toBe(false);
    expect(await logins().checkSecondFactor(actor, id, '123456')).toBe(false);
    expect(await logins().checkSecondFactor(actor, id, codes[0]!.toUpperCase())).toBe(true);
    expect(await logins().checkSecondFactor(actor, id, codes[0]!)).toBe(false);
    expect((await logins().account(id)).recoveryCodesLeft).toBe(9);

    const entries = await h.module.services.audit.find({ subject: { kind: 'reseller', id }, limit: 50 });
    const actions = entries.map((e) => e.action);
    for (const action of [
      'reseller.portal.invite',
      'reseller.portal.password_set',
      'reseller.portal.second_factor.enrol',
      'reseller.portal.recovery_code.used',
    ])
      expect(actions).toContain(action);
    expect(JSON.stringify(entries)).not.toContain(PASSWORD);
  });
});

describe('reseller-admin reseller invite', () => {
  it('prints a one-time link under PUBLIC_URL and the portal path', async () => {
    const h = await startHarness();
    try {
      const env = {
        DATABASE_URL: h.databaseUrl,
        MASTER_KEY: TEST_MASTER_KEY,
        LOG_LEVEL: 'silent',
        USER: 'ops',
        PUBLIC_URL: 'https://resellers.example.com',
      };
      const result = await cli(env, 'reseller', 'invite', h.reseller.email);
      expect(result.code).toBe(0);
      const out = result.json();
      expect(out.invitationLink).toMatch(/^https:\/\/resellers\.example\.com\/portal\/invitation\?token=[\w-]{43}$/);
      const token = new URL(out.invitationLink).searchParams.get('token')!;
      expect((await h.module.services.portalLogins.invitationHolder(token))?.email).toBe(h.reseller.email);
      expect((await cli(env, 'reseller', 'invite', 'nobody@example.com')).code).toBe(1);
      const reset = await cli(env, 'reseller', 'reset-portal-2fa', h.reseller.email);
      expect(reset.json()).toEqual({ email: h.reseller.email, hasSecondFactor: false });
    } finally {
      await h.close();
    }
  });
});
