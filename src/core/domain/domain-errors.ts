import type { DomainStatus } from './domain';
import { DomainError } from '../common/errors';
import { statusesWhere } from './domain-lifecycle';

// One spelling of each answer about a domain, shared by orders and domain management (docs/domain-management.md).
export const inProgress = (domain: string) =>
  new DomainError('conflict', `An order for ${domain} is already in progress`);
// The same words as every {domain} route (docs/domain-management.md): one answer for "not yours" across the whole API.
export const notOwned = (domain: string) => new DomainError('not_owned', `The domain ${domain} is not in your account`);
const RENEWABLE = statusesWhere('isRenewable');
export const notRenewable = (domain: string, status: DomainStatus) =>
  new DomainError(
    'validation_failed',
    `${domain} is ${status}; only ${RENEWABLE.slice(0, -1).join(', ')} or ${RENEWABLE.at(-1)} domains can be renewed`,
  );
