import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ApiLogDropObserver } from '../../core/api-log/api-log';
import type { JobObserver, JobPass } from '../../core/jobs/job-scheduler';
import type { RegistrarCall, RegistrarCallObserver } from '../../core/registrar/guarded-registrar';
import type { EventBus } from '../../core/common/events';
import type { Logger } from '../../core/common/logger';
import type { Minor } from '../../core/common/money';

/** What the HTTP adapter records per request (src/http/middleware/observe-requests.ts). */
export interface HttpMetrics {
  httpRequestStarted(): void;
  /** `routed`: the request had been counted as started. */
  httpRequest(method: string, route: string, status: number, seconds: number, routed: boolean): void;
}

/** Read at scrape time (one query per scrape; concurrent scrapes share it). */
export interface ScrapeSources {
  /** The sum of every reseller's balance, in minor units. */
  totalBalance(): Promise<Minor>;
  /** Entries waiting in the API log's buffer. */
  apiLogPending(): number;
}

// Request and registrar latencies: from 5 ms (an answer from memory) to a registrar's 30 s deadline.
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_BUCKETS = [0.1, 1, 5, 15, 60, 300, 900, 3600];

interface RouteInstruments {
  readonly duration: Histogram.Internal<'method' | 'route'>;
  readonly byStatus: Map<number, RequestCount>;
}

/** Requests of one route and status counted since the last scrape: added to the counter when it is read. */
interface RequestCount {
  readonly labels: { readonly method: string; readonly route: string; readonly status: string };
  pending: number;
}

/**
 * The platform's Prometheus metrics, in a registry of its own (several modules may live in one
 * process, and a host can merge the registry into its own). Every name starts with `reseller_`.
 * Counters are per process: Prometheus scrapes each process and sums them.
 */
