import type { Logger } from '../common/logger';

/** Counts a pass reports for the log and the metrics, like `{ synced: 40, failed: 1 }`. */
export type JobCounts = Readonly<Record<string, number>>;

/**
 * Work the server repeats in the background. A job must be safe to run on several processes at
 * once (it claims its work with leases or row locks), since every server process runs it.
 */
export interface BackgroundJob {
  /** kebab-case, unique: `domain-sync`, `order-reconciliation`. */
  readonly name: string;
  /** Milliseconds from the end of one pass to the start of the next; 0 never runs the job. */
  readonly intervalMs: number;
  /**
   * One pass. `signal` aborts when the process stops: start no new work then, and give claimed
   * work back (or let its lease run out) for another process to finish.
   */
  run(signal: AbortSignal): Promise<JobCounts | void>;
}

export interface JobPass {
  readonly job: string;
  readonly outcome: 'ok' | 'error';
  readonly seconds: number;
  readonly counts: JobCounts;
}

/** Told about every finished pass (metrics implement it). */
export interface JobObserver {
  jobPass(pass: JobPass): void;
}

export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** Timers that never keep a process alive on their own. */
const nodeTimers: Timers = {
  set: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    timer.unref?.();
    return timer;
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

interface Scheduled {
  readonly job: BackgroundJob;
  timer?: unknown;
  running?: Promise<void>;
}

export interface JobSchedulerOptions {
  /** The first pass of each job starts at a random point within this (processes started together spread out). */
  readonly firstPassWithinMs?: number;
  readonly timers?: Timers;
  readonly random?: () => number;
  /**
   * Runs a pass inside a log context naming its job, so that every line written during it, by any
   * service or plugin, says which background job it belongs to (as a request's lines carry its id).
   */
  readonly runInContext?: <T>(job: string, work: () => Promise<T>) => Promise<T>;
}

/**
 * Runs background jobs, each on its own interval, one pass of a job at a time per process (the
 * next is scheduled when the previous ends, so a slow registrar never stacks passes up). A pass
 * that fails is logged and the job goes on. `stop` aborts the passes in progress and waits for them.
 */
export class JobScheduler {
  private readonly jobs = new Map<string, Scheduled>();
  private controller = new AbortController();
  private started = false;
  private readonly timers: Timers;

  constructor(
    private readonly logger: Logger,
    private readonly observer: JobObserver,
    private readonly options: JobSchedulerOptions = {},
  ) {
    this.timers = options.timers ?? nodeTimers;
  }

  /** Adds a job; in a scheduler already started, it is scheduled at once. */
  register(job: BackgroundJob): void {
    if (!/^[a-z][a-z0-9-]{0,63}$/.test(job.name)) throw new Error(`job name "${job.name}" must be kebab-case`);
    if (this.jobs.has(job.name)) throw new Error(`a job named "${job.name}" is registered already`);
    const scheduled: Scheduled = { job };
    this.jobs.set(job.name, scheduled);
    if (this.started) this.schedule(scheduled, this.firstDelay(job));
  }

  names(): string[] {
    return [...this.jobs.keys()];
  }

  get isRunning(): boolean {
    return this.started;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.controller = new AbortController();
    for (const scheduled of this.jobs.values()) this.schedule(scheduled, this.firstDelay(scheduled.job));
  }

  /**
   * Stops scheduling, aborts the passes in progress and waits for them to end, at most
   * `waitMs`. Answers whether they all ended (a pass still running after that is left to finish
   * on its own or die with the process; its claims run out).
   */
  async stop(waitMs = Infinity): Promise<boolean> {
    this.started = false;
    this.controller.abort();
    for (const scheduled of this.jobs.values()) {
      if (scheduled.timer !== undefined) this.timers.clear(scheduled.timer);
      scheduled.timer = undefined;
    }
    const running = Promise.all([...this.jobs.values()].map((s) => s.running)).then(() => true);
    if (waitMs === Infinity) return running;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), waitMs);
    });
    try {
      return await Promise.race([running, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One pass of a job now, outside the schedule (tests, the CLI). */
  async runOnce(name: string, signal: AbortSignal = new AbortController().signal): Promise<JobCounts> {
    const scheduled = this.jobs.get(name);
    if (!scheduled) throw new Error(`no job named "${name}"`);
    return this.pass(scheduled.job, signal, true);
  }

  private firstDelay(job: BackgroundJob): number {
    const window = Math.min(job.intervalMs, this.options.firstPassWithinMs ?? 10_000);
    return Math.floor((this.options.random ?? Math.random)() * window);
  }

  private schedule(scheduled: Scheduled, delayMs: number): void {
    if (!this.started || scheduled.job.intervalMs <= 0) return;
    scheduled.timer = this.timers.set(() => {
      scheduled.timer = undefined;
      const signal = this.controller.signal;
      scheduled.running = this.pass(scheduled.job, signal, false)
        .then(() => undefined)
        .finally(() => {
          scheduled.running = undefined;
          this.schedule(scheduled, scheduled.job.intervalMs);
        });
    }, delayMs);
  }

  private async pass(job: BackgroundJob, signal: AbortSignal, rethrow: boolean): Promise<JobCounts> {
    const started = performance.now();
    const log = this.logger.child({ job: job.name });
    try {
      const run = () => job.run(signal);
      const counts = (await (this.options.runInContext ? this.options.runInContext(job.name, run) : run())) ?? {};
      const seconds = (performance.now() - started) / 1000;
      this.observer.jobPass({ job: job.name, outcome: 'ok', seconds, counts });
      if (Object.values(counts).some((n) => n > 0))
        log.info({ ...counts, ms: Math.round(seconds * 1000) }, 'background pass');
      return counts;
    } catch (error) {
      this.observer.jobPass({
        job: job.name,
        outcome: 'error',
        seconds: (performance.now() - started) / 1000,
        counts: {},
      });
      log.error({ err: error }, 'background pass failed');
      if (rethrow) throw error;
      return {};
    }
  }
}
