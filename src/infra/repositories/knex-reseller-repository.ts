import type { Knex } from 'knex';
import type { Reseller, ResellerCredentials, ResellerGroup, ResellerRepository, ResellerStatus, GroupRepository } from '../../core/reseller/reseller';

interface ResellerRow { id: string; email: string; group_id: string; status: string; sealed_api_key: string; created_at: number | string }
interface GroupRow { id: string; name: string; default_contact: string | null }

const toCredentials = (row: ResellerRow, allowedNetworks: string[] = []): ResellerCredentials => ({
  id: row.id,
  email: row.email,
  groupId: row.group_id,
  status: row.status as ResellerStatus,
  createdAt: new Date(Number(row.created_at)),
  sealedApiKey: row.sealed_api_key,
  allowedNetworks,
});

const withoutKey = ({ sealedApiKey: _key, allowedNetworks: _networks, ...reseller }: ResellerCredentials): Reseller => reseller;

export class KnexResellerRepository implements ResellerRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /** The reseller and its allow-list in one statement: authentication runs it on every request. */
  async findByEmail(email: string): Promise<ResellerCredentials | undefined> {
    const rows: Array<ResellerRow & { cidr: string | null }> = await this.db('resellers as r')
      .leftJoin('reseller_allowed_networks as n', 'n.reseller_id', 'r.id')
      .where('r.email', email)
      .select('r.id', 'r.email', 'r.group_id', 'r.status', 'r.sealed_api_key', 'r.created_at', 'n.cidr');
    if (rows.length === 0) return undefined;
    return toCredentials(rows[0]!, rows.flatMap((row) => (row.cidr === null ? [] : [row.cidr])).sort());
  }

  async findById(id: string): Promise<Reseller | undefined> {
    const row = await this.db<ResellerRow>('resellers').where({ id }).first();
    return row && withoutKey(toCredentials(row));
  }

  async list(): Promise<Reseller[]> {
    const rows = await this.db<ResellerRow>('resellers').orderBy('email');
    return rows.map((row) => withoutKey(toCredentials(row)));
  }

  async insert(r: ResellerCredentials): Promise<void> {
    await this.db('resellers').insert({
      id: r.id, email: r.email, group_id: r.groupId, status: r.status, sealed_api_key: r.sealedApiKey, created_at: r.createdAt.getTime(),
    });
  }

  async setStatus(id: string, status: ResellerStatus): Promise<void> {
    await this.db('resellers').where({ id }).update({ status });
  }

  async setSealedApiKey(id: string, sealedApiKey: string): Promise<void> {
    await this.db('resellers').where({ id }).update({ sealed_api_key: sealedApiKey });
  }

  async addAllowedNetwork(id: string, cidr: string, at: Date): Promise<void> {
    await this.db('reseller_allowed_networks').insert({ reseller_id: id, cidr, created_at: at.getTime() }).onConflict(['reseller_id', 'cidr']).ignore();
  }

  async removeAllowedNetwork(id: string, cidr: string): Promise<boolean> {
    return (await this.db('reseller_allowed_networks').where({ reseller_id: id, cidr }).del()) > 0;
  }

  async allowedNetworks(id: string): Promise<string[]> {
    const rows = await this.db('reseller_allowed_networks').where({ reseller_id: id }).orderBy('cidr').select('cidr');
    return rows.map((row: { cidr: string }) => row.cidr);
  }
}

const toGroup = (row: GroupRow): ResellerGroup => ({
  id: row.id,
  name: row.name,
  defaultContact: row.default_contact ? (JSON.parse(row.default_contact) as Record<string, string>) : null,
});

export class KnexGroupRepository implements GroupRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

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
      id: group.id, name: group.name, default_contact: group.defaultContact ? JSON.stringify(group.defaultContact) : null,
    });
  }

  async setDefaultContact(id: string, contact: Record<string, string> | null): Promise<void> {
    await this.db('reseller_groups').where({ id }).update({ default_contact: contact ? JSON.stringify(contact) : null });
  }
}
