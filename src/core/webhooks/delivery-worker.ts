import type { Clock } from '../common/clock';
import { ulid } from '../common/ids';
import type { Logger } from '../common/logger';
import type { UnitOfWork } from '../common/unit-of-work';
import type { SecretBox } from '../reseller/reseller';
import { afterAttempt, type AttemptAnswer, type EndpointVerdict } from './retry-schedule';
import { webhookHeaders } from './signature';
import type { AttemptRecord, ClaimedDelivery, StoredEndpoint } from './webhook';

/** One signed POST. Implementations check the target when connecting (docs/events.md#ssrf) and never follow redirects. */
export interface WebhookSender {
  send(request: {
    readonly url: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string;
    readonly timeoutMs: number;
  }): Promise<AttemptAnswer>;
  /** Closes kept-alive connections (at the module's close). */
  close?(): void;
}

export interface DeliveryWorkerSettings {
  /** Attempts in flight at once in this process. */
  readonly concurrency: number;
  readonly timeoutMs: number;
  /** How often due deliveries are looked for when nothing woke the worker. */
  readonly pollMs: number;
}

interface Outcome {
  readonly delivery: ClaimedDelivery;
  readonly record: AttemptRecord;
  readonly verdict: EndpointVerdict;
}

/** Told when an endpoint is disabled (its owner gets a mail when mail is configured). */
export type EndpointDisabled = (endpoint: StoredEndpoint, reason: string) => void;

/**
 * Sends webhook deliveries. Each round claims due deliveries in a short transaction (row locks
 * skipped on MariaDB, so processes share the work and never take the same row) and commits the
 * claim before any request goes out; each attempt's outcome is recorded under its claim, whose
 * lease outlives the request's timeout, so no two processes send the same attempt at once. An
 * endpoint gets at most a quarter of the slots: a slow or failing one never holds up the others.
 */
