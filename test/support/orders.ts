import { ulid } from 'ulid';
import type { Order } from '../../src/core/order/order';

/**
 * A pending order as phase 1 writes it, for tests that put one in place without ordering (a
 * repository's contract, an order in progress that sync must leave alone). `fields` names the
 * reseller and domain and replaces any other column; `at` stamps it.
 */
export function pendingOrder(fields: Pick<Order, 'resellerId' | 'domain'> & Partial<Order>, at: Date): Order {
  return {
    id: ulid(),
    action: 'register',
    domainId: ulid(),
    registrar: 'fake',
    period: 1,
    price: 1000,
    status: 'pending',
    priorDomain: null,
    request: { addons: [] },
    originalVars: null,
    idempotencyKey: null,
    expiryDate: null,
    note: null,
    leaseOwner: null,
    leaseUntil: null,
    reconcileAttempts: 0,
    createdAt: at,
    updatedAt: at,
    settledAt: null,
    ...fields,
  };
}
