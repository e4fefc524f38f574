import type { EventLoopUtilization } from 'node:perf_hooks';
import { BUSY_UTILIZATION, EventLoopServingLoad, SAMPLE_MS } from '../../../src/infra/serving-load';

/** A process whose event loop the test runs: `spend(active, idle)` ms pass, so much of it in use. */
function process() {
  let now = 0;
  const loop = { idle: 0, active: 0 };
  const load = new EventLoopServingLoad(
    (): EventLoopUtilization => ({ ...loop, utilization: loop.active / (loop.idle + loop.active || 1) }),
    () => now,
  );
  return {
    load,
    spend(active: number, idle: number) {
      loop.active += active;
      loop.idle += idle;
      now += active + idle;
    },
  };
}

describe('the serving load (whether the process is busy serving requests)', () => {
  it('is busy when requests came and the event loop was in use at least the threshold of the time', () => {
    const p = process();
    p.load.requestStarted();
    p.spend(SAMPLE_MS * BUSY_UTILIZATION, SAMPLE_MS * (1 - BUSY_UTILIZATION));
    expect(p.load.busy).toBe(true);
  });

  it('is not busy when the event loop had room, however many requests came', () => {
    const p = process();
    for (let i = 0; i < 1000; i++) p.load.requestStarted();
    p.spend(SAMPLE_MS * 0.5, SAMPLE_MS * 0.5);
    expect(p.load.busy).toBe(false);
  });

  it('is not busy when no request came, however busy the loop (background work alone takes it all)', () => {
    const p = process();
    p.spend(SAMPLE_MS, 0);
    expect(p.load.busy).toBe(false);
  });

  it('keeps its answer within one sample, and counts requests afresh in the next', () => {
    const p = process();
    p.load.requestStarted();
    p.spend(SAMPLE_MS, 0);
    expect(p.load.busy).toBe(true);
    p.spend(SAMPLE_MS / 4, 0);
    expect(p.load.busy).toBe(true);
    // The next sample: the loop still full, but the requests have stopped.
    p.spend(SAMPLE_MS, 0);
    expect(p.load.busy).toBe(false);
  });

  it('measures each sample on its own, not since the process started', () => {
    const p = process();
    p.spend(0, 100 * SAMPLE_MS);
    expect(p.load.busy).toBe(false);
    p.load.requestStarted();
    p.spend(SAMPLE_MS, 0);
    expect(p.load.busy).toBe(true);
  });
});
