/**
 * The smallest useful registrar plugin, walked through in docs/plugins.md. It keeps its "registry"
 * in the platform database through `host.store`, so it survives restarts.
 *
 * In a plugin of your own, import from the package instead: `from 'domain-reseller'`.
 */
import { defineRegistrarPlugin, type CallContext, type RegistrarPlugin } from '../../../src/core/registrar/plugin';

interface Options {
  /** SLDs this registry will not register. */
  readonly reservedNames: readonly string[];
}

interface Entry {
  /** YYYY-MM-DD. */
  expiryDate: string;
  nameservers: string[];
}

const addYears = (date: string, years: number) => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().slice(0, 10);
};

/** A real plugin passes `ctx.signal` to its HTTP or EPP client; this one only checks it between steps. */
const stopIfCancelled = (ctx: CallContext) => {
  if (ctx.signal.aborted) throw ctx.signal.reason;
};

export default defineRegistrarPlugin<Options>({
  id: 'minimal',
  apiVersion: 1,

  // The loader has already checked the options against the manifest's "options" section (and turned
  // "www,mail" from an environment variable into a list). This has the last word.
  parseOptions(raw) {
    const reservedNames = (raw.reservedNames as string[] | undefined) ?? [];
    if (reservedNames.some((n) => !/^[a-z0-9-]{1,63}$/.test(n)))
      throw new Error('reservedNames must be lower-case labels');
    return { reservedNames };
  },

  create(options, host): RegistrarPlugin {
    const { store, clock } = host;
    const today = () => clock.now().toISOString().slice(0, 10);
    const isReserved = (domain: string) => options.reservedNames.includes(domain.split('.')[0] ?? '');

    return {
      id: 'minimal',

      async checkAvailability(domains, ctx) {
        stopIfCancelled(ctx);
        return Promise.all(
          domains.map(
            async (domain) =>
              ({
                domain,
                status: isReserved(domain) ? 'reserved' : (await store.get(domain)) ? 'registered' : 'available',
              }) as const,
          ),
        );
      },

      async register(input, ctx) {
        stopIfCancelled(ctx);
        // An expected "no" is an outcome, returned; only faults (the registry is down, garbage) are thrown.
        if (isReserved(input.domain))
          return { ok: false, reason: 'unavailable', message: `${input.domain} is reserved` };
        const entry: Entry = { expiryDate: addYears(today(), input.period), nameservers: [...input.nameservers] };
        if (!(await store.setIfAbsent(input.domain, entry)))
          return { ok: false, reason: 'unavailable', message: `${input.domain} is already registered` };
        return { ok: true, expiryDate: entry.expiryDate };
      },

      async renew(input, ctx) {
        stopIfCancelled(ctx);
        const entry = await store.get<Entry>(input.domain);
        if (!entry) return { ok: false, reason: 'refused', message: `${input.domain} is not registered here` };
        entry.expiryDate = addYears(entry.expiryDate, input.period);
        await store.set(input.domain, entry);
        return { ok: true, expiryDate: entry.expiryDate };
      },

      // One optional capability. Without domainInformation, the platform builds domain information
      // from these nameservers plus its own record.
      nameservers: {
        async get({ domain }, ctx) {
          stopIfCancelled(ctx);
          const entry = await store.get<Entry>(domain);
          return entry
            ? { ok: true, nameservers: entry.nameservers }
            : { ok: false, reason: 'refused', message: `${domain} is not registered here` };
        },
        async save({ domain, nameservers }, ctx) {
          stopIfCancelled(ctx);
          const entry = await store.get<Entry>(domain);
          if (!entry) return { ok: false, reason: 'refused', message: `${domain} is not registered here` };
          await store.set(domain, { ...entry, nameservers: [...nameservers] });
          return { ok: true };
        },
      },
    };
  },
});
