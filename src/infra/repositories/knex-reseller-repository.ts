import type { Db } from '../db/db';
import { databaseKind } from '../db/database-kind';
import { type HotReads, knexHotReads } from '../db/driver-pools';
import { raiseRoutingVersion } from './event-routing';
import type {
  Reseller,
  ResellerCredentials,
  ResellerGroup,
  ResellerSignIn,
  ResellerRepository,
  ResellerStatus,
  GroupRepository,
  LowCreditAlert,
} from '../../core/reseller/reseller';

interface ResellerRow {
  id: string;
  email: string;
  group_id: string;
  status: string;
  sealed_api_key: string;
  created_at: number | string;
  allowed_networks?: string | null;
}
interface SignInRow extends ResellerRow {
  ledger_balance: number | string | null;
}
interface GroupRow {
  id: string;
  name: string;
  default_contact: string | null;
}

const NONE: readonly string[] = Object.freeze([]);

/** The allow-list column: a JSON array of CIDR ranges, or NULL for none. Damage reads as a range that matches nothing (fail closed). */
function parseNetworks(text: string | null | undefined): readonly string[] {
  if (!text) return NONE;
  try {
    const list = JSON.parse(text);
    return Array.isArray(list) ? list.map(String) : ['invalid'];
  } catch {
    return ['invalid'];
  }
}

const toCredentials = (row: ResellerRow): ResellerCredentials => ({
  id: row.id,
  email: row.email,
  groupId: row.group_id,
  status: row.status as ResellerStatus,
  createdAt: new Date(Number(row.created_at)),
  sealedApiKey: row.sealed_api_key,
  allowedNetworks: parseNetworks(row.allowed_networks),
});

const withoutKey = ({ sealedApiKey: _key, allowedNetworks: _networks, ...reseller }: ResellerCredentials): Reseller =>
  reseller;

// One statement for everything authentication and GET /billing/credits need (ADR 12); no account row is a balance of 0.
// The columns are named: each one in the answer is a column definition the driver parses on every
// request, and a column added to the table later is not read by every API call.
const FIND_BY_EMAIL = `SELECT r.id, r.email, r.group_id, r.status, r.sealed_api_key, r.created_at, r.allowed_networks,
  a.balance_minor AS ledger_balance FROM resellers r
  LEFT JOIN credit_accounts a ON a.reseller_id = r.id WHERE r.email = ? LIMIT 1`;

export class KnexResellerRepository implements ResellerRepository {
  private readonly reads: HotReads;

  /** `reads`: the hot-path reader for the sign-in statement (src/infra/db/driver-pools.ts); never given for a transaction. */
  constructor(
    private readonly db: Db,
    reads?: HotReads,
  ) {
    this.reads = reads ?? knexHotReads(db);
  }

  /** The reseller with its allow-list and balance: authentication runs this on every request. */
  async findByEmail(email: string): Promise<ResellerSignIn | undefined> {
    const row = await this.reads.first<SignInRow>(FIND_BY_EMAIL, [email]);
    // Added to the literal, not spread into a new one (docs/performance.md#object-shapes-on-the-hot-path).
    return row && Object.assign(toCredentials(row), { ledgerBalance: Number(row.ledger_balance ?? 0) });
  }

  async findById(id: string): Promise<Reseller | undefined> {
    const row = await this.db<ResellerRow>('resellers').where({ id }).first();
    return row && withoutKey(toCredentials(row));
  }

  async lockById(id: string): Promise<Reseller | undefined> {
    const query = this.db<ResellerRow>('resellers').where({ id }).first();
    // SQLite has one writer at a time already (and knex warns at FOR UPDATE there).
    if (databaseKind(this.db) === 'mysql') query.forUpdate();
    const row = await query;
    return row && withoutKey(toCredentials(row));
  }

  async list(): Promise<Reseller[]> {
    const rows = await this.db<ResellerRow>('resellers').orderBy('email');
    return rows.map((row) => withoutKey(toCredentials(row)));
  }

  async insert(r: ResellerCredentials): Promise<void> {
    await this.db('resellers').insert({
      id: r.id,
      email: r.email,
      group_id: r.groupId,
      status: r.status,
      sealed_api_key: r.sealedApiKey,
      created_at: r.createdAt.getTime(),
    });
  }

  async setStatus(id: string, status: ResellerStatus): Promise<void> {
    await this.db('resellers').where({ id }).update({ status });
  }

  async setSealedApiKey(id: string, sealedApiKey: string): Promise<void> {
    await this.db('resellers').where({ id }).update({ sealed_api_key: sealedApiKey });
  }

  async setGroup(id: string, groupId: string): Promise<void> {
    await this.db('resellers').where({ id }).update({ group_id: groupId });
  }

  async setEmail(id: string, email: string): Promise<void> {
    await this.db('resellers').where({ id }).update({ email });
  }

  async addAllowedNetwork(id: string, cidr: string): Promise<void> {
    const current = await this.lockedNetworks(id);
    if (current.includes(cidr)) return;
    await this.db('resellers')
      .where({ id })
      .update({ allowed_networks: JSON.stringify([...current, cidr].sort()) });
  }

