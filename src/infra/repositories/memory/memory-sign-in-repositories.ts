import type { LinkPurpose, OneTimeLinkRepository, StoredLink } from '../../../core/auth/one-time-links';
import type { OperatorChange, OperatorRecord, OperatorRepository } from '../../../core/operator/operator';
import type { PortalLogin, PortalLoginRepository } from '../../../core/reseller/portal-logins';
import { assertReferenced, assertUnique, byText, copy, folded, type TablesRef } from './memory-tables';

const withoutStep = <T extends { totpLastStep: number | null }>({ totpLastStep: _step, ...row }: T) => copy(row);

/** The twin of KnexOperatorRepository: `operators`, with its unique email. */
export class MemoryOperatorRepository implements OperatorRepository {
  constructor(private readonly ref: TablesRef) {}

  private get rows() {
    return this.ref.tables.operators;
  }

  async insert(operator: OperatorRecord): Promise<void> {
    assertUnique(this.rows.has(operator.id), `operators.id ${operator.id}`);
    const taken = [...this.rows.values()].some((o) => folded(o.email) === folded(operator.email));
    assertUnique(taken, `operators.email ${operator.email}`);
    this.rows.set(operator.id, { ...copy(operator), totpLastStep: null });
  }

  async findById(id: string): Promise<OperatorRecord | undefined> {
    const row = this.rows.get(id);
    return row && withoutStep(row);
  }

  async findByEmail(email: string): Promise<OperatorRecord | undefined> {
    const row = [...this.rows.values()].find((o) => o.email === email);
    return row && withoutStep(row);
  }

  async list(): Promise<OperatorRecord[]> {
    return [...this.rows.values()].sort((a, b) => byText(a.email, b.email)).map(withoutStep);
  }

  async update(id: string, change: OperatorChange): Promise<void> {
    const row = this.rows.get(id);
    if (!row) return;
    const defined = Object.fromEntries(Object.entries(copy(change)).filter(([, value]) => value !== undefined));
    this.rows.set(id, { ...row, ...defined });
  }

  async useRecoveryCode(id: string, codeHash: string): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row?.recoveryCodeHashes.includes(codeHash)) return false;
    this.rows.set(id, { ...row, recoveryCodeHashes: row.recoveryCodeHashes.filter((h) => h !== codeHash) });
    return true;
  }

  async useTotpStep(id: string, step: number): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || (row.totpLastStep !== null && row.totpLastStep >= step)) return false;
    this.rows.set(id, { ...row, totpLastStep: step });
    return true;
  }
}

/** The twin of KnexPortalLoginRepository: `portal_logins`, one row per reseller. */
export class MemoryPortalLoginRepository implements PortalLoginRepository {
  constructor(private readonly ref: TablesRef) {}

  private get rows() {
    return this.ref.tables.portalLogins;
  }

  async find(resellerId: string): Promise<PortalLogin | undefined> {
    const row = this.rows.get(resellerId);
    return row && withoutStep(row);
  }

  async setPassword(resellerId: string, passwordHash: string, at: Date): Promise<void> {
    const row = this.rows.get(resellerId);
    if (!row) assertReferenced(this.ref.tables.resellers.has(resellerId), `portal_logins.reseller_id ${resellerId}`);
    this.rows.set(resellerId, {
      resellerId,
      sealedTotpSecret: null,
      recoveryCodeHashes: [],
      totpLastStep: null,
      ...row,
      passwordHash,
      passwordSetAt: new Date(at.getTime()),
    });
  }

  async setSecondFactor(
    resellerId: string,
    sealedTotpSecret: string | null,
    recoveryCodeHashes: readonly string[],
  ): Promise<void> {
    const row = this.rows.get(resellerId);
    if (row) this.rows.set(resellerId, { ...row, sealedTotpSecret, recoveryCodeHashes: [...recoveryCodeHashes] });
  }

  async useRecoveryCode(resellerId: string, codeHash: string): Promise<boolean> {
    const row = this.rows.get(resellerId);
    if (!row?.recoveryCodeHashes.includes(codeHash)) return false;
    this.rows.set(resellerId, { ...row, recoveryCodeHashes: row.recoveryCodeHashes.filter((h) => h !== codeHash) });
    return true;
  }

  async useTotpStep(resellerId: string, step: number): Promise<boolean> {
    const row = this.rows.get(resellerId);
    if (!row || (row.totpLastStep !== null && row.totpLastStep >= step)) return false;
    this.rows.set(resellerId, { ...row, totpLastStep: step });
    return true;
  }
}

/** The twin of KnexOneTimeLinkRepository: `one_time_links`, keyed by the token's hash. */
export class MemoryOneTimeLinkRepository implements OneTimeLinkRepository {
  constructor(private readonly ref: TablesRef) {}

  private get rows() {
    return this.ref.tables.links;
  }

  async insert(link: StoredLink): Promise<void> {
    assertUnique(this.rows.has(link.tokenHash), `one_time_links.token_hash ${link.tokenHash}`);
    this.rows.set(link.tokenHash, { ...copy(link), usedAt: null });
  }

  async findUsable(tokenHash: string, purpose: LinkPurpose, now: Date): Promise<StoredLink | undefined> {
    const row = this.usable(tokenHash, purpose, now);
    if (!row) return undefined;
    const { usedAt: _used, ...link } = row;
    return copy(link);
  }

  async markUsed(tokenHash: string, purpose: LinkPurpose, now: Date): Promise<boolean> {
    const row = this.usable(tokenHash, purpose, now);
    if (!row) return false;
    this.rows.set(tokenHash, { ...row, usedAt: now.getTime() });
    return true;
  }

  async revokeAll(purpose: LinkPurpose, subjectId: string, now: Date): Promise<void> {
    for (const [hash, row] of this.rows)
      if (row.purpose === purpose && row.subjectId === subjectId && row.usedAt === null)
        this.rows.set(hash, { ...row, usedAt: now.getTime() });
  }

  private usable(tokenHash: string, purpose: LinkPurpose, now: Date) {
    const row = this.rows.get(tokenHash);
    return row && row.purpose === purpose && row.usedAt === null && row.expiresAt.getTime() > now.getTime()
      ? row
      : undefined;
  }
}
