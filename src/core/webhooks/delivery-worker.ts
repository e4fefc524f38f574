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
 * lease outlives the request's timeout and the wait for a slot, so no two processes send the same
 * attempt at once. An endpoint gets at most a quarter of the slots: a slow or failing one never
 * holds up the others.
 *
 * Claims run ahead of the slots (up to one more set of deliveries waits, claimed, for a slot), so
 * that the slots keep sending while the next claim's transaction commits; a slot is given back
 * when its answer is in, and the outcomes are recorded a batch at a time behind it.
 */
export class WebhookDeliveryWorker {
  private inFlight = 0;
  private readonly perEndpoint = new Map<string, number>();
  /** Wakes the worker every `pollMs` while it runs (deliveries come due with time). */
  private poller: ReturnType<typeof setInterval> | undefined;
  private stopping = false;
  /** Set by `wake`, so that a wake-up while a round is claiming is not lost. */
  private woken = false;
  /** Rounds claiming now (two at most: the next claim's transaction runs while the slots send). */
  private readonly rounds = new Set<Promise<void>>();
  /** What the rounds claiming now may still add. */
  private reserved = 0;
  /** After a round failed, no other starts before this time (the next poll). */
  private quietUntil = 0;
  /**
   * Claimed deliveries waiting for a slot, oldest claim first: at most `concurrency` of them, and
   * for each endpoint at most its share beyond the share it has in flight.
   */
  private ready: ClaimedDelivery[] = [];
  private readonly readyPerEndpoint = new Map<string, number>();
  /** The next round claims once no more than this many deliveries are in flight or waiting. */
  private claimAgainAt = 0;
  /** Attempts answered whose outcome is not recorded yet (their claims still held). */
  private unrecorded = 0;
  /**
   * Endpoints whose last attempt from this worker was answered 2xx, with their failure clock clear
   * then: the dispatch may claim fresh deliveries to them for this worker (`freshRoomFor`).
   */
  private readonly answering = new Set<string>();
  /**
   * Deliveries may be waiting in their rows (the last round claimed all it could, left out a full
   * endpoint's or gave some back, or a dispatch left some there since it began): fresh ones are
   * not handed over meanwhile, so that they do not overtake older ones.
   */
  private backlog = false;
  /** Counts `wake` calls: a round that began before the last one cannot say that nothing waits. */
  private wakes = 0;
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
    if (this.poller) return;
    this.poller = setInterval(() => this.look(), this.settings.pollMs);
    this.poller.unref?.();
    this.wake();
  }

  /** Looks for due deliveries now: new ones were made and wait in their rows. */
  wake(): void {
    if (!this.poller || this.stopping) return;
    this.backlog = true;
    this.wakes++;
    this.look();
  }

  /** Looks for due deliveries now (a retry may have come due). */
  private look(): void {
    if (!this.poller || this.stopping) return;
    this.woken = true;
    this.claimMore();
  }

  /**
   * Room for fresh deliveries that the dispatch claims for this worker as it creates them (the
   * claim written with the row), so that they are sent without a claim round of their own and
   * without reading back what was just written: up to `wanted`, within what a round could claim
   * now, held for them until `takeFresh`. None while the worker is not running.
   */
  reserveFresh(wanted: number): number {
    if (!this.poller || this.stopping || wanted <= 0) return 0;
    const granted = Math.max(0, Math.min(wanted, this.claimable()));
    this.reserved += granted;
    return granted;
  }

  /**
   * How many fresh deliveries to endpoint `id` the dispatch may claim for this worker: the room in
   * its share, and only while its last attempt here was answered 2xx. A failing endpoint's
   * deliveries go through claim rounds, which read its failure clock from its row.
   */
  freshRoomFor(id: string): number {
    if (this.backlog || !this.answering.has(id)) return 0;
    return Math.max(0, 2 * this.endpointCap - this.held(id));
  }

  /** Until when a claim made at `now` holds (see claimRound). */
  leaseFrom(now: Date): Date {
    // Longer than it is held: a wait for a slot (three timeouts at most: the slots turn over within
    // one timeout each, and at most two sets wait ahead of it; its endpoint's share likewise), the
    // attempt (one timeout), and a minute for its recording. A claim is only ever taken over from a
    // process that died.
    return new Date(now.getTime() + 4 * this.settings.timeoutMs + 60_000);
  }

  /**
   * The dispatch that reserved `reserved` has committed `claimed` (none when it failed): they wait
   * for a slot like a round's claims, and the rest of the room is free again. Claimed while the
   * worker stopped: given back, for the next process to send (settled when they are).
   */
  takeFresh(reserved: number, claimed: readonly ClaimedDelivery[]): Promise<void> {
    this.reserved -= reserved;
    if (claimed.length > 0 && (this.stopping || !this.poller)) return this.giveBack(claimed);
    for (const delivery of claimed) {
      this.ready.push(delivery);
      this.readyPerEndpoint.set(delivery.endpoint.id, (this.readyPerEndpoint.get(delivery.endpoint.id) ?? 0) + 1);
    }
    this.startReady();
    this.claimMore();
    return Promise.resolve();
  }

  /** Claims nothing more and waits for the attempts in flight (their claims are recorded). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.poller);
    this.poller = undefined;
    await Promise.allSettled([...this.rounds]);
    await Promise.allSettled([...this.attempts]);
    // Claimed but not attempted: given back, for the next process to send.
    const waiting = this.ready;
    this.ready = [];
    this.readyPerEndpoint.clear();
    await this.giveBack(waiting);
  }

  private async giveBack(deliveries: readonly ClaimedDelivery[]): Promise<void> {
    const byToken = new Map<string, string[]>();
    for (const d of deliveries) byToken.set(d.claimToken, [...(byToken.get(d.claimToken) ?? []), d.id]);
    for (const [token, ids] of byToken)
      await this.uow
        .run(({ webhooks }) => webhooks.releaseClaims(ids, token))
        .catch((error: unknown) => this.logger.warn({ err: error }, 'giving back webhook claims failed; they expire'));
  }

  /**
   * How many deliveries a round may claim now: up to one set of slots at a time, while no more
   * than three sets are held sending, waiting or being claimed, and while the recording keeps up;
   * and no more than the endpoints held now have room for (a share in flight and a share waiting
   * each), or one more endpoint's when that is under half a set (or a set when none is held):
   * what a claim brings beyond its endpoint's room goes back at once.
   */
  private claimable(): number {
    const slots = this.settings.concurrency;
    if (this.unrecorded >= 2 * slots) return 0;
    const budget = Math.min(slots, 3 * slots - this.inFlight - this.ready.length - this.reserved);
    let room = 0;
    const endpoints = new Set([...this.perEndpoint.keys(), ...this.readyPerEndpoint.keys()]);
    for (const id of endpoints) room += Math.max(0, 2 * this.endpointCap - this.held(id));
    if (endpoints.size === 0) room = slots;
    else if (room < slots / 2) room += 2 * this.endpointCap;
    return Math.min(budget, room - this.reserved);
  }

  /** Deliveries to endpoint `id` in flight or waiting for a slot. */
  private held(id: string): number {
    return (this.perEndpoint.get(id) ?? 0) + (this.readyPerEndpoint.get(id) ?? 0);
  }

  /**
   * Worth a round: claims in batches, not per attempt. Once half of what was held after the last
   * round has finished, a set of slots at most (with few endpoints, their shares fill first).
   */
  private worthClaiming(): boolean {
    return this.inFlight + this.ready.length <= this.claimAgainAt && this.claimable() > 0;
  }

  /**
   * Starts rounds: one when woken and none is claiming, and one beside it (or after it) whenever
   * claiming is worth it.
   */
  private claimMore(): void {
    while (!this.stopping && this.poller && this.rounds.size < 2) {
      const limit = this.claimable();
      if (limit <= 0) return;
      const woken = this.woken && this.rounds.size === 0 && Date.now() >= this.quietUntil;
      if (!woken && !(this.worthClaiming() && Date.now() >= this.quietUntil)) return;
      this.woken = false;
      this.reserved += limit;
      const round: Promise<void> = this.round(limit)
        .then(
          () => undefined,
          (error: unknown) => {
            this.quietUntil = Date.now() + this.settings.pollMs / 2;
            this.logger.error({ err: error }, 'claiming webhook deliveries failed; trying again shortly');
          },
        )
        .finally(() => {
          this.rounds.delete(round);
          this.claimMore();
        });
      this.rounds.add(round);
    }
  }

  /** One round: claims what is due (up to `limit`, reserved for it) and starts sending it; answers how many it claimed. */
  private async round(limit: number): Promise<number> {
    let reserved = limit;
    const unreserve = () => {
      this.reserved -= reserved;
      reserved = 0;
    };
    try {
      return await this.claimRound(limit, unreserve);
    } finally {
      unreserve();
    }
  }

  private async claimRound(limit: number, unreserve: () => void): Promise<number> {
    const saturated = [...new Set([...this.perEndpoint.keys(), ...this.readyPerEndpoint.keys()])].filter(
      (id) => this.held(id) >= 2 * this.endpointCap,
    );
    const token = ulid();
    const now = this.clock.now();
    const wakes = this.wakes;
    const ids = await this.uow.run(({ webhooks }) =>
      webhooks.claimDue({
        now,
        leaseUntil: this.leaseFrom(now),
        token,
        limit,
        excludeEndpoints: saturated,
      }),
    );
    // Nothing else is due now only if it took fewer than it could, left out no endpoint, and no
    // dispatch has left deliveries in their rows since it began (they may have missed its claim).
    this.backlog = ids.length >= limit || saturated.length > 0 || this.wakes !== wakes;
    if (ids.length === 0) {
      unreserve();
      this.heldAfterRound();
      return 0;
    }
    const claimed = await this.uow.read.webhooks.claimed(ids, token);
    unreserve();
    const excess: string[] = [];
    for (const delivery of claimed) {
      const id = delivery.endpoint.id;
      // Its endpoint's share in flight and a share waiting already: goes back.
      if (this.stopping || this.held(id) >= 2 * this.endpointCap) excess.push(delivery.id);
      else {
        this.ready.push(delivery);
        this.readyPerEndpoint.set(id, (this.readyPerEndpoint.get(id) ?? 0) + 1);
      }
    }
    this.startReady();
    this.heldAfterRound();
    if (excess.length > 0) {
      // Given back: they wait in their rows again.
      this.backlog = true;
      await this.uow.run(({ webhooks }) => webhooks.releaseClaims(excess, token));
    }
    return ids.length;
  }

  private heldAfterRound(): void {
    const held = this.inFlight + this.ready.length;
    this.claimAgainAt = held - Math.max(1, Math.min(this.settings.concurrency, Math.floor(held / 2)));
  }

  /** Starts the waiting deliveries that have a free slot within their endpoint's share, oldest first. */
  private startReady(): void {
    if (this.stopping || this.ready.length === 0 || this.inFlight >= this.settings.concurrency) return;
    const waiting: ClaimedDelivery[] = [];
    for (const delivery of this.ready) {
      const id = delivery.endpoint.id;
      if (this.inFlight < this.settings.concurrency && (this.perEndpoint.get(id) ?? 0) < this.endpointCap) {
        const left = (this.readyPerEndpoint.get(id) ?? 1) - 1;
        if (left > 0) this.readyPerEndpoint.set(id, left);
        else this.readyPerEndpoint.delete(id);
        this.begin(delivery);
      } else waiting.push(delivery);
    }
    this.ready = waiting;
  }

  /**
   * One attempt: its slot is taken while the request is out and given back when the answer is in;
   * the outcome is then recorded under its claim with others (recordSoon), while the slot already
   * sends the next one. Until recorded, the claim's lease keeps every other process off the row.
   */
  private begin(delivery: ClaimedDelivery): void {
    const id = delivery.endpoint.id;
    this.perEndpoint.set(id, (this.perEndpoint.get(id) ?? 0) + 1);
    this.inFlight++;
    const attempt = this.attempt(delivery)
      .finally(() => this.answered(id))
      .then((outcome) => this.recordSoon(outcome))
      // Never expected (sending and recording catch their own errors); the claim then runs out.
      .catch((error: unknown) => this.logger.error({ err: error }, 'a webhook attempt failed unexpectedly'))
      .finally(() => this.attempts.delete(attempt));
    this.attempts.add(attempt);
  }

  /** An attempt to endpoint `id` has its answer: its slot goes to a waiting delivery, and a round claims more when worth it. */
  private answered(id: string): void {
    this.inFlight--;
    const left = (this.perEndpoint.get(id) ?? 1) - 1;
    if (left > 0) this.perEndpoint.set(id, left);
    else this.perEndpoint.delete(id);
    this.startReady();
    this.claimMore();
  }

  private async attempt(delivery: ClaimedDelivery): Promise<Outcome> {
    const now = this.clock.now();
    const answer = await this.send(delivery, now);
    const done = this.clock.now();
    const { record, endpoint: verdict } = afterAttempt(
      delivery.attempts + 1,
      answer,
      done,
      delivery.endpoint.failingSince,
    );
    return { delivery, record, verdict };
  }

  /**
   * Attempts that finish within a few milliseconds of each other are recorded in one transaction
   * (one commit instead of one per attempt); each still only under its own claim.
   */
  private recordSoon(outcome: Outcome): Promise<void> {
    if (!this.batch) {
      const outcomes: Outcome[] = [];
      const done = new Promise<void>((resolve) => setTimeout(resolve, RECORD_GATHER_MS))
        .then(() => {
          this.batch = undefined;
          return this.record(outcomes);
        })
        .finally(() => {
          this.unrecorded -= outcomes.length;
          // A round held back by unrecorded claims may claim now.
          this.claimMore();
        });
      this.batch = { outcomes, done };
    }
    this.unrecorded++;
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
      // Recorded: a 2xx also cleared its endpoint's failure clock in that transaction.
      for (const { delivery, record } of outcomes)
        if (record.kind === 'delivered') this.answering.add(delivery.endpoint.id);
        else this.answering.delete(delivery.endpoint.id);
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
