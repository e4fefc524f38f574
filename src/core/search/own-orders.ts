import type { EventBus } from '../common/events';
import { isGone } from '../domain/domain-lifecycle';
import type { AvailabilityChecker } from './availability-checker';

/**
 * Keeps search's availability answers in step with our own orders (docs/search.md), from the
 * events the order and domain services publish after their unit of work commits: a registration
 * or transfer placed or completed makes the name `registered` at once; one that failed, and a
 * domain of ours cancelled or transferred away, makes the next search ask the registrar again.
 * Without this, search said "available" for up to SEARCH_CACHE_SECONDS after our own registration.
 * Returns the function that unsubscribes.
 */
export function followOwnOrders(events: EventBus, availability: AvailabilityChecker): () => void {
  const takesName = (action: string) => action === 'register' || action === 'transfer';
  const off = [
    events.on('order.placed', (e) => {
      if (takesName(e.action)) availability.heldByUs(e.domain);
    }),
    events.on('order.completed', (e) => {
      if (takesName(e.action)) availability.heldByUs(e.domain);
    }),
    events.on('order.failed', (e) => {
      if (takesName(e.action)) availability.forget(e.domain);
    }),
    events.on('order.refunded', (e) => {
      if (takesName(e.action)) availability.forget(e.domain);
    }),
    events.on('domain.status_changed', (e) => {
      if (isGone(e.to)) availability.forget(e.domain);
    }),
  ];
  return () => {
    for (const unsubscribe of off) unsubscribe();
  };
}
