import type { BufferedApiLog, RecordedApiCall } from '../../../src/core/api-log/api-log';
import { storedEntry } from '../../../src/core/api-log/api-log';
import { fixedClock } from '../../../src/core/common/clock';
import type { Settings } from '../../../src/config/settings';
import type { ObservedCall } from '../../../src/http/middleware/observe-requests';
import type { PrometheusMetrics } from '../../../src/infra/metrics/prometheus-metrics';
import { requestObservation } from '../../../src/startup/request-observer';
import { recordingLogger } from '../../support/fakes';

const call = (requestParams: Record<string, unknown> | undefined): ObservedCall => ({
  requestId: 'req-1',
  method: 'GET',
  route: '/billing/credits',
  resellerId: 'R1',
  requestParams,
  replyText: '{"credits":"123.45"}',
  status: 200,
  durationMs: 1.5,
  clientIp: '127.0.0.1',
  routed: true,
});

function observed() {
  const recorded: RecordedApiCall[] = [];
  const observation = requestObservation({
    logger: recordingLogger(),
    metrics: { httpRequest: () => undefined } as unknown as PrometheusMetrics,
    apiLog: { record: (entry: RecordedApiCall) => recorded.push(entry) } as unknown as BufferedApiLog,
    settings: { apiLog: true } as Settings,
    clock: fixedClock(new Date('2026-11-27T05:00:00Z')),
  });
  return { observation, recorded };
}

describe('the request observer', () => {
  it('hands the API log no parameter object for a call without parameters (its stored request body is null)', () => {
    const { observation, recorded } = observed();
    observation.observe(call(Object.create(null)));
    observation.observe(call({ domain: 'example.com' }));
    expect(recorded.map((e) => e.requestParams)).toEqual([undefined, { domain: 'example.com' }]);
    expect(recorded.map((e) => storedEntry(e).requestBody)).toEqual([null, '{"domain":"example.com"}']);
    expect(storedEntry(recorded[0]!).replyBody).toBe('{"credits":"123.45"}');
  });
});
