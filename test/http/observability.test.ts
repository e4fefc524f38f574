import type { ResellerDirectory } from '../../src/core/reseller/reseller-directory';
import { givenDomain } from '../support/domains';
import { startHarness, type Harness } from '../support/harness';
import { captureLogs } from '../support/logs';
import { REGISTRANT, form } from '../support/wire';

const CONTACT_EMAIL = 'ada.lovelace@contact-secret.example';

describe('observability', () => {
  describe('logs', () => {
    const logs = captureLogs();
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({
        logger: logs.logger,
        ports: {
          // A directory that fails for one username: a genuine unexpected error on the request path.
          resellerDirectory: ({ builtIn }) => {
            const stored = builtIn();
            return {
              findForAuthentication: async (email) => {
                if (email === 'boom@example.com') throw new Error('directory exploded');
                return stored.findForAuthentication(email);
              },
            } satisfies ResellerDirectory;
          },
        },
      });
      await givenDomain(h.module, 'logged.com');
    });
    afterAll(async () => {
      await h.close();
    });

    it('never write the token, the API key, an EPP code or contact details, and carry the request id in every line written during a request', async () => {
      logs.clear();
      const headers = h.headers();
      const contact = {
        Registrant: {
          'First Name': 'Ada',
          'Last Name': 'Lovelace',
          'Email Address': CONTACT_EMAIL,
          'Address 1': '1 Analytical Row',
          City: 'London',
          Postcode: 'N1 1AA',
          Country: 'gb',
          'Phone Number': '+44.2000000000',
        },
      };
      expect(
        (
          await h.http
            .post('/domains/logged.com/contact')
            .set(headers)
            .type('form')
            .send(form({ contactdetails: contact }))
        ).status,
      ).toBe(200);
      expect((await h.http.get('/domains/logged.com/contact').set(headers)).body.Registrant['Email Address']).toBe(
        CONTACT_EMAIL,
      );
      const epp = await h.http.get('/domains/logged.com/eppcode').set(headers);
      expect(epp.status).toBe(200);
      // A registrar fault (the sandbox fails fail- names) and a refused token are logged too.
      await givenDomain(h.module, 'fail-logged.com', { atRegistrar: false });
      await h.http.get('/domains/fail-logged.com/information').set(headers);
      await h.http.get('/billing/credits').set({ ...headers, token: 'x'.repeat(88) });
      const boom = await h.http.get('/billing/credits').set({ username: 'boom@example.com', token: headers.token! });
      expect(boom.status).toBe(500);

      const text = logs.text();
      for (const secret of [headers.token!, h.reseller.apiKey, CONTACT_EMAIL, epp.body.eppcode as string]) {
        expect(text).not.toContain(secret);
      }
      const lines = logs.lines();
      expect(lines.length).toBeGreaterThanOrEqual(7);
      expect(lines.filter((line) => typeof line.reqId !== 'string')).toEqual([]);

      // The 500's message names the request id, which its error line carries.
      const requestId = boom.headers['x-request-id'];
      expect(boom.body).toEqual({ error: `Internal server error (request id ${requestId})` });
      expect(lines.find((line) => line.msg === 'unexpected error')).toMatchObject({
        reqId: requestId,
        level: 50,
        err: { message: 'directory exploded' },
      });
      expect(lines.find((line) => line.msg === 'request' && line.reqId === requestId)).toMatchObject({
        method: 'GET',
        route: '/billing/credits',
        status: 500,
      });
    });

    it('redact secrets and contact details wherever a line would carry them (defence in depth)', () => {
      logs.clear();
      logs.logger.warn(
        {
          token: 'T0KEN',
          apiKey: 'AP1KEY',
          eppcode: 'EPPC0DE',
          req: { headers: { token: 'T0KEN2' } },
          contacts: { registrant: { email: CONTACT_EMAIL } },
          input: { contactdetails: { Registrant: { 'Email Address': CONTACT_EMAIL } } },
          domain: 'still-visible.com',
        },
        'a careless line',
      );
      const text = logs.text();
      for (const secret of ['T0KEN', 'AP1KEY', 'EPPC0DE', CONTACT_EMAIL]) expect(text).not.toContain(secret);
      expect(text).toContain('still-visible.com');
    });

    it('keep a plain X-Request-Id from the client and answer with it', async () => {
      const res = await h.http.get('/version').set({ ...h.headers(), 'x-request-id': 'lb-1234.abc' });
      expect(res.headers['x-request-id']).toBe('lb-1234.abc');
      const odd = await h.http.get('/version').set({ ...h.headers(), 'x-request-id': 'has spaces and "quotes"' });
      expect(odd.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('metrics, health and readiness', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness();
    });
    afterAll(async () => {
      await h.close();
    });

    const metricValue = (text: string, name: string, labels: string) => {
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`${name}{${labels}}`) || (labels === '' && l.startsWith(`${name} `)));
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    /**
     * The tests of this block share one server and run in any order: each measures what it moves,
     * as the difference of a metric from a reading taken before (`since(before)`).
     */
    const since = (before: string) => (after: string, name: string, labels: string) =>
      (metricValue(after, name, labels) ?? 0) - (metricValue(before, name, labels) ?? 0);

    it('count requests by route template and status, with latency histograms, without authentication', async () => {
      await givenDomain(h.module, 'metered.com');
      const delta = since((await h.http.get('/metrics')).text);
      for (let i = 0; i < 3; i++) await h.http.get('/billing/credits').set(h.headers());
      await h.http.get('/billing/credits').set({ ...h.headers(), token: 'x'.repeat(88) });
      await h.http.get('/domains/metered.com/lock').set(h.headers());
      await h.http.get('/no/such/route');
      const res = await h.http.get('/metrics');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(
        delta(res.text, 'reseller_http_requests_total', 'method="GET",route="/billing/credits",status="200"'),
      ).toBe(3);
      expect(
        delta(res.text, 'reseller_http_requests_total', 'method="GET",route="/billing/credits",status="401"'),
      ).toBe(1);
      expect(
        delta(res.text, 'reseller_http_requests_total', 'method="GET",route="/domains/:domain/lock",status="200"'),
      ).toBe(1);
      expect(delta(res.text, 'reseller_http_requests_total', 'method="GET",route="(unmatched)",status="404"')).toBe(1);
      expect(
        delta(res.text, 'reseller_http_request_duration_seconds_count', 'method="GET",route="/billing/credits"'),
      ).toBe(4);
    });

    it('count registrar calls by plugin, capability, operation and outcome', async () => {
      const delta = since((await h.http.get('/metrics')).text);
      await givenDomain(h.module, 'metered-lock.com');
      await h.http.get('/domains/metered-lock.com/lock').set(h.headers());
      await h.http.get('/domains/metered-missing.com/lock').set(h.headers());
      await givenDomain(h.module, 'metered-gone.com', { atRegistrar: false });
      await h.http.get('/domains/metered-gone.com/lock').set(h.headers());
      const text = (await h.http.get('/metrics')).text;
      expect(
        delta(
          text,
          'reseller_registrar_calls_total',
          'plugin="sandbox",capability="registrarLock",operation="get",outcome="ok"',
        ),
      ).toBeGreaterThanOrEqual(1);
      expect(
        delta(
          text,
          'reseller_registrar_calls_total',
          'plugin="sandbox",capability="registrarLock",operation="get",outcome="refused"',
        ),
      ).toBe(1);
      expect(
        delta(
          text,
          'reseller_registrar_calls_total',
          'plugin="sandbox",capability="register",operation="register",outcome="ok"',
        ),
      ).toBe(1); // metered-lock.com; metered-gone.com was never at the registrar
      expect(
        delta(text, 'reseller_registrar_call_duration_seconds_count', 'plugin="sandbox",capability="registrarLock"'),
      ).toBeGreaterThanOrEqual(2);
    });

    it('report ledger movements by kind and the ledger total from the database', async () => {
      // Other tests of this file order domains too, in any order: measure what this test moves.
      const reading = async () => {
        const text = (await h.http.get('/metrics')).text;
        const value = (name: string, labels: string) => metricValue(text, name, labels) ?? 0;
        return {
          adjustments: value('reseller_ledger_entries_total', 'kind="adjustment"'),
          adjusted: value('reseller_ledger_amount_minor_total', 'kind="adjustment"'),
          toppedUp: value('reseller_ledger_amount_minor_total', 'kind="top_up"'),
          balance: value('reseller_credit_balance_minor', ''),
        };
      };
      const before = await reading();
      expect(before.toppedUp).toBeGreaterThanOrEqual(100_00); // the opening credit
      const reseller = await h.module.services.resellers.byEmail(h.reseller.email);
      await h.module.services.credit.adjust(reseller.id, 25_00, 'top-up');
      await h.module.services.credit.adjust(reseller.id, -5_00, 'correction');
      const after = await reading();
      expect(after.adjustments - before.adjustments).toBe(1);
      expect(after.adjusted - before.adjusted).toBe(500);
      expect(after.toppedUp - before.toppedUp).toBe(25_00);
      expect(after.balance - before.balance).toBe(25_00 - 5_00);
    });

    it('count order outcomes by action', async () => {
      const order = (domain: string) =>
        h.http
          .post('/order/domains/register')
          .set(h.headers())
          .type('form')
          .send(
            form({
              domain,
              regperiod: '1',
              nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
              contacts: { registrant: REGISTRANT },
            }),
          );
      expect((await order('metered-order.com')).status).toBe(200);
      expect((await order('fail-metered.com')).status).toBe(502);
      const text = (await h.http.get('/metrics')).text;
      expect(metricValue(text, 'reseller_orders_total', 'action="register",outcome="placed"')).toBe(2);
      expect(metricValue(text, 'reseller_orders_total', 'action="register",outcome="completed"')).toBe(1);
      expect(metricValue(text, 'reseller_orders_total', 'action="register",outcome="failed"')).toBe(1);
      expect(metricValue(text, 'reseller_ledger_entries_total', 'kind="order_debit"')).toBe(2);
      expect(metricValue(text, 'reseller_ledger_amount_minor_total', 'kind="order_refund"')).toBe(10_00);
      expect(metricValue(text, 'reseller_domain_status_changes_total', 'to="Active",cause="order"')).toBe(1);
    });

    it('answer /healthz while the process is up, and /readyz with its checks, 503 once draining', async () => {
      expect((await h.http.get('/healthz')).body).toEqual({ status: 'ok' });
      expect((await h.http.get('/readyz')).body).toEqual({
        status: 'ready',
        checks: { database: 'ok', plugins: 'ok' },
      });
      h.module.drain();
      const draining = await h.http.get('/readyz');
      expect(draining.status).toBe(503);
      expect(draining.body).toEqual({
        error: 'not ready: process: shutting down',
        checks: { process: 'shutting down', database: 'ok', plugins: 'ok' },
      });
      expect((await h.http.get('/healthz')).status).toBe(200);
    });
  });

  it('can leave /metrics out (METRICS=false) while the rest is served', async () => {
    const h = await startHarness({ settings: { metrics: false } });
    try {
      expect((await h.http.get('/metrics')).status).toBe(404);
      expect((await h.http.get('/healthz')).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
