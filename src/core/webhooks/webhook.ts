import type { EventType } from '../../client/events';

export type EndpointStatus = 'enabled' | 'disabled';

/** A webhook endpoint: a reseller's (its own events) or, with `resellerId` null, the operator's (every reseller's). */
export interface WebhookEndpoint {
  readonly id: string;
  readonly resellerId: string | null;
  readonly url: string;
  /** Null: every event type. */
  readonly eventTypes: readonly EventType[] | null;
  readonly status: EndpointStatus;
  readonly disabledReason: string | null;
  /** When the current run of failures began; null while deliveries succeed. */
  readonly failingSince: Date | null;
  readonly createdAt: Date;
}

/** An endpoint with its secrets sealed under the master key (never shown after `add` and `rotate-secret`). */
export interface StoredEndpoint extends WebhookEndpoint {
  readonly sealedSecret: string;
  /** A rotated-out secret that still signs beside the new one until `previousSecretUntil`. */
  readonly previousSealedSecret: string | null;
  readonly previousSecretUntil: Date | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

export interface WebhookDelivery {
  readonly id: string;
  readonly eventId: string;
  readonly endpointId: string;
  readonly eventType: EventType;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly nextAttemptAt: Date;
  readonly lastStatus: number | null;
  readonly lastError: string | null;
  readonly lastAttemptAt: Date | null;
  readonly deliveredAt: Date | null;
  readonly createdAt: Date;
}

/**
 * A new delivery as the dispatch creates it: pending, and claimed already when the dispatching
 * process's worker takes it at once (`claim`), so that it is sent without a claim round of its own.
 */
export interface NewDelivery extends WebhookDelivery {
  readonly claim?: { readonly token: string; readonly until: Date };
}

/** A delivery claimed for one attempt, with what sending it needs. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly claimToken: string;
  readonly attempts: number;
  readonly endpoint: StoredEndpoint;
  readonly eventId: string;
  /** The event's JSON, exactly as signed and sent. */
  readonly body: string;
  readonly createdAt: Date;
}

/** What one attempt came to, recorded under its claim. */
export type AttemptRecord =
  | { readonly kind: 'delivered'; readonly at: Date; readonly status: number }
  | {
      readonly kind: 'retry';
      readonly at: Date;
      readonly nextAttemptAt: Date;
      readonly status: number | null;
      readonly error: string;
    }
  | { readonly kind: 'dead'; readonly at: Date; readonly status: number | null; readonly error: string };

export interface DeliveryFilter {
  readonly endpointId?: string;
  readonly resellerId?: string;
  readonly status?: DeliveryStatus;
  readonly limit?: number;
}

export interface WebhookRepository {
  insertEndpoint(endpoint: StoredEndpoint): Promise<void>;
  findEndpoint(id: string): Promise<StoredEndpoint | undefined>;
  /** A reseller's endpoints, the operator's (`null`), or every one (undefined). */
  listEndpoints(resellerId?: string | null): Promise<StoredEndpoint[]>;
  enabledEndpoints(): Promise<StoredEndpoint[]>;
  rotateSecret(id: string, sealedSecret: string, previous: { sealed: string; until: Date }): Promise<void>;
  /** Conditional: false when the endpoint was not enabled. Its pending deliveries become dead (replayable). */
  disable(id: string, reason: string): Promise<boolean>;
  enable(id: string): Promise<void>;
  setFailingSince(id: string, since: Date | null): Promise<void>;
  /** Removes the endpoint and its deliveries. */
  deleteEndpoint(id: string): Promise<boolean>;
  /**
   * New pending deliveries (claimed where `claim` is given); a pair (event, endpoint) already there
   * is left as it is, and so is its claim.
   */
  insertDeliveries(deliveries: readonly NewDelivery[]): Promise<void>;
  /**
   * Due pending deliveries whose claim is free, claimed for one attempt (row locks skipped on
   * MariaDB); none of `excludeEndpoints`. Inside a short transaction committed before sending.
   */
  claimDue(options: {
    readonly now: Date;
    readonly leaseUntil: Date;
    readonly token: string;
    readonly limit: number;
    readonly excludeEndpoints: readonly string[];
  }): Promise<string[]>;
  /** Gives claims back unattempted. */
  releaseClaims(ids: readonly string[], token: string): Promise<void>;
  /** The claimed deliveries with their endpoint and event body (outside the claim's transaction). */
  claimed(ids: readonly string[], token: string): Promise<ClaimedDelivery[]>;
  /** Records delivered attempts, each only under its claim, in one statement; answers how many were recorded. */
  recordDelivered(
    attempts: ReadonlyArray<{ readonly id: string; readonly token: string; readonly record: AttemptRecord }>,
  ): Promise<number>;
  /** Records an attempt if the claim is still the caller's; false otherwise (nothing written). */
  recordAttempt(id: string, token: string, record: AttemptRecord): Promise<boolean>;
  findDelivery(id: string): Promise<WebhookDelivery | undefined>;
  listDeliveries(filter: DeliveryFilter): Promise<WebhookDelivery[]>;
  /** A dead delivery back to pending, due `at`, its attempts counted afresh; false when it was not dead. */
  replay(id: string, at: Date): Promise<boolean>;
  /** Removes delivered deliveries older than `before`; answers how many. */
  purgeDelivered(before: Date, limit: number): Promise<number>;
}

/**
 * The body a receiver gets: the event as `PlatformEvent` (src/client/events.ts), its data given as
 * JSON already (the outbox stores it so: spliced in, not parsed and serialised again).
 */
export function deliveryBody(
  event: { readonly id: string; readonly type: string; readonly version: number; readonly occurredAt: number },
  resellerId: string | null,
  dataJson: string,
): string {
  const timestamp = new Date(event.occurredAt).toISOString();
  return `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"version":${event.version},"timestamp":"${timestamp}","resellerId":${JSON.stringify(resellerId)},"data":${dataJson}}`;
}