  async removeAllowedNetwork(id: string, cidr: string): Promise<boolean> {
    const current = await this.lockedNetworks(id);
    if (!current.includes(cidr)) return false;
    const rest = current.filter((c) => c !== cidr);
    await this.db('resellers')
      .where({ id })
      .update({ allowed_networks: rest.length > 0 ? JSON.stringify(rest) : null });
    return true;
  }

  async allowedNetworks(id: string): Promise<string[]> {
    const row = await this.db<ResellerRow>('resellers').where({ id }).first('allowed_networks');
    return [...parseNetworks(row?.allowed_networks)];
  }

  async lowCredit(id: string): Promise<LowCreditAlert | undefined> {
    const row = await this.db('resellers')
      .where({ id })
      .first<{ low_credit_threshold_minor: number | string | null; is_credit_low: number | boolean } | undefined>(
        'low_credit_threshold_minor',
        'is_credit_low',
      );
    if (!row) return undefined;
    const threshold = row.low_credit_threshold_minor;
    return { threshold: threshold === null ? null : Number(threshold), isLow: Boolean(row.is_credit_low) };
  }

  async setLowCredit(id: string, alert: LowCreditAlert): Promise<void> {
    await this.db('resellers')
      .where({ id })
      .update({ low_credit_threshold_minor: alert.threshold, is_credit_low: alert.isLow });
    await raiseRoutingVersion(this.db);
  }

  async withLowCreditThreshold(): Promise<string[]> {
    return (await this.db('resellers').whereNotNull('low_credit_threshold_minor').select('id')).map(
      (r: { id: string }) => r.id,
    );
  }

  async settleCreditLow(id: string): Promise<{ balance: number; threshold: number } | undefined> {
    // The reseller row first, then its balance: the order every transaction takes them in
    // (docs/architecture.md#lock-order). Locked until commit on MariaDB, the flag cannot be
    // settled twice, and the balance, shared-locked, is the one now: no debit moves it meanwhile
    // (SQLite has one writer at a time already).
    const mysql = databaseKind(this.db) === 'mysql';
    const reseller = this.db('resellers').where({ id });
    if (mysql) reseller.forUpdate();
    const alert = await reseller.first<
      { low_credit_threshold_minor: number | string | null; is_credit_low: number | boolean } | undefined
    >('low_credit_threshold_minor', 'is_credit_low');
    if (!alert) return undefined;
    const account = this.db('credit_accounts').where({ reseller_id: id });
    if (mysql) account.forShare();
    const row = await account.first<{ balance_minor: number | string } | undefined>('balance_minor');
    if (!row) return undefined;
    const balance = Number(row.balance_minor);
    const threshold = alert.low_credit_threshold_minor === null ? null : Number(alert.low_credit_threshold_minor);
    const isLow = threshold !== null && balance < threshold;
    if (isLow === Boolean(alert.is_credit_low)) return undefined;
    await this.db('resellers').where({ id }).update({ is_credit_low: isLow });
    return isLow ? { balance, threshold: threshold! } : undefined;
  }

  /** The list, with the reseller row locked until the transaction ends (MariaDB), so concurrent edits cannot lose one. */
  private async lockedNetworks(id: string): Promise<string[]> {
    const query = this.db<ResellerRow>('resellers').where({ id });
    // SQLite has one writer at a time already (and knex warns at FOR UPDATE there).
    if (databaseKind(this.db) === 'mysql') query.forUpdate();
    const row = await query.first('allowed_networks');
    return [...parseNetworks(row?.allowed_networks)];
  }
}

const toGroup = (row: GroupRow): ResellerGroup => ({
  id: row.id,
  name: row.name,
  defaultContact: row.default_contact ? (JSON.parse(row.default_contact) as Record<string, string>) : null,
});

export class KnexGroupRepository implements GroupRepository {
  constructor(private readonly db: Db) {}

  async findByName(name: string): Promise<ResellerGroup | undefined> {
    const row = await this.db<GroupRow>('reseller_groups').where({ name }).first();
    return row && toGroup(row);
  }

  async findById(id: string): Promise<ResellerGroup | undefined> {
    const row = await this.db<GroupRow>('reseller_groups').where({ id }).first();
    return row && toGroup(row);
  }

  async list(): Promise<ResellerGroup[]> {
    return (await this.db<GroupRow>('reseller_groups').orderBy('name')).map(toGroup);
  }

  async insert(group: ResellerGroup): Promise<void> {
    await this.db('reseller_groups').insert({
      id: group.id,
      name: group.name,
      default_contact: group.defaultContact ? JSON.stringify(group.defaultContact) : null,
    });
  }

  async setDefaultContact(id: string, contact: Record<string, string> | null): Promise<void> {
    await this.db('reseller_groups')
      .where({ id })
      .update({ default_contact: contact ? JSON.stringify(contact) : null });
  }

  async rename(id: string, name: string): Promise<void> {
    await this.db('reseller_groups').where({ id }).update({ name });
  }

  async delete(id: string): Promise<void> {
    // The group's own catalogue rows go with it (the foreign keys point at the group).
    for (const table of ['tld_prices', 'addon_prices', 'premium_rules'])
      await this.db(table).where({ group_id: id }).delete();
    await this.db('reseller_groups').where({ id }).delete();
  }
}
