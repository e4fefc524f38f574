import type { ReconcileReport } from '../../../../src/core/order/order-service';
import { ReconciliationJob } from '../../../../src/core/order/reconciliation-job';
import { createLogger } from '../../../../src/infra/logging';

const EMPTY: ReconcileReport = { checked: 0, completed: 0, refunded: 0, unresolved: 0, busy: 0, purgedIdempotencyKeys: 0, orders: [] };

describe('ReconciliationJob', () => {
  beforeEach(() => { jest.useFakeTimers(); });
  afterEach(() => { jest.useRealTimers(); });

  it('runs a pass every interval, one at a time, until stopped', async () => {
    let passes = 0;
    let release: () => void = () => undefined;
    const job = new ReconciliationJob(() => {
      passes++;
      return new Promise((resolve) => { release = () => resolve(EMPTY); });
    }, 1_000, createLogger('silent'));
    job.start();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(passes).toBe(1);
    // A slow pass is never overlapped by the next one.
    await jest.advanceTimersByTimeAsync(5_000);
    expect(passes).toBe(1);
    release();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(passes).toBe(2);
    release();
    await job.stop();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(passes).toBe(2);
  });

  it('keeps going after a failed pass', async () => {
    let passes = 0;
    const job = new ReconciliationJob(async () => {
      passes++;
      if (passes === 1) throw new Error('database unavailable');
      return EMPTY;
    }, 1_000, createLogger('silent'));
    job.start();
    await jest.advanceTimersByTimeAsync(2_000);
    expect(passes).toBe(2);
    await job.stop();
  });

  it('never runs with an interval of 0 (the off switch)', async () => {
    const reconcile = jest.fn(async () => EMPTY);
    const job = new ReconciliationJob(reconcile, 0, createLogger('silent'));
    job.start();
    await jest.advanceTimersByTimeAsync(3_600_000);
    expect(reconcile).not.toHaveBeenCalled();
    await job.stop();
  });
});
