import type { Knex } from 'knex';
import type { DomainListFilter, DomainRecord, DomainRepository, DomainStatus } from '../../core/domain/domain';

export interface DomainRow {
  id: string; name: string; unicode_name: string; tld: string; reseller_id: string; registrar: string;
  status: string; expiry_date: string | null; created_at: number | string; updated_at: number | string;
}

export const toDomain = (row: DomainRow): DomainRecord => ({
  id: row.id,
  name: row.name,
  unicodeName: row.unicode_name,
  tld: row.tld,
  resellerId: row.reseller_id,
  registrar: row.registrar,
  status: row.status as DomainStatus,
  expiryDate: row.expiry_date,
  createdAt: new Date(Number(row.created_at)),
  updatedAt: new Date(Number(row.updated_at)),
});

export class KnexDomainRepository implements DomainRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async findByName(name: string): Promise<DomainRecord | undefined> {
    const row = await this.db<DomainRow>('domains').where({ name }).first();
    return row && toDomain(row);
  }

  async list(filter: DomainListFilter): Promise<DomainRecord[]> {
    const query = this.db<DomainRow>('domains').orderBy('name').limit(filter.limit ?? 10_000);
    if (filter.resellerId) query.where({ reseller_id: filter.resellerId });
    return (await query).map(toDomain);
  }
}
