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

/** How long a finished attempt waits for others to share its recording transaction. */
const RECORD_GATHER_MS = 5;

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
  /** Set by `wake`, so that a wake-up while a round is claiming is not lost. */
  private woken = false;
  /** The next round claims once no more than this many attempts are in flight or waiting. */
  private claimAgainAt = 0;
  /** Claimed deliveries waiting for a slot of their endpoint's share. */
  private readonly queued = new Map<string, ClaimedDelivery[]>();
  private queuedCount = 0;
  /** Opened secrets by their sealed form: one AES decryption per secret, not per attempt. */
  private readonly opened = new Map<string, string>();
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
    this.woken = true;
    this.wakeUp?.();
  }

  /** Claims nothing more and waits for the attempts in flight (their claims are recorded). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.running;
    await Promise.allSettled([...this.attempts]);
    // Claimed but not attempted: given back, for the next process to send.
    const waiting = [...this.queued.values()].flat();
    this.queued.clear();
    this.queuedCount = 0;
    const byToken = new Map<string, string[]>();
    for (const d of waiting) byToken.set(d.claimToken, [...(byToken.get(d.claimToken) ?? []), d.id]);
    for (const [token, ids] of byToken)
      await this.uow
        .run(({ webhooks }) => webhooks.releaseClaims(ids, token))
        .catch((error: unknown) => this.logger.warn({ err: error }, 'giving back webhook claims failed; they expire'));
  }

  /** One round: claims what is due (within the free slots) and starts sending it; answers how many it claimed. */
  async round(): Promise<number> {
    const free = this.settings.concurrency - this.inFlight - this.queuedCount;
    if (free <= 0) return 0;
    const saturated = [...this.perEndpoint.entries()]
      .filter(([id, n]) => n + (this.queued.get(id)?.length ?? 0) >= 2 * this.endpointCap)
      .map(([id]) => id);
    const token = ulid();
    const now = this.clock.now();
    const ids = await this.uow.run(({ webhooks }) =>
      webhooks.claimDue({
        now,
        // Longer than an attempt can take, twice: the claim is only ever taken over from a process that died.
        leaseUntil: new Date(now.getTime() + 2 * this.settings.timeoutMs + 60_000),
        token,
        limit: free,
        excludeEndpoints: saturated,
      }),
    );
    if (ids.length === 0) return 0;
    const claimed = await this.uow.read.webhooks.claimed(ids, token);
    const excess: string[] = [];
    for (const delivery of claimed) {
      const id = delivery.endpoint.id;
      const busy = this.perEndpoint.get(id) ?? 0;
      const queue = this.queued.get(id) ?? [];
      if (busy < this.endpointCap) this.begin(delivery);
      // Its share busy: waits here for one of its attempts to finish (one share at most, so it
      // starts within one timeout, well inside its lease), else goes back.
      else if (queue.length < this.endpointCap) {
        this.queued.set(id, [...queue, delivery]);
        this.queuedCount++;
      } else excess.push(delivery.id);
    }
    this.claimAgainAt = Math.min(this.settings.concurrency / 2, Math.floor((this.inFlight + this.queuedCount) / 2));
    if (excess.length > 0) await this.uow.run(({ webhooks }) => webhooks.releaseClaims(excess, token));
    return ids.length;
  }

  private begin(delivery: ClaimedDelivery): void {
    const id = delivery.endpoint.id;
    this.perEndpoint.set(id, (this.perEndpoint.get(id) ?? 0) + 1);
    this.inFlight++;
    const attempt = this.attempt(delivery).finally(() => {
      this.inFlight--;
      const left = (this.perEndpoint.get(id) ?? 1) - 1;
      if (left > 0) this.perEndpoint.set(id, left);
      else this.perEndpoint.delete(id);
      this.attempts.delete(attempt);
      const next = this.stopping ? undefined : this.queued.get(id)?.shift();
      if (next) {
        this.queuedCount--;
        if (this.queued.get(id)!.length === 0) this.queued.delete(id);
        this.begin(next);
      }
      // Claims in batches, not per attempt: once half of what was held after the last claim has
      // finished (half the slots at most; with few endpoints their shares fill first).
      if (this.inFlight + this.queuedCount <= this.claimAgainAt) this.wake();
    });
    this.attempts.add(attempt);
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      this.woken = false;
      let claimedSome = 0;
      try {
        claimedSome = await this.round();
      } catch (error) {
        this.logger.error({ err: error }, 'claiming webhook deliveries failed; trying again shortly');
      }
      if (this.stopping) break;
      if (claimedSome > 0 && this.inFlight + this.queuedCount <= this.claimAgainAt) continue;
      if (this.woken) continue;
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
   * Attempts that finish within a few milliseconds of each other are recorded in one transaction
   * (one commit instead of one per attempt); each still only under its own claim.
   */
  private recordSoon(outcome: Outcome): Promise<void> {
    if (!this.batch) {
      const outcomes: Outcome[] = [];
      const done = new Promise<void>((resolve) => setTimeout(resolve, RECORD_GATHER_MS)).then(() => {
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

  private open(sealed: string): string {
    let secret = this.opened.get(sealed);
    if (secret === undefined) {
      if (this.opened.size >= 1000) this.opened.clear();
      secret = this.secrets.open(sealed);
      this.opened.set(sealed, secret);
    }
    return secret;
  }

  private async send(delivery: ClaimedDelivery, now: Date): Promise<AttemptAnswer> {
    try {
      const { endpoint } = delivery;
      const secrets = [this.open(endpoint.sealedSecret)];
      if (endpoint.previousSealedSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil > now)
        secrets.push(this.open(endpoint.previousSealedSecret));
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
