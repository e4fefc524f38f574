import { DomainError } from '../common/errors';
import type { UnitOfWork } from '../common/unit-of-work';
import type { DomainListFilter, DomainRecord } from './domain';
import { parseDomainName } from './domain-name';

export class DomainService {
  constructor(private readonly uow: UnitOfWork) {}

  /** Operator view of one domain, whoever owns it. */
  async show(input: string): Promise<DomainRecord> {
    const name = parseDomainName(input);
    const domain = await this.uow.read.domains.findByName(name.ascii);
    if (!domain) throw new DomainError('not_found', `${name.unicode} is not on this platform`);
    return domain;
  }

  list(filter: DomainListFilter = {}): Promise<DomainRecord[]> {
    return this.uow.read.domains.list(filter);
  }
}