export class PrometheusMetrics implements HttpMetrics, RegistrarCallObserver, JobObserver, ApiLogDropObserver {
  readonly registry = new Registry();
  // A request costs two additions to plain numbers here; prom-client (which hashes the labels of
  // every call) is given the counts when it is read, at a scrape.
  private readonly requestCounts: RequestCount[] = [];
  private requestsInFlight = 0;
  private readonly httpRequests = new Counter({
    name: 'reseller_http_requests_total',
    help: 'API requests by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
    collect: () => this.addRequestCounts(),
  });
  private readonly httpDuration = new Histogram({
    name: 'reseller_http_request_duration_seconds',
    help: 'API request latency by route template',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly registrarCalls = new Counter({
    name: 'reseller_registrar_calls_total',
    help: 'Registrar plugin calls by plugin, capability, operation and outcome',
    labelNames: ['plugin', 'capability', 'operation', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly registrarDuration = new Histogram({
    name: 'reseller_registrar_call_duration_seconds',
    help: 'Registrar plugin call latency by plugin and capability',
    labelNames: ['plugin', 'capability'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly orders = new Counter({
    name: 'reseller_orders_total',
    help: 'Orders by action and outcome (placed, completed, failed)',
    labelNames: ['action', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly ledgerEntries = new Counter({
    name: 'reseller_ledger_entries_total',
    help: 'Credit ledger entries posted, by kind',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly ledgerAmount = new Counter({
    name: 'reseller_ledger_amount_minor_total',
    help: 'Credit moved by ledger entries, in minor units (absolute), by kind',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly statusChanges = new Counter({
    name: 'reseller_domain_status_changes_total',
    help: 'Domain status changes by new status and cause',
    labelNames: ['to', 'cause'] as const,
    registers: [this.registry],
  });
  private readonly jobPasses = new Counter({
    name: 'reseller_job_passes_total',
    help: 'Background job passes by job and outcome',
    labelNames: ['job', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly jobDuration = new Histogram({
    name: 'reseller_job_pass_duration_seconds',
    help: 'Background job pass duration',
    labelNames: ['job'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });
  private readonly jobItems = new Counter({
    name: 'reseller_job_items_total',
    help: 'Items background passes reported, by job and count name',
    labelNames: ['job', 'count'] as const,
    registers: [this.registry],
  });
  private readonly apiLogDroppedTotal = new Counter({
    name: 'reseller_api_log_dropped_total',
    help: 'API log entries dropped because the database could not take them in time',
    registers: [this.registry],
  });
  private readonly routes = new Map<string, RouteInstruments>();
  private sources: ScrapeSources | undefined;
  private lastBalance: number | undefined;
  private balanceRead: Promise<number | undefined> | undefined;

  constructor(private readonly logger: Logger) {
    const self = this;
    new Gauge({
      name: 'reseller_http_requests_in_flight',
      help: 'API requests being served now',
      registers: [this.registry],
      collect() {
        this.set(self.requestsInFlight);
      },
    });
    new Gauge({
      name: 'reseller_credit_balance_minor',
      help: 'Sum of every reseller credit balance, in minor units (the ledger total, read from the database)',
      registers: [this.registry],
      async collect() {
        const value = await self.totalBalance();
        if (value !== undefined) this.set(value);
      },
    });
    new Gauge({
      name: 'reseller_api_log_buffered',
      help: 'API log entries waiting to be written',
      registers: [this.registry],
      collect() {
        this.set(self.sources?.apiLogPending() ?? 0);
      },
    });
  }

  /** Process metrics (CPU, memory, event loop lag, GC): the stand-alone server turns them on. */
  collectProcessMetrics(): void {
    collectDefaultMetrics({ register: this.registry, prefix: 'reseller_' });
  }

  readFrom(sources: ScrapeSources): void {
    this.sources = sources;
  }

  /** Order outcomes, ledger movements and status changes come from the module's events. */
  subscribe(events: EventBus): void {
    events.on('order.placed', (e) => this.orders.inc({ action: e.action, outcome: 'placed' }));
    events.on('order.completed', (e) => this.orders.inc({ action: e.action, outcome: 'completed' }));
    events.on('order.failed', (e) => this.orders.inc({ action: e.action, outcome: 'failed' }));
    events.on('order.refunded', (e) => this.orders.inc({ action: e.action, outcome: 'refunded' }));
    events.on('credit.changed', (e) => {
      this.ledgerEntries.inc({ kind: e.kind });
      this.ledgerAmount.inc({ kind: e.kind }, Math.abs(e.amount));
    });
    events.on('domain.status_changed', (e) => this.statusChanges.inc({ to: e.to, cause: e.cause }));
  }

  httpRequestStarted(): void {
    this.requestsInFlight += 1;
  }

  httpRequest(method: string, route: string, status: number, seconds: number, routed: boolean): void {
    if (routed) this.requestsInFlight -= 1;
    // The label children are looked up once per route and status: a request costs two increments.
    const key = `${method} ${route}`;
    let instruments = this.routes.get(key);
    if (!instruments) {
      instruments = { duration: this.httpDuration.labels({ method, route }), byStatus: new Map() };
      this.routes.set(key, instruments);
    }
    let count = instruments.byStatus.get(status);
    if (!count) {
      count = { labels: { method, route, status: String(status) }, pending: 0 };
      instruments.byStatus.set(status, count);
      this.requestCounts.push(count);
    }
    count.pending += 1;
    instruments.duration.observe(seconds);
  }

  /** Adds the requests counted since the last read to the counter. */
  private addRequestCounts(): void {
    for (const count of this.requestCounts) {
      if (count.pending === 0) continue;
      this.httpRequests.inc(count.labels, count.pending);
      count.pending = 0;
    }
  }

  registrarCall(call: RegistrarCall): void {
    this.registrarCalls.inc({
      plugin: call.plugin,
      capability: call.capability,
      operation: call.operation,
      outcome: call.outcome,
    });
    this.registrarDuration.observe({ plugin: call.plugin, capability: call.capability }, call.seconds);
  }

  jobPass(pass: JobPass): void {
    this.jobPasses.inc({ job: pass.job, outcome: pass.outcome });
    this.jobDuration.observe({ job: pass.job }, pass.seconds);
    for (const [count, n] of Object.entries(pass.counts)) if (n > 0) this.jobItems.inc({ job: pass.job, count }, n);
  }

  apiLogDropped(count: number): void {
    this.apiLogDroppedTotal.inc(count);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  private totalBalance(): Promise<number | undefined> {
    const sources = this.sources;
    if (!sources) return Promise.resolve(undefined);
    this.balanceRead ??= sources
      .totalBalance()
      .then(
        (value) => (this.lastBalance = value),
        (error: unknown) => {
          // A scrape during a database outage still answers, with the last value.
          this.logger.warn({ err: error }, 'metrics: the ledger total could not be read');
          return this.lastBalance;
        },
      )
      .finally(() => {
        this.balanceRead = undefined;
      });
    return this.balanceRead;
  }
}
