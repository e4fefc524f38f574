import { type Actor, auditEntry } from '../audit/audit-log';
import { OneTimeLinks } from '../auth/one-time-links';
import { newRecoveryCodes } from '../auth/recovery-codes';
import type { Passwords } from '../auth/passwords';
import type { SecondFactorCodes, SecondFactorSecret } from '../auth/second-factor';
import type { Clock } from '../common/clock';
import { DomainError } from '../common/errors';
import type { UnitOfWork } from '../common/unit-of-work';
import { normaliseEmail } from '../common/validation';
import { checkPassword } from '../operator/operator-service';
import type { Reseller, ResellerSignIn as StoredReseller } from './reseller';

/** How a reseller signs in to the portal; no row until it has followed an invitation. */
export interface PortalLogin {
  readonly resellerId: string;
  readonly passwordHash: string;
  readonly sealedTotpSecret: string | null;
  /** SHA-256 of each unused recovery code. */
  readonly recoveryCodeHashes: readonly string[];
  readonly passwordSetAt: Date;
}

/** Port: the portal's sign-in secrets (src/infra/repositories/knex-portal-login-repository.ts). */
export interface PortalLoginRepository {
  find(resellerId: string): Promise<PortalLogin | undefined>;
  /** Sets the password (a new row on the first one); the second factor is kept. */
  setPassword(resellerId: string, passwordHash: string, at: Date): Promise<void>;
  setSecondFactor(
    resellerId: string,
    sealedTotpSecret: string | null,
    recoveryCodeHashes: readonly string[],
  ): Promise<void>;
  /** Removes one recovery code if it is still there; true for the one caller that did. */
  useRecoveryCode(resellerId: string, codeHash: string): Promise<boolean>;
  /** Records a TOTP code's time step as used if it is later than the last one used; true for the one caller that did. */
  useTotpStep(resellerId: string, step: number): Promise<boolean>;
}

export interface Invitation {
  readonly reseller: Reseller;
  /** The one-time link's token (shown once; only its hash is stored). */
  readonly token: string;
  readonly expiresAt: Date;
}

/** A reseller's portal account as pages show it: never a hash or a secret. */
export interface PortalAccount {
  readonly hasPassword: boolean;
  readonly hasSecondFactor: boolean;
  readonly recoveryCodesLeft: number;
  readonly passwordSetAt: Date | null;
}

/** The outcome of email and password: `suspended` only once the password matched, so it tells a stranger nothing. */
export type PortalSignIn =
  | { readonly ok: true; readonly reseller: Reseller; readonly hasSecondFactor: boolean }
  | { readonly ok: false; readonly reason: 'invalid' | 'suspended' };

const INVITATION = 'reseller_invitation';
const MAX_PASSWORD_LENGTH = 1024;

/**
 * The reseller portal's sign-in (docs/portal.md): a password the reseller sets from a one-time
 * invitation (24 h, used once) that the operator creates in the console or with
 * `reseller-admin reseller invite`, argon2id like the operators', separate from the API key (an API
 * key is not a password: it never signs in, and a portal session never calls the API); optional
 * TOTP with recovery codes; a suspended reseller never signs in. Every change is audited.
 */
