import { defineRegistrarPlugin, type AvailabilityResult, type RegistrarPlugin } from '../../src/core/registrar/plugin';

interface SandboxOptions {
  readonly latencyMs: number;
}

function parseOptions(raw: Record<string, unknown>): SandboxOptions {
  const latency = raw.latencyMs ?? 0;
  const latencyMs = typeof latency === 'string' ? Number(latency) : latency;
  if (typeof latencyMs !== 'number' || !Number.isInteger(latencyMs) || latencyMs < 0 || latencyMs > 600_000) {
    throw new Error('latencyMs must be a whole number of milliseconds from 0 to 600000');
  }
  return { latencyMs };
}

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (ms === 0) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });

/**
 * The simulated registrar for demos, development and tests. Test names, like a payment
 * provider's test cards: an SLD starting `taken-` is registered elsewhere.
 */
export default defineRegistrarPlugin<SandboxOptions>({
  id: 'sandbox',
  apiVersion: 1,
  parseOptions,
  create(options): RegistrarPlugin {
    const registered = new Map<string, string>();
    const addYears = (from: Date, years: number) => {
      const d = new Date(from);
      d.setUTCFullYear(d.getUTCFullYear() + years);
      return d.toISOString().slice(0, 10);
    };
    return {
      id: 'sandbox',
      async checkAvailability(domains, ctx) {
        await wait(options.latencyMs, ctx.signal);
        return domains.map((domain): AvailabilityResult => ({
          domain,
          status: domain.startsWith('taken-') || registered.has(domain) ? 'registered' : 'available',
        }));
      },
      async register(input, ctx) {
        await wait(options.latencyMs, ctx.signal);
        if (input.domain.startsWith('taken-') || registered.has(input.domain)) {
          return { ok: false, reason: 'unavailable', message: `${input.domain} is already registered` };
        }
        const expiryDate = addYears(new Date(), input.period);
        registered.set(input.domain, expiryDate);
        return { ok: true, expiryDate };
      },
      async renew(input, ctx) {
        await wait(options.latencyMs, ctx.signal);
        const current = registered.get(input.domain) ?? input.currentExpiryDate;
        if (!current) return { ok: false, reason: 'refused', message: `${input.domain} is not registered here` };
        const expiryDate = addYears(new Date(`${current}T00:00:00Z`), input.period);
        registered.set(input.domain, expiryDate);
        return { ok: true, expiryDate };
      },
    };
  },
});
