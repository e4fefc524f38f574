import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { DEFAULT_TIMEOUT_MS, ResellerClient, type RegisterOrder } from '../../src/client';
import { fixedClock } from '../../src/core/common/clock';
import { SettingsSchema } from '../../src/config/settings';
import { startHarness, type Harness } from '../support/harness';
import { REGISTRANT } from '../support/wire';

/**
 * Issue 31, item 6: the SDK's default timeout equalled the registrar deadline, so an order whose
 * registrar answer was lost timed out in the SDK just before the server answered.
 */
describe("the SDK's default timeout", () => {
  const registrarDeadline = SettingsSchema.parse({}).registrarTimeoutMs;

  it("outlasts an order's longest answer: the premium check and the order, each at the registrar deadline, plus a margin", () => {
    expect(DEFAULT_TIMEOUT_MS).toBeGreaterThanOrEqual(2 * registrarDeadline + 10_000);
  });

  it('is what a client made without timeoutMs uses', async () => {
    let signal: AbortSignal | undefined;
    const client = new ResellerClient({
      baseUrl: 'http://127.0.0.1:1',
      email: 'r@example.com',
      apiKey: 'k',
      retries: 0,
      fetch: async (_url, init) => {
        signal = init?.signal ?? undefined;
        return new Response('"1.00"', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    await client.credits();
    expect(signal?.aborted).toBe(false);
    expect((client as unknown as { timeoutMs: number }).timeoutMs).toBe(DEFAULT_TIMEOUT_MS);
  });

  /**
   * The same race on a real server, at a smaller scale: the server's registrar deadline is
   * `DEADLINE_MS` instead of the default, and each client timeout is scaled by the same ratio. The
   * sandbox never answers the order of a `lost-` name: the server waits until the deadline and
   * answers the order as pending. The default (scaled) has that answer; the old default (the
   * deadline, scaled) gave up just before it.
   */
  describe('against a server whose registrar answer is lost', () => {
    const DEADLINE_MS = 1000;
    const scaled = (ms: number) => Math.round((ms * DEADLINE_MS) / registrarDeadline);
    let h: Harness;
    let baseUrl: string;
    const order = (domain: string): RegisterOrder => ({
      domain,
      period: 1,
      nameservers: ['ns1.example.net', 'ns2.example.net'],
      contacts: { registrant: REGISTRANT },
    });
    beforeAll(async () => {
      h = await startHarness({
        clock: fixedClock(new Date()),
        settings: { registrarTimeoutMs: DEADLINE_MS },
      });
      if (!h.server.listening) await once(h.server, 'listening');
      baseUrl = `http://127.0.0.1:${(h.server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await h.close();
    });
    const client = (timeoutMs: number) =>
      new ResellerClient({ baseUrl, email: h.reseller.email, apiKey: h.reseller.apiKey, retries: 0, timeoutMs });

    it("has the server's answer with the default timeout", async () => {
      h.clock.set(new Date());
      const placed = await client(scaled(DEFAULT_TIMEOUT_MS)).register(order('lost-answer.com'));
      expect(placed).toEqual({ orderId: expect.any(String), status: 'pending' });
    }, 30_000);

    it('gave up before the server answered with the old default, the registrar deadline', async () => {
      h.clock.set(new Date());
      await expect(client(scaled(registrarDeadline)).register(order('lost-patience.com'))).rejects.toMatchObject({
        kind: 'timeout',
      });
    }, 30_000);
  });
});
