import type { Db } from '../db/db';
import type { PortalLogin, PortalLoginRepository } from '../../core/reseller/portal-logins';

interface PortalLoginRow {
  reseller_id: string;
  password_hash: string;
  sealed_totp_secret: string | null;
  recovery_codes: string | null;
  password_set_at: number | string;
}

export class KnexPortalLoginRepository implements PortalLoginRepository {
  constructor(private readonly db: Db) {}

  async find(resellerId: string): Promise<PortalLogin | undefined> {
    const row = await this.db<PortalLoginRow>('portal_logins').where({ reseller_id: resellerId }).first();
    return row && toLogin(row);
  }

  async setPassword(resellerId: string, passwordHash: string, at: Date): Promise<void> {
    // Insert or update in one statement on both engines (SQLite's ON CONFLICT, MariaDB's ON DUPLICATE KEY).
    await this.db<PortalLoginRow>('portal_logins')
      .insert({ reseller_id: resellerId, password_hash: passwordHash, password_set_at: at.getTime() })
      .onConflict('reseller_id')
      .merge(['password_hash', 'password_set_at']);
  }

  async setSecondFactor(
    resellerId: string,
    sealedTotpSecret: string | null,
    recoveryCodeHashes: readonly string[],
  ): Promise<void> {
    await this.db<PortalLoginRow>('portal_logins')
      .where({ reseller_id: resellerId })
      .update({ sealed_totp_secret: sealedTotpSecret, recovery_codes: JSON.stringify(recoveryCodeHashes) });
  }

  async useRecoveryCode(resellerId: string, codeHash: string): Promise<boolean> {
    const current = await this.db<PortalLoginRow>('portal_logins').where({ reseller_id: resellerId }).first();
    const codes = current?.recovery_codes ? (JSON.parse(current.recovery_codes) as string[]) : [];
    if (!current || !codes.includes(codeHash)) return false;
    // Compare-and-set on the whole list: two requests with the same code cannot both use it.
    const updated = await this.db<PortalLoginRow>('portal_logins')
      .where({ reseller_id: resellerId, recovery_codes: current.recovery_codes })
      .update({ recovery_codes: JSON.stringify(codes.filter((h) => h !== codeHash)) });
    return updated === 1;
  }

  async useTotpStep(resellerId: string, step: number): Promise<boolean> {
    // One conditional update: of two requests with the same code, only one finds the step unused.
    const updated = await this.db('portal_logins')
      .where({ reseller_id: resellerId })
      .andWhere((w) => w.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
      .update({ totp_last_step: step });
    return updated === 1;
  }
}

function toLogin(row: PortalLoginRow): PortalLogin {
  return {
    resellerId: row.reseller_id,
    passwordHash: row.password_hash,
    sealedTotpSecret: row.sealed_totp_secret,
    recoveryCodeHashes: row.recovery_codes ? (JSON.parse(row.recovery_codes) as string[]) : [],
    passwordSetAt: new Date(Number(row.password_set_at)),
  };
}
