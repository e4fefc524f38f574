import autocannon from 'autocannon';

export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  /** Non-2xx replies, errors and timeouts: a benchmark whose requests fail measures nothing. */
  readonly failures: number;
  /** Server CPU time per request in microseconds, when the server's CPU time is known. */
  readonly cpuMicros: number;
  /** The database server's CPU time per request in microseconds, when it is known (NaN otherwise). */
  readonly databaseCpuMicros: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly method?: 'GET' | 'POST';
  readonly headers?: () => Record<string, string>;
  readonly body?: string;
  /** CPU seconds the server has used so far (measured before and after the run). */
  readonly serverCpu?: () => number;
  /** CPU seconds the database server has used so far (a local `mariadbd`: `databaseCpuSeconds`). */
  readonly databaseCpu?: () => number;
  /**
   * Builds each request of a connection: `connection` is a per-connection object (say, which
   * reseller it speaks for), kept for the connection's life. Overrides method, headers and body.
   */
  readonly request?: (connection: Record<string, unknown>) => {
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
  };
}

/** Runs autocannon against one URL and keeps the numbers the reports need. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const cpuBefore = options.serverCpu?.() ?? Number.NaN;
  const databaseCpuBefore = options.databaseCpu?.() ?? Number.NaN;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    method: options.method ?? 'GET',
    headers: options.headers?.() ?? {},
    body: options.body,
    ...(options.request && {
      requests: [
        {
          setupRequest: (req: autocannon.Request, context: object) => {
            const built = options.request!(context as Record<string, unknown>);
            return { ...req, ...built, headers: { ...req.headers, ...built.headers } } as autocannon.Request;
          },
        },
      ],
    }),
  });
  const requests = result.requests.total;
  const seconds = result.duration;
  return {
    requests,
    seconds,
    perSecond: requests / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    cpuMicros: (((options.serverCpu?.() ?? Number.NaN) - cpuBefore) * 1e6) / requests,
    databaseCpuMicros: (((options.databaseCpu?.() ?? Number.NaN) - databaseCpuBefore) * 1e6) / requests,
  };
}

/** Sums a benchmark's rounds: throughput over all of them, latency as the median of the rounds'. */
export function combine(rounds: readonly LoadResult[]): LoadResult {
  const requests = rounds.reduce((n, r) => n + r.requests, 0);
  const seconds = rounds.reduce((n, r) => n + r.seconds, 0);
  const med = (pick: (r: LoadResult) => number) =>
    [...rounds].map(pick).sort((a, b) => a - b)[Math.floor((rounds.length - 1) / 2)]!;
  return {
    requests,
    seconds,
    perSecond: requests / seconds,
    p50: med((r) => r.p50),
    p99: med((r) => r.p99),
    failures: rounds.reduce((n, r) => n + r.failures, 0),
    cpuMicros: rounds.reduce((n, r) => n + r.cpuMicros * r.requests, 0) / requests,
    databaseCpuMicros: rounds.reduce((n, r) => n + r.databaseCpuMicros * r.requests, 0) / requests,
  };
}
