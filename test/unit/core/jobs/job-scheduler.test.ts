import { JobScheduler, type BackgroundJob, type JobPass, type Timers } from '../../../../src/core/jobs/job-scheduler';
import { deferred, recordingLogger } from '../../../support/fakes';

/** Timers the test fires by hand: no waiting on the wall clock. */
function manualTimers() {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  let next = 0;
  const timers: Timers = {
    set: (callback, ms) => {
      pending.set(++next, { callback, ms });
      return next;
    },
    clear: (handle) => {
      pending.delete(handle as number);
    },
  };
  return {
    timers,
    delays: () => [...pending.values()].map((p) => p.ms),
    /** Fires every timer due now; answers how many fired. */
    fire: () => {
      const due = [...pending.entries()];
      for (const [id, { callback }] of due) {
        pending.delete(id);
        callback();
      }
      return due.length;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('JobScheduler', () => {
  const setup = () => {
    const clock = manualTimers();
    const passes: JobPass[] = [];
    const logger = recordingLogger();
    const scheduler = new JobScheduler(
      logger,
      { jobPass: (p) => passes.push(p) },
      { timers: clock.timers, random: () => 0.5, firstPassWithinMs: 1000 },
    );
    return { clock, passes, logger, scheduler };
  };

  it('runs each pass inside the log context of its job, and writes its own summary outside it', async () => {
    let current: string | undefined;
    const seen: Array<string | undefined> = [];
    const logger = recordingLogger();
    const scheduler = new JobScheduler(
      {
        ...logger,
        child: () => ({
          ...logger,
          info: (obj, msg) => {
            seen.push(current);
            logger.info(obj, msg);
          },
        }),
      },
      { jobPass: () => undefined },
      {
        runInContext: async (job, work) => {
          current = job;
          try {
            return await work();
          } finally {
            current = undefined;
          }
        },
      },
    );
    scheduler.register({
      name: 'domain-sync',
      intervalMs: 60_000,
      run: async () => {
        await settle();
        seen.push(current);
        return { synced: 1 };
      },
    });
    await scheduler.runOnce('domain-sync');
    // The pass ran in its job's context; the summary line (which names the job itself) came after it.
    expect(seen).toEqual(['domain-sync', undefined]);
  });

  it('runs each job after a spread-out first delay, then every interval from the end of the previous pass', async () => {
    const { clock, passes, scheduler } = setup();
    let runs = 0;
    scheduler.register({ name: 'counting', intervalMs: 60_000, run: async () => ({ done: ++runs }) });
    scheduler.start();
    expect(clock.delays()).toEqual([500]);
    clock.fire();
    await settle();
    expect(runs).toBe(1);
    expect(clock.delays()).toEqual([60_000]);
    clock.fire();
    await settle();
    expect(passes.map((p) => [p.job, p.outcome, p.counts])).toEqual([
      ['counting', 'ok', { done: 1 }],
      ['counting', 'ok', { done: 2 }],
    ]);
    await scheduler.stop();
  });

  it('never overlaps passes of one job: the next is scheduled only when the previous ends', async () => {
    const { clock, scheduler } = setup();
    const gate = deferred();
    scheduler.register({ name: 'slow', intervalMs: 10, run: () => gate.promise });
    scheduler.start();
    clock.fire();
    await settle();
    expect(clock.delays()).toEqual([]);
    gate.resolve();
    await settle();
    expect(clock.delays()).toEqual([10]);
    await scheduler.stop();
  });

  it('logs a failed pass, counts it, and keeps the job scheduled', async () => {
    const { clock, passes, logger, scheduler } = setup();
    scheduler.register({
      name: 'failing',
      intervalMs: 5,
      run: async () => {
        throw new Error('registrar down');
      },
    });
    scheduler.start();
    clock.fire();
    await settle();
    expect(passes).toEqual([expect.objectContaining({ job: 'failing', outcome: 'error' })]);
    expect(logger.entries.find((e) => e.level === 'error')).toMatchObject({ msg: 'background pass failed' });
    expect(clock.delays()).toEqual([5]);
    await scheduler.stop();
  });

  it('on stop, aborts the pass in progress, waits for it, and schedules nothing more', async () => {
    const { clock, scheduler } = setup();
    let sawAbort = false;
    const job: BackgroundJob = {
      name: 'claims-work',
      intervalMs: 5,
      run: (signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            sawAbort = true;
            resolve({ givenBack: 3 });
          }),
        ),
    };
    scheduler.register(job);
    scheduler.start();
    clock.fire();
    await scheduler.stop();
    expect(sawAbort).toBe(true);
    expect(clock.delays()).toEqual([]);
  });

  it('takes a job registered after start (how orders plug in) and never runs a job with interval 0', async () => {
    const { clock, scheduler } = setup();
    scheduler.start();
    scheduler.register({ name: 'late', intervalMs: 1000, run: async () => undefined });
    scheduler.register({ name: 'off', intervalMs: 0, run: async () => undefined });
    expect(clock.delays()).toEqual([500]);
    expect(() => scheduler.register({ name: 'late', intervalMs: 1, run: async () => undefined })).toThrow(
      /registered already/,
    );
    expect(() => scheduler.register({ name: 'Bad Name', intervalMs: 1, run: async () => undefined })).toThrow(
      /kebab-case/,
    );
    await scheduler.stop();
  });

  it('runs one pass on demand with runOnce, and passes its failure on', async () => {
    const { scheduler } = setup();
    scheduler.register({ name: 'now', intervalMs: 1000, run: async () => ({ synced: 4 }) });
    scheduler.register({
      name: 'broken',
      intervalMs: 1000,
      run: async () => {
        throw new Error('no');
      },
    });
    await expect(scheduler.runOnce('now')).resolves.toEqual({ synced: 4 });
    await expect(scheduler.runOnce('broken')).rejects.toThrow('no');
    await expect(scheduler.runOnce('missing')).rejects.toThrow(/no job named/);
  });
});

describe('JobScheduler.stop with a deadline', () => {
  it('answers false when a pass ignores the abort and is still running at the deadline', async () => {
    const scheduler = new JobScheduler(recordingLogger(), { jobPass: () => undefined }, { firstPassWithinMs: 0 });
    const gate = deferred();
    scheduler.register({ name: 'stubborn', intervalMs: 1000, run: () => gate.promise });
    scheduler.start();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await scheduler.stop(10)).toBe(false);
    gate.resolve();
    expect(await scheduler.stop(10)).toBe(true);
  });
});
