import type { Logger } from './core/common/logger';

/** The part of `process` the handler uses (a fake emitter in tests). */
export interface SignalSource {
  on(signal: 'SIGTERM' | 'SIGINT', listener: (signal: NodeJS.Signals) => void): unknown;
}

export interface ShutdownSignalOptions {
  /** Starts the graceful shutdown; called once, for the first signal. */
  readonly shutdown: (signal: string) => void;
  /** Leaves at once, skipping the rest of the graceful shutdown. */
  readonly forceExit: (code: number) => void;
  readonly logger: Logger;
  readonly source?: SignalSource;
  readonly now?: () => number;
  /**
   * Signals this soon after the first are copies of it, never a person pressing Ctrl-C twice: a
   * signal sent to the whole process group reaches the server directly and once more through
   * each parent that relays it (npm, tsx).
   */
  readonly relayWindowMs?: number;
}

/**
 * SIGTERM and SIGINT start one graceful shutdown. Further signals do not interrupt it (they are
 * logged), except a SIGINT that comes after the relay window: a second Ctrl-C, which exits at
 * once, on purpose (exit code 130).
 */
export function handleShutdownSignals(options: ShutdownSignalOptions): void {
  const { shutdown, forceExit, logger, source = process, now = Date.now, relayWindowMs = 1000 } = options;
  let first: { signal: string; at: number } | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (first === undefined) {
      first = { signal, at: now() };
      shutdown(signal);
      return;
    }
    if (signal === 'SIGINT' && now() - first.at > relayWindowMs) {
      logger.warn({ signal }, 'second interrupt: exiting now, without waiting for the graceful shutdown');
      forceExit(130);
      return;
    }
    logger.info(
      { signal, first: first.signal },
      'already shutting down; the signal is ignored (a second Ctrl-C forces the exit)',
    );
  };
  source.on('SIGTERM', onSignal);
  source.on('SIGINT', onSignal);
}
