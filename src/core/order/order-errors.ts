import type { DomainStatus } from '../domain/domain';
import { DomainError } from '../common/errors';

// The words the order flow answers with, shared by placement and planning.
export const inProgress = (domain: string) =>
  new DomainError('conflict', `An order for ${domain} is already in progress`);
// The same words as every {domain} route (docs/domain-management.md): one answer for "not yours" across the whole API.
export const notOwned = (domain: string) => new DomainError('not_owned', `The domain ${domain} is not in your account`);
export const notRenewable = (domain: string, status: DomainStatus) =>
  new DomainError('validation_failed', `${domain} is ${status}; only Active, Expired or Grace domains can be renewed`);
