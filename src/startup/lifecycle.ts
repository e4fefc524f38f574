/** What `close()` was asked for, handed to every stop hook. */
export interface StopOptions {
  /** How long to wait for a background pass in progress. */
  readonly jobsWaitMs?: number;
}

type StopHook = (options: StopOptions) => Promise<void> | void;

/**
 * The module's stopping, registered where each part is started: `close()` (or a failed start)
 * runs the hooks in reverse order, so what was started last stops first and the database, opened
 * first, closes last. Every hook runs even when an earlier one failed; the first failure is thrown.
 */
export class Lifecycle {
  private readonly hooks: StopHook[] = [];
  private stopping: Promise<void> | undefined;

  /** Registers how to stop what was just started. */
  onStop(hook: StopHook): void {
    this.hooks.push(hook);
  }

  /** Runs every stop hook once, newest first; later calls wait for the same stop. */
  stop(options: StopOptions = {}): Promise<void> {
    this.stopping ??= this.runHooks(options);
    return this.stopping;
  }

  private async runHooks(options: StopOptions): Promise<void> {
    let failure: unknown;
    for (const hook of [...this.hooks].reverse()) {
      try {
        await hook(options);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  }
}
