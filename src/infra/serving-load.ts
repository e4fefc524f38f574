import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { ServingLoad } from '../core/webhooks/delivery-worker';

/** How busy the event loop must have been, as a share of the time, for the process to count as busy. */
export const BUSY_UTILIZATION = 0.8;
/** The shortest span the utilization is measured over; a question within it gets the last answer. */
export const SAMPLE_MS = 200;

/** Node's event loop utilization, cumulative since the process started (`performance.eventLoopUtilization`). */
export type UtilizationSource = () => EventLoopUtilization;

/**
 * Busy while requests are being served and the event loop has been at least `BUSY_UTILIZATION`
 * in use since the last look (at least `SAMPLE_MS` ago): background work (webhook deliveries) then
 * keeps to its floor, and takes the whole process again once the requests stop or leave it room
 * (docs/events.md#under-load). Sampled when asked, so it needs no timer of its own.
 */
export class EventLoopServingLoad implements ServingLoad {
  private last: EventLoopUtilization;
  private sampledAt: number;
  private requests = 0;
  private answer = false;

  constructor(
    private readonly utilization: UtilizationSource = () => performance.eventLoopUtilization(),
    private readonly now: () => number = () => performance.now(),
  ) {
    this.last = utilization();
    this.sampledAt = now();
  }

  /** A request began (the API's request observation calls it). */
  requestStarted(): void {
    this.requests++;
  }

  get busy(): boolean {
    const now = this.now();
    if (now - this.sampledAt < SAMPLE_MS) return this.answer;
    const current = this.utilization();
    const used = performance.eventLoopUtilization(current, this.last).utilization;
    this.answer = this.requests > 0 && used >= BUSY_UTILIZATION;
    this.last = current;
    this.sampledAt = now;
    this.requests = 0;
    return this.answer;
  }
}
