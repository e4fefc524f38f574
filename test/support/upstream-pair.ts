import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { ResellerClient } from '../../src/client';
import { parseAmount } from '../../src/core/common/money';
import { startHarness, type Harness } from './harness';

/**
 * A clock on real time that a test may move forward. The upstream plugin signs its requests with
 * the real time (the SDK's default), and the upstream accepts a timestamp within 60 s of its own
 * clock, so the upstream platform runs on this one; moving it a few seconds lets its
 * reconciliation claim orders without waiting.
 */
export function realTimeClock(): { now(): Date; set(at: Date | string): void; advance(ms: number): void } {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    set: (at) => {
      offsetMs = new Date(at).getTime() - Date.now();
    },
    advance: (ms) => {
      offsetMs += ms;
    },
  };
}

export const urlOf = (h: Harness) => `http://127.0.0.1:${(h.server.address() as AddressInfo).port}`;

export interface UpstreamPair {
  /** Platform A: .com/.net/.org served by the upstream plugin, pointed at B. */
  readonly a: Harness;
  /** Platform B: the upstream, on the sandbox. */
  readonly b: Harness;
  /** A's reseller, calling A's HTTP API. */
  readonly reseller: ResellerClient;
  /** A's own account at B (the plugin's credentials), calling B's HTTP API. */
  readonly operator: ResellerClient;
  readonly operatorId: string;
  /** The operator's balance at B, in minor units. */
  operatorBalance(): Promise<number>;
  /** A's reseller's balance at A, in minor units. */
  resellerBalance(): Promise<number>;
  close(): Promise<void>;
}

export interface UpstreamPairOptions {
  /** A's REGISTRAR_TIMEOUT_MS. */
  readonly aTimeoutMs: number;
  /** B's REGISTRAR_TIMEOUT_MS: how long B's sandbox keeps `slow-` and `lost-` names waiting. */
  readonly bTimeoutMs: number;
  /** The operator's opening credit at B, in minor units. Default 1000.00. */
  readonly operatorCredit?: number;
}

/**
 * Two platforms in one process, each on its own fresh database and Koa server: A sells .com/.net/.org
 * through the upstream plugin to B, where A's operator holds a reseller account; B registers them
 * with its sandbox. B's .com costs A 8.00 to register, 9.00 to renew and 7.00 to transfer, while
 * A's reseller pays A's catalogue prices (10.00, 12.00, 9.00).
 */
export async function startUpstreamPair(options: UpstreamPairOptions): Promise<UpstreamPair> {
  const b = await startHarness({
    clock: realTimeClock(),
    settings: { registrarTimeoutMs: options.bTimeoutMs, reconcileAfterMs: 0 },
  });
  let a: Harness | undefined;
  try {
    if (!b.server.listening) await once(b.server, 'listening');
    await b.module.services.catalogue.setTld({
      tld: '.com',
      group: 'default',
      registrar: 'sandbox',
      prices: { register: { 1: 800, 2: 1500 }, renew: { 1: 900, 2: 1800 }, transfer: { 1: 700 } },
    });
    const created = await b.module.services.resellers.create(
      'operator-a@example.net',
      'default',
      options.operatorCredit ?? 100_000,
    );
    const operatorId = created.reseller.id;
    // The key reaches the plugin through the environment, as docs/plugins.md recommends.
    const keyEnv = `UPSTREAM_TEST_KEY_${randomBytes(4).toString('hex').toUpperCase()}`;
    process.env[keyEnv] = created.apiKey;
    a = await startHarness({
      registrar: 'upstream',
      settings: {
        registrarTimeoutMs: options.aTimeoutMs,
        reconcileAfterMs: 0,
        plugins: {
          upstream: { baseUrl: urlOf(b), email: 'operator-a@example.net', apiKeyEnv: keyEnv, timeoutMs: 10_000 },
        },
      },
    });
    const aHarness = a;
    if (!a.server.listening) await once(a.server, 'listening');
    // Enough for a whole test file of orders.
    await a.module.services.credit.adjust(
      (await a.module.services.resellers.byEmail(a.reseller.email)).id,
      90_000,
      'test top-up',
    );
    const reseller = new ResellerClient({
      baseUrl: urlOf(a),
      email: a.reseller.email,
      apiKey: a.reseller.apiKey,
      now: () => aHarness.clock.now(),
      retries: 0,
    });
    const operator = new ResellerClient({
      baseUrl: urlOf(b),
      email: 'operator-a@example.net',
      apiKey: created.apiKey,
      retries: 0,
    });
    return {
      a,
      b,
      reseller,
      operator,
      operatorId,
      operatorBalance: async () => parseAmount(await operator.credits()),
      resellerBalance: async () => parseAmount(await reseller.credits()),
      async close() {
        delete process.env[keyEnv];
        await aHarness.close();
        await b.close();
      },
    };
  } catch (error) {
    await a?.close();
    await b.close();
    throw error;
  }
}

/** Polls until `check` answers true (a request B is still serving, an order it settles). Never measures time. */
export async function eventually(check: () => Promise<boolean>, what: string, attempts = 500): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}
