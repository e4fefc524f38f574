import type { Knex } from 'knex';
import type { DomainListFilter, DomainOrderChange, DomainRecord, DomainRepository, DomainStatus } from '../../core/domain/domain';
import { isUniqueViolation } from '../db/errors';

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

  async insertForOrder(d: DomainRecord): Promise<boolean> {
    try {
      await this.db('domains').insert({
        id: d.id, name: d.name, unicode_name: d.unicodeName, tld: d.tld, reseller_id: d.resellerId, registrar: d.registrar,
        status: d.status, expiry_date: d.expiryDate, created_at: d.createdAt.getTime(), updated_at: d.updatedAt.getTime(),
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async transitionForOrder(id: string, from: readonly DomainStatus[], change: DomainOrderChange, resellerId?: string): Promise<boolean> {
    const query = this.db('domains').where({ id }).whereIn('status', [...from]);
    if (resellerId !== undefined) query.andWhere({ reseller_id: resellerId });
    const moved = await query.update({
      status: change.status,
      ...(change.resellerId !== undefined && { reseller_id: change.resellerId }),
      ...(change.registrar !== undefined && { registrar: change.registrar }),
      ...(change.expiryDate !== undefined && { expiry_date: change.expiryDate }),
      updated_at: change.at.getTime(),
    });
    return moved === 1;
  }

  async deleteForFailedOrder(id: string, status: DomainStatus): Promise<boolean> {
    return (await this.db('domains').where({ id, status }).delete()) === 1;
  }
}
