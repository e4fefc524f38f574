import type { DomainRecord } from '../core/domain/domain';
import type { Order } from '../core/order/order';
import type { Reseller } from '../core/reseller/reseller';
import { formatAmount } from '../core/shared/money';

/** How `order list` and `order show` print an order. */
export function describeOrder(o: Order) {
  return {
    id: o.id,
    action: o.action,
    domain: o.domain,
    status: o.status,
    period: o.period,
    price: formatAmount(o.price),
    registrar: o.registrar,
    expiryDate: o.expiryDate,
    note: o.note,
    reconcileAttempts: o.reconcileAttempts,
    createdAt: o.createdAt.toISOString(),
    settledAt: o.settledAt?.toISOString() ?? null,
  };
}

/** How `domain show` and `domain list` print a domain; the owner by email when it is known. */
export function describeDomain(d: DomainRecord, owner: Pick<Reseller, 'email'> | undefined) {
  return {
    domain: d.unicodeName,
    punycode: d.name,
    status: d.status,
    reseller: owner?.email ?? d.resellerId,
    registrar: d.registrar,
    expiryDate: d.expiryDate,
    nameservers: d.nameservers,
    transferLock: d.transferLock,
    addons: d.addons,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}
