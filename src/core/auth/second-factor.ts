import type { TotpCodes } from '../operator/operator';
import type { SecretBox } from '../reseller/reseller';
import { recoveryCodeHash, totpCodeOf } from './recovery-codes';

/** A TOTP secret as the enrolment page shows it: typed into an authenticator app, or its URI. */
export interface SecondFactorSecret {
  readonly secret: string;
  readonly uri: string;
}

/** What a code typed at sign-in is: a TOTP code (its time step, null when it is not right) or a possible recovery code. */
export type SecondFactorCode = { readonly totpStep: number | null } | { readonly recoveryHash: string };

/**
 * The codes of a second factor, the same for operators and for resellers: a new TOTP secret kept
 * sealed until a code from it confirms it, and what a code typed later is. Each service stores the
 * secret, uses up steps and recovery codes, and audits in its own tables.
 */
export class SecondFactorCodes {
  constructor(
    private readonly totp: TotpCodes,
    private readonly secrets: SecretBox,
  ) {}

  /** A new TOTP secret for `account`, and the same sealed, to hold until `confirmedStep` accepts a code from it. */
  newSecret(account: string): SecondFactorSecret & { readonly sealed: string } {
    const secret = this.totp.newSecret();
    return { secret, uri: this.totp.uri(secret, account), sealed: this.secrets.seal(secret) };
  }

  describe(sealedSecret: string, account: string): SecondFactorSecret {
    const secret = this.secrets.open(sealedSecret);
    return { secret, uri: this.totp.uri(secret, account) };
  }

  /** The time step of `code` when it is a right TOTP code for the sealed secret, else null (recovery codes do not enrol). */
  confirmedStep(sealedSecret: string, code: string): number | null {
    const digits = totpCodeOf(String(code ?? ''));
    return digits ? this.totp.stepOf(this.secrets.open(sealedSecret), digits) : null;
  }

  /** Six digits are a TOTP code checked against the sealed secret; anything else is tried as a recovery code. */
  read(sealedSecret: string, code: string): SecondFactorCode {
    const given = String(code ?? '').trim();
    const digits = totpCodeOf(given);
    if (digits) return { totpStep: this.totp.stepOf(this.secrets.open(sealedSecret), digits) };
    return { recoveryHash: recoveryCodeHash(given) };
  }
}
