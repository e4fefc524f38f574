import { ROUTES } from '../../src/http/routes';
import { startHarness, type Harness } from '../support/harness';
import { captureLogs } from '../support/logs';

/**
 * The reads that answer from the database alone (no registrar call) write nothing but their
 * request line, at debug level too, and that line carries the request id the reply names.
 * Together with the log-context tests (test/unit/infra/logging.test.ts: a context never leaks)
 * this keeps the request log what it was when these routes ran without a context (ADR 12).
 */
describe('routes that answer from the database alone', () => {
  const logs = captureLogs();
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ logger: logs.logger });
  });
  afterAll(async () => {
    await h.close();
  });

  const DATABASE_READS = [
    'GET /billing/credits',
    'GET /order/pricing/domains/register',
    'GET /order/pricing/domains/renew',
    'GET /order/pricing/domains/transfer',
    'GET /tlds',
    'GET /tlds/pricing',
    'GET /version',
  ];
  const reads = ROUTES.filter((r) => DATABASE_READS.includes(`${r.method.toUpperCase()} ${r.path}`));
  const examplePath = (path: string) => path.replace(':domain', 'example.com');

  it('are all in the route table', () => {
    expect(reads).toHaveLength(DATABASE_READS.length);
  });

  it.each(reads.map((r) => [r.path, r] as const))(
    '%s writes only its request line, which carries the request id',
    async (_path, r) => {
      logs.clear();
      const res = await h.http
        .get(examplePath(r.path))
        .query(r.path.startsWith('/order/pricing') ? { domain: 'example.com' } : {})
        .set(h.headers());
      expect(res.status).toBe(200);
      const lines = logs.lines();
      expect(lines.map((line) => line.msg)).toEqual(['request']);
      expect(lines[0]).toMatchObject({ reqId: res.headers['x-request-id'], route: r.path, status: 200 });
    },
  );
  // A 500 names its request id on the error line: test/http/observability.test.ts (/billing/credits).
});