export class PortalLogins {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly passwords: Passwords,
    private readonly codes: SecondFactorCodes,
    private readonly clock: Clock,
  ) {}

  /**
   * A one-time link (24 h) for the reseller to set its portal password: its first one, or a new
   * one when it forgot it (the old password works until the link is used). Earlier links stop working.
   */
  async invite(actor: Actor, emailInput: string): Promise<Invitation> {
    const email = normaliseEmail(emailInput);
    return this.uow.run(async ({ resellers, oneTimeLinks, audit }) => {
      const reseller = publicReseller(await resellers.findByEmail(email), emailInput);
      const link = await new OneTimeLinks(oneTimeLinks, this.clock).issue(INVITATION, reseller.id);
      await audit.append(
        auditEntry(
          {
            action: 'reseller.portal.invite',
            subject: { kind: 'reseller', id: reseller.id },
            after: { email: reseller.email, expiresAt: link.expiresAt.toISOString() },
          },
          this.clock.now(),
          actor,
        ),
      );
      return { reseller, ...link };
    });
  }

  /**
   * "Forgot password" on the sign-in page (docs/portal.md#password-reset-by-email): the same
   * one-time link as an invitation (24 h, used once, earlier links stop working) for an active
   * reseller with that email, for the caller to mail; undefined for an address that is not one,
   * which the caller must answer exactly alike.
   */
  async requestPasswordReset(emailInput: string): Promise<Invitation | undefined> {
    let email: string;
    try {
      email = normaliseEmail(emailInput);
    } catch {
      return undefined;
    }
    return this.uow.run(async ({ resellers, oneTimeLinks, audit }) => {
      const found = await resellers.findByEmail(email);
      if (found?.status !== 'active') return undefined;
      const reseller = publicReseller(found, emailInput);
      const link = await new OneTimeLinks(oneTimeLinks, this.clock).issue(INVITATION, reseller.id);
      await audit.append(
        auditEntry(
          {
            action: 'reseller.portal.password_reset_requested',
            subject: { kind: 'reseller', id: reseller.id },
            after: { expiresAt: link.expiresAt.toISOString() },
          },
          this.clock.now(),
          resellerActor(reseller),
        ),
      );
      return { reseller, ...link };
    });
  }

  /** The reseller a usable invitation is for (the form shows its email), without using the link. */
  async invitationHolder(token: string): Promise<Reseller | undefined> {
    const id = await new OneTimeLinks(this.uow.read.oneTimeLinks, this.clock).peek(INVITATION, token);
    const reseller = id ? await this.uow.read.resellers.findById(id) : undefined;
    return reseller?.status === 'active' ? reseller : undefined;
  }

  /** Sets the password through an invitation, which then stops working. */
  async acceptInvitation(token: string, password: string, confirmation: string): Promise<Reseller> {
    checkPassword(password, confirmation);
    if (!(await this.invitationHolder(token))) throw invalidLink();
    // Hashed before the transaction: argon2 takes its time, and a transaction is kept short.
    const passwordHash = await this.passwords.hash(password);
    return this.uow.run(async ({ resellers, oneTimeLinks, portalLogins, audit }) => {
      const id = await new OneTimeLinks(oneTimeLinks, this.clock).use(INVITATION, token);
      const reseller = id ? await resellers.findById(id) : undefined;
      if (!reseller) throw invalidLink();
      const now = this.clock.now();
      await portalLogins.setPassword(reseller.id, passwordHash, now);
      await audit.append(
        auditEntry(
          { action: 'reseller.portal.password_set', subject: { kind: 'reseller', id: reseller.id } },
          now,
          resellerActor(reseller),
        ),
      );
      return reseller;
    });
  }

  /** Email and password, the first step of sign-in. */
  async checkPassword(emailInput: string, password: string): Promise<PortalSignIn> {
    let email = '';
    try {
      email = normaliseEmail(emailInput);
    } catch {
      // An address that cannot be an email is an unknown one.
    }
    const found = email ? await this.uow.read.resellers.findByEmail(email) : undefined;
    const login = found ? await this.uow.read.portalLogins.find(found.id) : undefined;
    const given = String(password ?? '').slice(0, MAX_PASSWORD_LENGTH);
    // An unknown email or one without a portal password: the same answer, after as long.
    const matches = await this.passwords.matches(found && login ? login.passwordHash : undefined, given);
    if (!matches || !found || !login) return { ok: false, reason: 'invalid' };
    const reseller = publicReseller(found, email);
    if (reseller.status !== 'active') return { ok: false, reason: 'suspended' };
    return { ok: true, reseller, hasSecondFactor: login.sealedTotpSecret !== null };
  }

  /** The signed-in reseller's password again, before something sensitive (the EPP code). */
  async confirmPassword(resellerId: string, password: string): Promise<boolean> {
    const login = await this.uow.read.portalLogins.find(resellerId);
    return login
      ? this.passwords.matches(login.passwordHash, String(password ?? '').slice(0, MAX_PASSWORD_LENGTH))
      : false;
  }

  async changePassword(actor: Actor, resellerId: string, current: string, next: string, confirmation: string) {
    if (!(await this.confirmPassword(resellerId, current)))
      throw new DomainError('validation_failed', 'The current password is not right');
    checkPassword(next, confirmation);
    const passwordHash = await this.passwords.hash(next);
    await this.uow.run(async ({ portalLogins, audit }) => {
      const now = this.clock.now();
      await portalLogins.setPassword(resellerId, passwordHash, now);
      await audit.append(
        auditEntry(
          { action: 'reseller.portal.password_change', subject: { kind: 'reseller', id: resellerId } },
          now,
          actor,
        ),
      );
    });
  }

  async account(resellerId: string): Promise<PortalAccount> {
    const login = await this.uow.read.portalLogins.find(resellerId);
    return {
      hasPassword: login !== undefined,
      hasSecondFactor: login?.sealedTotpSecret != null,
      recoveryCodesLeft: login?.recoveryCodeHashes.length ?? 0,
      passwordSetAt: login?.passwordSetAt ?? null,
    };
  }

  /** A new TOTP secret, sealed for the session until `enrol` confirms a code from it. */
  newSecondFactor(reseller: Reseller): SecondFactorSecret & { sealed: string } {
    return this.codes.newSecret(reseller.email);
  }

  describeSecondFactor(sealedSecret: string, reseller: Reseller): SecondFactorSecret {
    return this.codes.describe(sealedSecret, reseller.email);
  }

  /** Turns the second factor on once a code from the secret is right; returns the recovery codes (shown once). */
  async enrol(actor: Actor, resellerId: string, sealedSecret: string, code: string): Promise<string[]> {
    const step = this.codes.confirmedStep(sealedSecret, code);
    if (step === null)
      throw new DomainError('validation_failed', 'That code is not right; check the time on your device and try again');
    const { codes, hashes } = newRecoveryCodes();
    await this.uow.run(async ({ portalLogins, audit }) => {
      await portalLogins.setSecondFactor(resellerId, sealedSecret, hashes);
      // The code that confirmed the secret does not sign in again.
      await portalLogins.useTotpStep(resellerId, step);
      await audit.append(
        auditEntry(
          { action: 'reseller.portal.second_factor.enrol', subject: { kind: 'reseller', id: resellerId } },
          this.clock.now(),
          actor,
        ),
      );
    });
    return codes;
  }

  /**
   * True for the reseller's current TOTP code not used before, or one of its unused recovery codes
   * (then used up). A TOTP code works once within its window.
   */
  async checkSecondFactor(actor: Actor, resellerId: string, code: string): Promise<boolean> {
    const login = await this.uow.read.portalLogins.find(resellerId);
    if (!login?.sealedTotpSecret) return false;
    const given = this.codes.read(login.sealedTotpSecret, code);
    if ('totpStep' in given) {
      const step = given.totpStep;
      return step !== null && this.uow.run(({ portalLogins }) => portalLogins.useTotpStep(resellerId, step));
    }
    const hash = given.recoveryHash;
    if (!login.recoveryCodeHashes.includes(hash)) return false;
    return this.uow.run(async ({ portalLogins, audit }) => {
      const used = await portalLogins.useRecoveryCode(resellerId, hash);
      if (used)
        await audit.append(
          auditEntry(
            {
              action: 'reseller.portal.recovery_code.used',
              subject: { kind: 'reseller', id: resellerId },
              after: { remaining: login.recoveryCodeHashes.length - 1 },
            },
            this.clock.now(),
            actor,
          ),
        );
      return used;
    });
  }

  /** Removes the second factor: by the reseller with its password, or by the operator (a lost phone). */
  async removeSecondFactor(actor: Actor, resellerId: string): Promise<void> {
    await this.uow.run(async ({ portalLogins, audit }) => {
      await portalLogins.setSecondFactor(resellerId, null, []);
      await audit.append(
        auditEntry(
          { action: 'reseller.portal.second_factor.remove', subject: { kind: 'reseller', id: resellerId } },
          this.clock.now(),
          actor,
        ),
      );
    });
  }
}

const invalidLink = () =>
  new DomainError('validation_failed', 'This link is not valid: it has expired or was used already');

function publicReseller(found: StoredReseller | undefined, emailInput: string): Reseller {
  if (!found) throw new DomainError('not_found', `no reseller with email ${String(emailInput).trim()}`);
  const { sealedApiKey: _key, allowedNetworks: _networks, ledgerBalance: _balance, ...reseller } = found;
  return reseller;
}

/** How the audit log names a reseller acting in the portal. */
export const resellerActor = (reseller: Pick<Reseller, 'id' | 'email'>, extra: Partial<Actor> = {}): Actor => ({
  kind: 'reseller',
  id: reseller.id,
  label: reseller.email,
  ...extra,
});
