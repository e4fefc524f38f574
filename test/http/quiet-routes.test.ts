import { Writable } from 'node:stream';
import { createLogger } from '../../src/infra/logging';
import { ROUTES } from '../../src/http/routes';
import { startHarness, type Harness } from '../support/harness';

/**
 * Routes marked `quiet` run without a log context (src/http/route-table.ts): that is only right
 * while nothing inside them writes a line of its own. Every quiet route is called here, at debug
 * level, and must log its request line and nothing else.
 */
describe('quiet routes', () => {
  let text = '';
  const logger = createLogger(
    'debug',
    new Writable({
      write(chunk, _enc, done) {
        text += String(chunk);
        done();
      },
    }) as never,
  );
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ logger });
  });
  afterAll(async () => {
    await h.close();
  });

  const quiet = ROUTES.filter((r) => r.quiet);
  const examplePath = (path: string) => path.replace(':domain', 'example.com');

  it('are the routes that answer from the database alone', () => {
    expect(quiet.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort()).toEqual([
      'GET /billing/credits',
      'GET /order/pricing/domains/register',
      'GET /order/pricing/domains/renew',
      'GET /order/pricing/domains/transfer',
      'GET /tlds',
      'GET /tlds/pricing',
      'GET /version',
    ]);
  });

  it.each(quiet.map((r) => [r.path, r] as const))(
    '%s writes only its request line, which carries the request id',
    async (_path, r) => {
      text = '';
      const res = await h.http
        .get(examplePath(r.path))
        .query(r.path.startsWith('/order/pricing') ? { domain: 'example.com' } : {})
        .set(h.headers());
      expect(res.status).toBe(200);
      const lines = text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.map((line) => line.msg)).toEqual(['request']);
      expect(lines[0]).toMatchObject({ reqId: res.headers['x-request-id'], route: r.path, status: 200 });
    },
  );
  // A 500 on a quiet route still names its request id on the error line: test/http/observability.test.ts (/billing/credits).
});
