import type { Logger } from '../shared/logger';
import type { ReconcileReport } from './order-service';

/**
 * Runs reconciliation every `intervalMs` in a long-running process (the stand-alone server).
 * One pass at a time: the next is scheduled when the previous ends, so a slow registrar never
 * stacks passes up. Several processes may each run one; order leases keep them apart.
 */
export class ReconciliationJob {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly reconcile: () => Promise<ReconcileReport>,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (!this.stopped || this.intervalMs <= 0) return;
    this.stopped = false;
    this.schedule();
  }

  /** Stops scheduling and waits for a pass in progress to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, this.intervalMs);
    this.timer.unref?.();
  }

  private async pass(): Promise<void> {
    try {
      const report = await this.reconcile();
      if (report.checked > 0 || report.busy > 0) {
        const { orders: _orders, ...counts } = report;
        this.logger.info(counts, 'reconciliation pass');
      }
    } catch (error) {
      this.logger.error({ err: error }, 'reconciliation pass failed');
    }
  }
}
