/** The order flow's timings and limits, from the module's settings (src/container.ts). */
export interface OrderSettings {
  /** The registrar deadline: the request path owns a new order at least this long. */
  readonly registrarTimeoutMs: number;
  /**
   * How long after the deadline reconciliation keeps its hands off a pending order, and how long
   * it waits before asking again about one it could not settle: a registrar may still act on a
   * request it answered late.
   */
  readonly reconcileAfterMs: number;
  /** How long an Idempotency-Key and its first answer are kept (at least 24 h). */
  readonly idempotencyTtlMs: number;
  /** Pending orders looked at per reconciliation pass. */
  readonly reconcileBatch: number;
  /**
   * Days an order may stay pending before reconciliation hands it to the operator (its note says
   * so, `order list --status pending` shows it, the log reports it at error level): registries
   * take up to five days to finish a transfer.
   */
  readonly pendingLimitDays: number;
}