export class WebhookDeliveryWorker {
  private inFlight = 0;
  private readonly perEndpoint = new Map<string, number>();
  private running: Promise<void> | undefined;
  private stopping = false;
  private wakeUp: (() => void) | undefined;
  private readonly attempts = new Set<Promise<void>>();
  private readonly endpointCap: number;
  private batch: { readonly outcomes: Outcome[]; readonly done: Promise<void> } | undefined;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly sender: WebhookSender,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: DeliveryWorkerSettings,
    private readonly disabled: EndpointDisabled = () => {},
  ) {
    this.endpointCap = Math.max(1, Math.floor(settings.concurrency / 4));
  }

  start(): void {
    this.stopping = false;
    this.running ??= this.loop().finally(() => {
      this.running = undefined;
    });
  }

  /** Looks for due deliveries now (new deliveries were made). */
  wake(): void {
    this.wakeUp?.();
  }

  /** Claims nothing more and waits for the attempts in flight (their claims are recorded). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.running;
    await Promise.allSettled([...this.attempts]);
  }

  /** One round: claims what is due (within the free slots) and starts sending it; answers how many started. */
  async round(): Promise<number> {
    const free = this.settings.concurrency - this.inFlight;
    if (free <= 0) return 0;
    const saturated = [...this.perEndpoint.entries()].filter(([, n]) => n >= this.endpointCap).map(([id]) => id);
    const token = ulid();
    const now = this.clock.now();
    const ids = await this.uow.run(({ webhooks }) =>
      webhooks.claimDue({
        now,
        // Longer than an attempt can take: the claim is only ever taken over from a process that died.
        leaseUntil: new Date(now.getTime() + this.settings.timeoutMs + 60_000),
        token,
        limit: free,
        excludeEndpoints: saturated,
      }),
    );
    if (ids.length === 0) return 0;
    const claimed = await this.uow.read.webhooks.claimed(ids, token);
    const excess: string[] = [];
    for (const delivery of claimed) {
      const busy = this.perEndpoint.get(delivery.endpoint.id) ?? 0;
      if (busy >= this.endpointCap) {
        excess.push(delivery.id);
        continue;
      }
      this.perEndpoint.set(delivery.endpoint.id, busy + 1);
      this.inFlight++;
      const attempt = this.attempt(delivery).finally(() => {
        this.inFlight--;
        const left = (this.perEndpoint.get(delivery.endpoint.id) ?? 1) - 1;
        if (left > 0) this.perEndpoint.set(delivery.endpoint.id, left);
        else this.perEndpoint.delete(delivery.endpoint.id);
        this.attempts.delete(attempt);
        // Claims in batches: once half the slots are free (or the last attempt finished), not per attempt.
        if (this.inFlight <= this.settings.concurrency / 2) this.wake();
      });
      this.attempts.add(attempt);
    }
    // Over the endpoint's share: given back at once for the next round (or another process).
    if (excess.length > 0) await this.uow.run(({ webhooks }) => webhooks.releaseClaims(excess, token));
    return ids.length;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      let claimedSome = 0;
      try {
        claimedSome = await this.round();
      } catch (error) {
        this.logger.error({ err: error }, 'claiming webhook deliveries failed; trying again shortly');
      }
      if (this.stopping) break;
      if (claimedSome > 0 && this.inFlight <= this.settings.concurrency / 2) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.settings.pollMs);
        timer.unref?.();
        this.wakeUp = () => {
          clearTimeout(timer);
          this.wakeUp = undefined;
          resolve();
        };
      });
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const now = this.clock.now();
    const answer = await this.send(delivery, now);
    const done = this.clock.now();
    const { record, endpoint: verdict } = afterAttempt(
      delivery.attempts + 1,
      answer,
      done,
      delivery.endpoint.failingSince,
    );
    await this.recordSoon({ delivery, record, verdict });
  }

  /**
   * Attempts that finish in the same turn are recorded in one transaction (one commit instead of
   * one per attempt); each still only under its own claim.
   */
  private recordSoon(outcome: Outcome): Promise<void> {
    if (!this.batch) {
      const outcomes: Outcome[] = [];
      const done = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        this.batch = undefined;
        return this.record(outcomes);
      });
      this.batch = { outcomes, done };
    }
    this.batch.outcomes.push(outcome);
    return this.batch.done;
  }

  private async record(outcomes: readonly Outcome[]): Promise<void> {
    const disabled: Array<{ endpoint: StoredEndpoint; reason: string }> = [];
    try {
      let lost = 0;
      await this.uow.run(async ({ webhooks }) => {
        disabled.length = 0;
        lost = 0;
        const delivered = outcomes.filter((o) => o.record.kind === 'delivered');
        lost +=
          delivered.length -
          (await webhooks.recordDelivered(
            delivered.map((o) => ({ id: o.delivery.id, token: o.delivery.claimToken, record: o.record })),
          ));
        const healthy = new Set<string>();
        const failing = new Map<string, Date>();
        for (const { delivery, record, verdict } of outcomes) {
          if (
            record.kind !== 'delivered' &&
            !(await webhooks.recordAttempt(delivery.id, delivery.claimToken, record))
          ) {
            lost++;
            continue;
          }
          const { endpoint } = delivery;
          if (verdict === 'healthy') {
            if (endpoint.failingSince !== null) healthy.add(endpoint.id);
          } else if (verdict === 'failing') {
            if (endpoint.failingSince === null) failing.set(endpoint.id, record.at);
          } else if (await webhooks.disable(endpoint.id, verdict.disable))
            disabled.push({ endpoint, reason: verdict.disable });
        }
        for (const id of healthy) await webhooks.setFailingSince(id, null);
        for (const [id, since] of failing) await webhooks.setFailingSince(id, since);
      });
      if (lost > 0)
        this.logger.warn({ attempts: lost }, 'webhook attempts finished after their claims were taken over');
    } catch (error) {
      // The claims run out and the attempts are made again: at least once.
      this.logger.error({ err: error, attempts: outcomes.length }, 'recording webhook attempts failed');
    }
    for (const { endpoint, reason } of disabled) {
      this.logger.warn({ endpointId: endpoint.id, reason }, 'webhook endpoint disabled');
      this.disabled(endpoint, reason);
    }
  }

  private async send(delivery: ClaimedDelivery, now: Date): Promise<AttemptAnswer> {
    try {
      const { endpoint } = delivery;
      const secrets = [this.secrets.open(endpoint.sealedSecret)];
      if (endpoint.previousSealedSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil > now)
        secrets.push(this.secrets.open(endpoint.previousSealedSecret));
      const headers = webhookHeaders(secrets, delivery.eventId, Math.floor(now.getTime() / 1000), delivery.body);
      return await this.sender.send({
        url: endpoint.url,
        headers: { ...headers, 'content-type': 'application/json' },
        body: delivery.body,
        timeoutMs: this.settings.timeoutMs,
      });
    } catch (error) {
      return { kind: 'error', error: error instanceof Error ? error.message : String(error) };
    }
  }
}
