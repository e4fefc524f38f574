import type { Minor } from '../../../core/common/money';
import type {
  GroupRepository,
  LowCreditAlert,
  Reseller,
  ResellerCredentials,
  ResellerGroup,
  ResellerRepository,
  ResellerSignIn,
  ResellerStatus,
} from '../../../core/reseller/reseller';
import {
  assertMinor,
  assertReferenced,
  assertUnique,
  byText,
  copy,
  folded,
  type ResellerRow,
  type TablesRef,
} from './memory-tables';

const withoutKey = ({
  sealedApiKey: _key,
  allowedNetworks: _networks,
  lowCreditThreshold: _threshold,
  isCreditLow: _low,
  ...reseller
}: ResellerRow): Reseller => copy(reseller);

const credentials = ({ lowCreditThreshold: _t, isCreditLow: _l, ...row }: ResellerRow): ResellerCredentials =>
  copy(row);

/** The twin of KnexResellerRepository: the `resellers` table, its unique email and its group key. */
export class MemoryResellerRepository implements ResellerRepository {
  constructor(private readonly ref: TablesRef) {}

  private get rows() {
    return this.ref.tables.resellers;
  }

  async findByEmail(email: string): Promise<ResellerSignIn | undefined> {
    const row = [...this.rows.values()].find((r) => r.email === email);
    if (!row) return undefined;
    return Object.assign(credentials(row), { ledgerBalance: this.ref.tables.accounts.get(row.id) ?? 0 });
  }

  async findById(id: string): Promise<Reseller | undefined> {
    const row = this.rows.get(id);
    return row && withoutKey(row);
  }

  /** Row locks are no-ops here: a transaction has the tables to itself until it ends. */
  async lockById(id: string): Promise<Reseller | undefined> {
    return this.findById(id);
  }

  async list(): Promise<Reseller[]> {
    return [...this.rows.values()].sort((a, b) => byText(a.email, b.email)).map(withoutKey);
  }

  async insert(r: ResellerCredentials): Promise<void> {
    assertUnique(this.rows.has(r.id), `resellers.id ${r.id}`);
    this.assertEmailFree(r.email);
    assertReferenced(this.ref.tables.groups.has(r.groupId), `resellers.group_id ${r.groupId}`);
    this.rows.set(r.id, { ...copy(r), allowedNetworks: [], lowCreditThreshold: null, isCreditLow: false });
  }

  async setStatus(id: string, status: ResellerStatus): Promise<void> {
    this.change(id, (row) => ({ ...row, status }));
  }

  async setSealedApiKey(id: string, sealedApiKey: string): Promise<void> {
    this.change(id, (row) => ({ ...row, sealedApiKey }));
  }

  async setGroup(id: string, groupId: string): Promise<void> {
    if (!this.rows.has(id)) return;
    assertReferenced(this.ref.tables.groups.has(groupId), `resellers.group_id ${groupId}`);
    this.change(id, (row) => ({ ...row, groupId }));
  }

  async setEmail(id: string, email: string): Promise<void> {
    if (!this.rows.has(id)) return;
    this.assertEmailFree(email, id);
    this.change(id, (row) => ({ ...row, email }));
  }

  async addAllowedNetwork(id: string, cidr: string): Promise<void> {
    this.change(id, (row) =>
      row.allowedNetworks.includes(cidr) ? row : { ...row, allowedNetworks: [...row.allowedNetworks, cidr].sort() },
    );
  }

