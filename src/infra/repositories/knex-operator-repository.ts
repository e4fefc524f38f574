import type { Db } from '../db/db';
import type { OperatorChange, OperatorRecord, OperatorRepository, OperatorRole } from '../../core/operator/operator';

interface OperatorRow {
  id: string;
  email: string;
  role: string;
  password_hash: string | null;
  sealed_totp_secret: string | null;
  recovery_codes: string | null;
  disabled_at: number | string | null;
  created_at: number | string;
}

export class KnexOperatorRepository implements OperatorRepository {
  constructor(private readonly db: Db) {}

  async insert(operator: OperatorRecord): Promise<void> {
    await this.db<OperatorRow>('operators').insert({
      id: operator.id,
      email: operator.email,
      role: operator.role,
      password_hash: operator.passwordHash,
      sealed_totp_secret: operator.sealedTotpSecret,
      recovery_codes: JSON.stringify(operator.recoveryCodeHashes),
      disabled_at: operator.disabledAt?.getTime() ?? null,
      created_at: operator.createdAt.getTime(),
    });
  }

  async findById(id: string): Promise<OperatorRecord | undefined> {
    const row = await this.db<OperatorRow>('operators').where({ id }).first();
    return row ? toRecord(row) : undefined;
  }

  async findByEmail(email: string): Promise<OperatorRecord | undefined> {
    const row = await this.db<OperatorRow>('operators').where({ email }).first();
    return row ? toRecord(row) : undefined;
  }

  async list(): Promise<OperatorRecord[]> {
    return (await this.db<OperatorRow>('operators').orderBy('email')).map(toRecord);
  }

  async update(id: string, change: OperatorChange): Promise<void> {
    const row: Partial<OperatorRow> = {};
    if (change.passwordHash !== undefined) row.password_hash = change.passwordHash;
    if (change.sealedTotpSecret !== undefined) row.sealed_totp_secret = change.sealedTotpSecret;
    if (change.recoveryCodeHashes !== undefined) row.recovery_codes = JSON.stringify(change.recoveryCodeHashes);
    if (change.disabledAt !== undefined) row.disabled_at = change.disabledAt?.getTime() ?? null;
    if (change.role !== undefined) row.role = change.role;
    if (Object.keys(row).length > 0) await this.db<OperatorRow>('operators').where({ id }).update(row);
  }

  async useRecoveryCode(id: string, codeHash: string): Promise<boolean> {
    const current = await this.db<OperatorRow>('operators').where({ id }).first();
    const codes = current?.recovery_codes ? (JSON.parse(current.recovery_codes) as string[]) : [];
    if (!current || !codes.includes(codeHash)) return false;
    // Compare-and-set on the whole list: two requests with the same code cannot both use it.
    const updated = await this.db<OperatorRow>('operators')
      .where({ id, recovery_codes: current.recovery_codes })
      .update({ recovery_codes: JSON.stringify(codes.filter((h) => h !== codeHash)) });
    return updated === 1;
  }

  async useTotpStep(id: string, step: number): Promise<boolean> {
    // One conditional update: of two requests with the same code, only one finds the step unused.
    const updated = await this.db('operators')
      .where({ id: id })
      .andWhere((w) => w.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
      .update({ totp_last_step: step });
    return updated === 1;
  }
}

function toRecord(row: OperatorRow): OperatorRecord {
  return {
    id: row.id,
    email: row.email,
    role: row.role as OperatorRole,
    passwordHash: row.password_hash,
    sealedTotpSecret: row.sealed_totp_secret,
    recoveryCodeHashes: row.recovery_codes ? (JSON.parse(row.recovery_codes) as string[]) : [],
    disabledAt: row.disabled_at === null ? null : new Date(Number(row.disabled_at)),
    createdAt: new Date(Number(row.created_at)),
  };
}
