import type { Clock } from '../common/clock';
import type { JobObserver, JobPass } from '../jobs/job-scheduler';
import type { RegistrarCall, RegistrarCallObserver } from '../registrar/guarded-registrar';

interface Stamped<T> {
  readonly at: number;
  readonly item: T;
}

/** Registrar answers that count as faults on the dashboard (a refusal or "unavailable" is a normal answer). */
const FAULTS = new Set(['timeout', 'error', 'malformed']);
const KEPT = 500;

/**
 * What the dashboard says about the last hour in this process: background passes that failed and
 * registrar calls that faulted. In memory and per process (each process behind a load balancer
 * shows its own); the metrics at /metrics count the same things for the whole fleet.
 */
export class RecentOperations implements JobObserver, RegistrarCallObserver {
  private readonly failedPasses: Array<Stamped<JobPass>> = [];
  private readonly faults: Array<Stamped<RegistrarCall>> = [];

  constructor(
    private readonly clock: Clock,
    private readonly windowMs = 3_600_000,
  ) {}

  jobPass(pass: JobPass): void {
    if (pass.outcome === 'error') this.keep(this.failedPasses, pass);
  }

  registrarCall(call: RegistrarCall): void {
    if (FAULTS.has(call.outcome)) this.keep(this.faults, call);
  }

  /** Failed background passes in the window, newest first. */
  recentFailedPasses(): Array<{ job: string; at: Date }> {
    return this.within(this.failedPasses).map(({ at, item }) => ({ job: item.job, at: new Date(at) }));
  }

  /** Registrar faults in the window per plugin. */
  registrarFaults(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const { item } of this.within(this.faults)) counts.set(item.plugin, (counts.get(item.plugin) ?? 0) + 1);
    return counts;
  }

  private keep<T>(list: Array<Stamped<T>>, item: T): void {
    list.push({ at: this.clock.now().getTime(), item });
    if (list.length > KEPT) list.shift();
  }

  private within<T>(list: ReadonlyArray<Stamped<T>>): Array<Stamped<T>> {
    const since = this.clock.now().getTime() - this.windowMs;
    return list.filter((s) => s.at >= since).reverse();
  }
}

/** One observer that tells two (the host's or the metrics, and the dashboard's). */
export function bothObservers(a: RegistrarCallObserver, b: RegistrarCallObserver): RegistrarCallObserver {
  return {
    registrarCall(call) {
      a.registrarCall(call);
      b.registrarCall(call);
    },
  };
}
