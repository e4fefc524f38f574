import type { DomainRecord } from '../core/domain/domain';
import type { Order } from '../core/order/order';
import { OPERATOR_NOTE } from '../core/order/order-service';
import type { Reseller } from '../core/reseller/reseller';
import { formatAmount } from '../core/common/money';

/**
 * How `order list` and `order show` print an order. A pending order also shows how long it has
 * been pending and why (what reconciliation last learnt), and whether it waits for the operator.
 */
export function describeOrder(o: Order, now: Date) {
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
    ...(o.status === 'pending' && {
      age: ageOf(now.getTime() - o.createdAt.getTime()),
      reason: o.note ?? 'waiting for the registrar',
      needsOperator: o.note?.startsWith(OPERATOR_NOTE) === true,
      nextCheck: o.leaseUntil?.toISOString() ?? null,
    }),
  };
}

/** "3d 4h", "2h 5m", "40s": how long, to the two largest units. */
function ageOf(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const parts: Array<[number, string]> = [
    [Math.floor(seconds / 86_400), 'd'],
    [Math.floor(seconds / 3600) % 24, 'h'],
    [Math.floor(seconds / 60) % 60, 'm'],
    [seconds % 60, 's'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  if (first === -1) return '0s';
  return parts
    .slice(first, first + 2)
    .map(([n, unit]) => `${n}${unit}`)
    .join(' ');
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
    // The registry's yearly costs when the name was sold as premium (docs/orders.md#premium-names).
    premiumCosts: d.premiumCosts
      ? Object.fromEntries(Object.entries(d.premiumCosts).map(([action, cost]) => [action, formatAmount(cost)]))
      : null,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}
