import type { Settings } from '../config/settings';
import type { BufferedApiLog } from '../core/api-log/api-log';
import type { Clock } from '../core/common/clock';
import type { Logger } from '../core/common/logger';
import type { RequestObservation } from '../http/middleware/observe-requests';
import { runWithLogContext } from '../infra/logging';
import type { PrometheusMetrics } from '../infra/metrics/prometheus-metrics';

/**
 * What the HTTP adapter reports about each request goes to three places: the log line, the
 * Prometheus metrics, and (for a reseller's call to a route) the API log's buffer.
 */
export function requestObservation(parts: {
  readonly logger: Logger;
  readonly metrics: PrometheusMetrics;
  readonly apiLog: BufferedApiLog;
  readonly settings: Settings;
  readonly clock: Clock;
}): RequestObservation {
  const { logger, metrics, apiLog, settings, clock } = parts;
  return {
    begin: () => metrics.httpRequestStarted(),
    runInContext: (reqId, work, ctx) => runWithLogContext({ reqId }, work, ctx),
    observe(call) {
      // Health checks and scrapes come every few seconds: their lines are debug unless they fail.
      (call.operational && call.status < 500 ? logger.debug : logger.info).call(
        logger,
        // One shape for every line (a field left undefined is not written), not a spread of an optional one.
        {
          reqId: call.requestId || undefined,
          method: call.method,
          route: call.route,
          status: call.status,
          ms: Math.round(call.durationMs * 10) / 10,
          reseller: call.resellerId || undefined,
        },
        'request',
      );
      metrics.httpRequest(call.method, call.route ?? '(unmatched)', call.status, call.durationMs / 1000, call.routed);
      if (settings.apiLog && call.resellerId && call.route) {
        apiLog.record({
          resellerId: call.resellerId,
          at: clock.now(),
          method: call.method,
          route: call.route,
          domain: call.domain ?? null,
          status: call.status,
          durationMs: call.durationMs,
          error: call.error ?? null,
          requestId: call.requestId,
          clientIp: call.clientIp || null,
          // An entry waits in the buffer until its batch is written, long enough for V8 to promote it
          // out of the young generation: an empty parameter object (a GET without a query string) is
          // not kept with it, since its stored form is null either way.
          requestParams: hasAny(call.requestParams) ? call.requestParams : undefined,
          replyText: call.replyText,
        });
      }
    },
  };
}

/** Whether the parameters have a field (without making the array of their keys). */
function hasAny(params: Readonly<Record<string, unknown>> | undefined): boolean {
  for (const _ in params) return true;
  return false;
}