  async removeAllowedNetwork(id: string, cidr: string): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row?.allowedNetworks.includes(cidr)) return false;
    this.change(id, (r) => ({ ...r, allowedNetworks: r.allowedNetworks.filter((c) => c !== cidr) }));
    return true;
  }

  async allowedNetworks(id: string): Promise<string[]> {
    return [...(this.rows.get(id)?.allowedNetworks ?? [])];
  }

  async lowCredit(id: string): Promise<LowCreditAlert | undefined> {
    const row = this.rows.get(id);
    return row && { threshold: row.lowCreditThreshold, isLow: row.isCreditLow };
  }

  async setLowCredit(id: string, alert: LowCreditAlert): Promise<void> {
    if (alert.threshold !== null) assertMinor(alert.threshold, 'low_credit_threshold_minor');
    this.change(id, (row) => ({ ...row, lowCreditThreshold: alert.threshold, isCreditLow: alert.isLow }));
    this.ref.tables.routingVersion++;
  }

  async withLowCreditThreshold(): Promise<string[]> {
    return [...this.rows.values()].filter((r) => r.lowCreditThreshold !== null).map((r) => r.id);
  }

  async settleCreditLow(id: string): Promise<{ balance: Minor; threshold: Minor } | undefined> {
    const balance = this.ref.tables.accounts.get(id);
    const row = this.rows.get(id);
    if (balance === undefined || !row) return undefined;
    const threshold = row.lowCreditThreshold;
    if (!row.isCreditLow && threshold !== null && threshold > balance) {
      this.change(id, (r) => ({ ...r, isCreditLow: true }));
      return { balance, threshold };
    }
    if (row.isCreditLow && (threshold === null || threshold <= balance))
      this.change(id, (r) => ({ ...r, isCreditLow: false }));
    return undefined;
  }

  private assertEmailFree(email: string, except?: string): void {
    const taken = [...this.rows.values()].some((r) => r.id !== except && folded(r.email) === folded(email));
    assertUnique(taken, `resellers.email ${email}`);
  }

  /** An UPDATE … WHERE id: a missing row changes nothing. */
  private change(id: string, apply: (row: ResellerRow) => ResellerRow): void {
    const row = this.rows.get(id);
    if (row) this.rows.set(id, apply(row));
  }
}

/** The twin of KnexGroupRepository: `reseller_groups`, its unique name, and the catalogue rows deleted with it. */
export class MemoryGroupRepository implements GroupRepository {
  constructor(private readonly ref: TablesRef) {}

  private get rows() {
    return this.ref.tables.groups;
  }

  async findByName(name: string): Promise<ResellerGroup | undefined> {
    return copy([...this.rows.values()].find((g) => g.name === name));
  }

  async findById(id: string): Promise<ResellerGroup | undefined> {
    return copy(this.rows.get(id));
  }

  async list(): Promise<ResellerGroup[]> {
    return copy([...this.rows.values()].sort((a, b) => byText(a.name, b.name)));
  }

  async insert(group: ResellerGroup): Promise<void> {
    assertUnique(this.rows.has(group.id), `reseller_groups.id ${group.id}`);
    this.assertNameFree(group.name);
    this.rows.set(group.id, copy(group));
  }

  async setDefaultContact(id: string, contact: Record<string, string> | null): Promise<void> {
    const row = this.rows.get(id);
    if (row) this.rows.set(id, { ...row, defaultContact: copy(contact) });
  }

  async rename(id: string, name: string): Promise<void> {
    const row = this.rows.get(id);
    if (!row) return;
    this.assertNameFree(name, id);
    this.rows.set(id, { ...row, name });
  }

  async delete(id: string): Promise<void> {
    const t = this.ref.tables;
    for (const [k, price] of t.tldPrices) if (price.groupId === id) t.tldPrices.delete(k);
    for (const [k, price] of t.addonPrices) if (price.groupId === id) t.addonPrices.delete(k);
    t.premiumRules.delete(id);
    const held = [...t.resellers.values()].some((r) => r.groupId === id);
    assertReferenced(!held, `resellers.group_id ${id} still references the group`);
    this.rows.delete(id);
  }

  private assertNameFree(name: string, except?: string): void {
    const taken = [...this.rows.values()].some((g) => g.id !== except && folded(g.name) === folded(name));
    assertUnique(taken, `reseller_groups.name ${name}`);
  }
}
