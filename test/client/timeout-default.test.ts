import { DEFAULT_TIMEOUT_MS, ResellerClient } from '../../src/client';
import { SettingsSchema } from '../../src/config/settings';

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
});
