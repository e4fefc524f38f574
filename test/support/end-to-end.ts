import { once } from 'node:events';
import { isResellerApiError, ResellerClient } from '../../src/client';
import { parseAmount } from '../../src/core/common/money';
import type { Contact } from '../../src/core/registrar/plugin';
import { type Harness, type HarnessOptions, startHarness } from './harness';
import { urlOf } from './upstream-pair';

/**
 * The platform served over HTTP with a reseller calling it through the client SDK, for the end-to-end
 * tests of a registrar plugin against its test server (test/plugins/epp, test/plugins/openprovider):
 * the harness listening, the reseller topped up, and the questions those tests ask.
 */
export interface EndToEnd {
  readonly h: Harness;
  /** The reseller's SDK client, on the harness's clock, without retries. */
  readonly api: ResellerClient;
}

export function endToEnd(registrant: Contact) {
  let started: EndToEnd | undefined;
  const current = (): EndToEnd => {
    if (!started) throw new Error('the end-to-end harness is not started');
    return started;
  };
  return {
    /** Starts the harness with `options`, and tops the reseller up by `topUp` (minor units). */
    async start(options: HarnessOptions & { readonly topUp: number }): Promise<EndToEnd> {
      const h = await startHarness(options);
      if (!h.server.listening) await once(h.server, 'listening');
      const { id } = await h.module.services.resellers.byEmail(h.reseller.email);
      await h.module.services.credit.adjust(id, options.topUp, 'test top-up');
      const api = new ResellerClient({
        baseUrl: urlOf(h),
        email: h.reseller.email,
        apiKey: h.reseller.apiKey,
        now: () => h.clock.now(),
        retries: 0,
      });
      started = { h, api };
      return started;
    },
    /** A register (or transfer) order for the SDK, with two external nameservers. */
    order: (domain: string, period = 1) => ({
      domain,
      period,
      nameservers: ['ns1.host.net', 'ns2.host.net'],
      contacts: { registrant },
    }),
    balance: async () => parseAmount(await current().api.credits()),
    domain: (name: string) => current().h.module.services.domains.show(name),
    orderOf: async (name: string) => (await current().h.module.services.orders.list({ domain: name }))[0]!,
    /** One reconciliation pass once the registrar deadline of every pending order has passed. */
    reconcile: () => {
      const { h } = current();
      h.clock.advance(h.module.settings.registrarTimeoutMs + 1_000);
      return h.module.reconcile();
    },
    resultsOf: (report: { orders: ReadonlyArray<{ domain: string; result: string }> }) =>
      Object.fromEntries(report.orders.map((o) => [o.domain, o.result])),
    /** The API's refusal of a call as its status and message, or undefined when it succeeded. */
    rejection: (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (e: unknown) => (isResellerApiError(e) ? { status: e.status, message: e.serverMessage } : e),
      ),
  };
}
